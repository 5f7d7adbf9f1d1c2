// The sequence of hostile clients issue 24 put a server through before a SIGTERM that never finished:
// oversized and malformed /matchmake requests, hostile join options, unauthenticated creates, a
// boss-lobby member toggling beside others, a refused reconnect with a live player's token and a
// 15 MB admin body trickled and dropped. Every step tolerates any answer (or none): the point is
// what the server is left holding afterwards, not what it replies.
import { request } from "node:http";
import { connect } from "node:net";
import { Client as SdkClient, type Room } from "@colyseus/sdk";
import { HttpClient } from "./app.js";

const ROOMS = ["boss_lobby", "pvp", "slitherrush"] as const;

/** POSTs `bytes` to `path` (any answer, or a reset, is fine). */
function postBytes(base: string, path: string, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "content-length": bytes } }, (res) => {
      res.resume();
      res.on("end", resolve);
      res.on("error", () => resolve());
    });
    req.on("error", () => resolve());
    const chunk = Buffer.alloc(1024 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** Sends the head and `trickled` bytes of a body announced as `announced` bytes, slowly, then drops the socket. */
function trickleAndDrop(port: number, path: string, announced: number, trickled: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", async () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer nope\r\nContent-Length: ${announced}\r\n\r\n`);
      const piece = Buffer.alloc(64 * 1024, "x");
      for (let sent = 0; sent < trickled && !socket.destroyed; sent += piece.length) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 5)); // a slow client: a trickle, not a burst
      }
      socket.destroy();
      resolve();
    });
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
  });
}

async function registered(base: string, username: string): Promise<HttpClient> {
  const http = new HttpClient(base);
  const r = await http.post("/api/auth/register", { username, password: "hostile-pass-1" });
  if (r.status !== 201) throw new Error(`register ${username}: ${r.status} ${r.text}`);
  return http;
}

/**
 * Runs the whole sequence against the server at `port`. Returns the rooms it left joined (the
 * lobby's members), for the caller to keep or leave.
 */
/** `adminPort`: the admin endpoint's own listener (DATA_DIR/admin.json), where step 7's body goes. */
export async function hostileSequence(port: number, adminPort = port): Promise<Room[]> {
  const base = `http://127.0.0.1:${port}`;
  const ws = `ws://127.0.0.1:${port}`;

  // 1. A 50 MB /matchmake body.
  await postBytes(base, "/matchmake/joinOrCreate/pvp", 50 * 1024 * 1024);

  // 2. Hostile join options, signed in and as a guest.
  const owner = await registered(base, `hostile_${process.pid}_${Date.now() % 100000}`);
  for (const room of ROOMS) {
    for (const method of ["create", "joinOrCreate"]) {
      for (const body of ['{"hasOwnProperty":1}', "null", '{"__proto__":{"x":1}}']) {
        for (const cookie of [owner.cookieHeader, ""]) {
          await fetch(`${base}/matchmake/${method}/${room}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body }).then((r) => r.text(), () => "");
        }
      }
    }
  }

  // 3. 300 bad /matchmake requests.
  const bad = ["{", "[]", '"x"', "1e999", '{"a":' + "[".repeat(2000)];
  await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      fetch(`${base}/matchmake/${["joinOrCreate", "create", "join", "joinById", "nope"][i % 5]}/${i % 7 === 0 ? "no_such_room" : ROOMS[i % 3]}`, {
        method: "POST",
        headers: { "content-type": i % 2 ? "application/json" : "text/plain" },
        body: bad[i % bad.length],
      }).then((r) => r.text(), () => ""),
    ),
  );

  // 4. 100 unauthenticated creates (guests), left to expire.
  await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      fetch(`${base}/matchmake/create/${ROOMS[i % 3]}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) => r.text(), () => ""),
    ),
  );

  // 5. A boss-lobby member toggling leave/join beside 10 others.
  const members: Room[] = [];
  for (let i = 0; i < 10; i++) {
    const m = await new SdkClient(ws).joinOrCreate("boss_lobby", { name: `lobby${i}` });
    m.onMessage("*", () => {});
    members.push(m);
  }
  const toggler = await registered(base, `toggler_${process.pid}_${Date.now() % 100000}`);
  const togglerClient = new SdkClient(ws, { headers: { cookie: toggler.cookieHeader } });
  for (let i = 0; i < 20; i++) {
    const t = await togglerClient.joinOrCreate("boss_lobby", {});
    t.onMessage("*", () => {});
    await t.leave(i % 2 === 0);
  }

  // 6. A refused reconnect with a live player's token.
  const live = members[0];
  await new SdkClient(ws).reconnect(live.reconnectionToken).then(
    (r) => r.leave(),
    () => undefined,
  );

  // 7. A 15 MB admin body, trickled and dropped.
  await trickleAndDrop(adminPort, "/admin/commands", 15 * 1024 * 1024, 2 * 1024 * 1024);
  return members;
}
