// Issue 23, "/matchmake, unauthenticated, before any room code runs": the SDK's matchmaking route
// is guarded at the service's edge (src/http/edge.ts, src/http/matchmake.ts). Bodies are limited
// before they are buffered, join options are parsed by each room's own schema before Colyseus or the
// room touches them, every client mistake is a 4xx in the service's error shape, nothing a client
// sends is logged at error, `create` is reserved, and reservations are not players.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMakeError } from "@colyseus/sdk";
import { startTestApp, TEST_ORIGIN, type TestApp } from "../helpers/app.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { accountWithBullets, joined } from "../helpers/boss.js";

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs("debug");
  t = await startTestApp({}, { logger: logs.logger });
});
afterAll(() => t?.stop());

interface Answer {
  status: number;
  json: any;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
}

/** One POST on its own connection; `body` is sent as is (a string) or as chunks without a Content-Length. */
function post(path: string, body: string | Buffer[], headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const chunked = Array.isArray(body);
    const req = request(
      `${t.baseUrl}${path}`,
      { method: "POST", agent: false, headers: { "content-type": "application/json", ...(chunked ? {} : { "content-length": String(Buffer.byteLength(body)) }), ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined, ms: Date.now() - started, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    if (chunked) {
      for (const c of body) req.write(c);
      req.end();
    } else req.end(body);
  });
}

/** The service's error shape (plus the `message` the Colyseus SDK reads). */
function expectRefusal(a: Answer, status: number, code?: string): void {
  expect(a.status, JSON.stringify(a.json)).toBe(status);
  expect(a.json).toEqual({ error: expect.objectContaining({ code: code ?? expect.any(String), message: expect.any(String) }), message: a.json.error.message });
  expect(a.json.error.message).not.toMatch(/is not a function|Cannot read|Cannot use|undefined|null \(/);
}

function expectNoErrorLines(): void {
  expect(logs.errors().map((l) => `${l.msg} ${JSON.stringify(l.err ?? l.reason ?? "")}`)).toEqual([]);
  expect(logs.lines.filter((l) => JSON.stringify(l).includes("    at ")).map((l) => l.msg)).toEqual([]);
}

describe("the body limit", () => {
  it("refuses a declared body over 16 KB before reading it: 413 in the service's shape, connection closed", async () => {
    // The declared length is never sent: an answer proves nothing was waited for.
    const answer = await new Promise<Answer>((resolve, reject) => {
      const started = Date.now();
      const req = request(`${t.baseUrl}/matchmake/joinOrCreate/boss_lobby`, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) } }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), ms: Date.now() - started, headers: res.headers }));
      });
      req.on("error", reject);
      req.write("{");
    });
    expectRefusal(answer, 413, "payload_too_large");
    expect(answer.headers.connection).toBe("close");
    expectNoErrorLines();
  });

  it("refuses a chunked body (no Content-Length) once it passes 16 KB", async () => {
    const chunk = Buffer.from(`{"username":"${"x".repeat(8 * 1024)}`);
    expectRefusal(await post("/matchmake/joinOrCreate/boss_lobby", [chunk, chunk, chunk, Buffer.from('"}')]), 413, "payload_too_large");
    // Just under the limit is read and judged by the room's schema (a 24 KB name is too long, not too large).
    expectRefusal(await post("/matchmake/joinOrCreate/boss_lobby", JSON.stringify({ username: "x".repeat(15 * 1024) })), 400, "invalid_join_options");
    expectNoErrorLines();
  });
});

describe("hostile join options", () => {
  const rooms = ["boss_lobby", "boss", "pvp", "slitherrush", "mode_select"];
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  it.each(rooms)("%s: a non-object is 400 invalid_join_options, within milliseconds", async (room) => {
    const bodies = ["null", "5", '"x"', "[]", "true", ...(room === "mode_select" ? [] : [`{"username":${deep(2500)}}`])];
    for (const body of bodies) {
      const a = await post(`/matchmake/joinOrCreate/${room}`, body);
      expectRefusal(a, 400, "invalid_join_options");
      expect(a.ms).toBeLessThan(2000);
    }
    expectNoErrorLines();
  });

  it.each(rooms.filter((r) => r !== "mode_select"))("%s: prototype keys and unknown deep objects are dropped, not obeyed", async (room) => {
    const options = room === "boss" || room === "pvp" ? ',"bullets":20' : "";
    for (const body of [`{"hasOwnProperty":1${options}}`, `{"__proto__":{"arena":"x","party":"create"}${options}}`, `{"constructor":{"prototype":{"x":1}}${options}}`, `{"deep":${deep(2500)}${options}}`]) {
      const a = await post(`/matchmake/joinOrCreate/${room}`, body);
      expect(a.status, `${room} ${body.slice(0, 60)} → ${JSON.stringify(a.json)}`).toBe(200);
      expect(a.json).toMatchObject({ name: room, roomId: expect.any(String), sessionId: expect.any(String) });
      expect(a.ms).toBeLessThan(2000);
    }
    expectNoErrorLines();
  });

  it("the room sees only what its schema produced", async () => {
    const lobby = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "  Proto  ", ["__proto__" as string]: { isAdmin: true }, extra: "dropped" }));
    const server = t.colyseus.getRoomById(lobby.room.roomId)!;
    const client = server.clients.getById(lobby.room.sessionId)!;
    expect((client.auth as { identity: { username: string } }).identity.username).toBe("Proto (guest)");
    await lobby.room.leave();
  });
});

describe("errors in the service's shape", () => {
  it("unknown methods, rooms and room ids, NUL bytes, other HTTP methods", async () => {
    expectRefusal(await post("/matchmake/explode/boss_lobby", "{}"), 404, "unknown_method");
    expectRefusal(await post("/matchmake/joinOrCreate/nope", "{}"), 404, "unknown_room");
    expectRefusal(await post("/matchmake/joinOrCreate/boss%00lobby", "{}"), 404, "unknown_room");
    expectRefusal(await post("/matchmake/joinById/AbCdEfGhI", "{}"), 404, "room_not_found");
    expectRefusal(await post("/matchmake/joinById/a%00b", "{}"), 400, "validation_failed");
    expectRefusal(await post("/matchmake/reconnect/AbCdEfGhI", '{"reconnectionToken":"x"}'), 404, "room_not_found");
    expectRefusal(await post("/matchmake/joinOrCreate/boss_lobby", "{not json"), 400, "invalid_json");
    const get = await t.http().get("/matchmake/joinOrCreate/boss_lobby");
    expect(get.status).toBe(405);
    expect(get.body.error.code).toBe("method_not_allowed");
    for (const a of [await post("/matchmake/joinOrCreate/nope", "{}")]) expect(a.json.error.message).not.toContain("\u0000");
    expectNoErrorLines();
  });

  it("the SDK's MatchMakeError carries the message", async () => {
    const err = await t.sdk().joinOrCreate("boss", { bullets: "lots" }).catch((e) => e);
    expect(err).toBeInstanceOf(MatchMakeError);
    expect(err.code).toBe(400);
    expect(err.message).toMatch(/^invalid join options: bullets: /);
  });

  it("every /matchmake request has its line in the request log", async () => {
    logs.lines.length = 0;
    const a = await post("/matchmake/joinOrCreate/boss_lobby", "{}", { "x-request-id": "mm-log-1" });
    expect(a.status).toBe(200);
    const b = await post("/matchmake/joinOrCreate/nope", "{}", { "x-request-id": "mm-log-2" });
    expect(b.status).toBe(404);
    await expect.poll(() => logs.lines.filter((l) => l.msg === "request" && String(l.requestId).startsWith("mm-log-")).length).toBe(2);
    expect(logs.lines.find((l) => l.requestId === "mm-log-1")).toMatchObject({ level: 30, method: "POST", path: "/matchmake/joinOrCreate/boss_lobby", status: 200 });
  });
});

describe("who may create a room", () => {
  it.each(["pvp", "slitherrush", "boss_lobby", "mode_select"])("%s: nobody (matchmaking makes them): 403 create_not_allowed", async (room) => {
    expectRefusal(await post(`/matchmake/create/${room}`, "{}"), 403, "create_not_allowed");
    const acc = await t.account();
    expectRefusal(await post(`/matchmake/create/${room}`, "{}", { cookie: acc.cookie }), 403, "create_not_allowed");
  });

  it("boss: signed-in players only; a guest gets 403 sign_in_required and no room", async () => {
    expectRefusal(await post("/matchmake/create/boss", '{"bullets":20}'), 403, "sign_in_required");
    const acc = await accountWithBullets(t, 50);
    const created = await post("/matchmake/create/boss", "{}", { cookie: acc.cookie });
    expect(created.status).toBe(200);
    expect(created.json.name).toBe("boss");
  });
});

// The refusal carries the top-level `message` the SDK's MatchMakeError reads (expectRefusal).
describe("cross-site writes (issue 41)", () => {
  const bossRooms = async () => Number((await t.prisma.$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM boss_rooms"))[0].n);

  // A foreign site, and a page on another port of this host (the sample server's, SAMPLE_PORT's
  // default): same site, so SameSite=Lax sends the cookie along.
  it.each(["http://evil.example", "http://127.0.0.1:5001", "null"])("a page on %s with a player's cookie: 403 origin_not_allowed, no boss room, no seat", async (origin) => {
    const acc = await accountWithBullets(t, 50);
    const before = await bossRooms();
    expectRefusal(await post("/matchmake/create/boss", "{}", { cookie: acc.cookie, origin }), 403, "origin_not_allowed");
    expectRefusal(await post("/matchmake/joinOrCreate/boss", "{}", { cookie: acc.cookie, origin }), 403, "origin_not_allowed");
    expectRefusal(await post("/matchmake/joinOrCreate/slitherrush", "{}", { cookie: acc.cookie, "sec-fetch-site": "cross-site", origin }), 403, "origin_not_allowed");
    expect(await bossRooms()).toBe(before);
    expect((await t.http().get("/api/modes/status")).body.slitherrush).toMatchObject({ totalPlayers: 0 });
    expectNoErrorLines();
  });

  it("a browser that sends only Sec-Fetch-Site: cross-site is refused too; the server's own pages, listed origins and non-browser clients pass", async () => {
    const acc = await accountWithBullets(t, 50);
    expectRefusal(await post("/matchmake/joinOrCreate/boss_lobby", "{}", { cookie: acc.cookie, "sec-fetch-site": "cross-site" }), 403, "origin_not_allowed");
    expect((await post("/matchmake/joinOrCreate/boss_lobby", "{}", { cookie: acc.cookie, origin: t.baseUrl })).status).toBe(200);
    expect((await post("/matchmake/joinOrCreate/boss_lobby", "{}", { cookie: acc.cookie, origin: TEST_ORIGIN })).status).toBe(200);
    expect((await post("/matchmake/joinOrCreate/boss_lobby", "{}", { cookie: acc.cookie })).status).toBe(200);
  });
});

describe("reservations are not players", () => {
  it("seats reserved by /matchmake and never taken count as no player and no active room", async () => {
    for (let i = 0; i < 20; i++) expect((await post("/matchmake/joinOrCreate/slitherrush", "{}")).status).toBe(200);
    const status = async () => (await t.http().get("/api/modes/status")).body.slitherrush;
    expect(await status()).toMatchObject({ totalPlayers: 0, activeRooms: 0 });
    const player = await joined(t.sdk().joinOrCreate("slitherrush", { username: "real" }));
    await expect.poll(async () => (await status()).totalPlayers).toBe(1);
    expect((await status()).activeRooms).toBe(1);
    await player.room.leave();
    await expect.poll(async () => (await status()).totalPlayers).toBe(0);
  });
});

describe("a room whose creation failed", () => {
  it("is not disposed into a second failure", async () => {
    logs.lines.length = 0;
    // An arena asked for a party's arena that has no seat refuses to be created (src/rooms/slitherrush).
    const err = await t.colyseus.createRoom("slitherrush", { arena: "gone" }).catch((e) => e);
    expect(err.message).toMatch(/party's arena is full/);
    await expect.poll(() => logs.lines.some((l) => /refused a client's request/.test(l.msg))).toBe(true);
    await new Promise((r) => setImmediate(r));
    expectNoErrorLines();
  });
});
