// The Colyseus monitor at /monitor (basic auth), and (issue 41) what an attacker tried on it:
// guessing the password (failures limited per address, shared with /metrics' basic branch) and
// running room methods from a GET (actions now only by POST, behind the cross-site guard, two of them).
import { matchMaker } from "@colyseus/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, TEST_ORIGIN, type TestApp } from "../helpers/app.js";
import { OPERATOR_AUTH_FAILURES } from "../../src/http/operatorAuth.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ monitorUser: "ops", monitorPassword: "monitor-pass-1", metricsToken: "metrics-token-0123456789abcdef" });
});
afterAll(() => t?.stop());

describe("Colyseus monitor", () => {
  it("is mounted at /monitor behind basic auth", async () => {
    expect((await t.http().get("/monitor/api")).status).toBe(401);
    const wrong = Buffer.from("ops:nope").toString("base64");
    expect((await t.http().get("/monitor/api", { authorization: `Basic ${wrong}` })).status).toBe(401);
    const right = Buffer.from("ops:monitor-pass-1").toString("base64");
    const res = await t.http().get("/monitor/api", { authorization: `Basic ${right}` });
    expect(res.status).toBe(200);
  });
});

describe("the monitor's clients tab", () => {
  const auth = { authorization: `Basic ${Buffer.from("ops:monitor-pass-1").toString("base64")}` };

  it("names each client (display name, guest or account id) in the field it lists, and its actions still find the client", async () => {
    const room = await t.sdk().joinOrCreate("boss", { username: "Ann", bullets: 30 });
    room.onMessage("*", () => {});
    const res = await t.http().get(`/monitor/api/room?roomId=${room.roomId}`, auth);
    expect(res.status).toBe(200);
    const { clients } = res.body as { clients: Array<{ sessionId: string; elapsedTime: number }> };
    expect(clients.map((c) => c.sessionId)).toEqual([`${room.sessionId} · Ann (guest) · guest`]);

    // An account is named by its id; the labels carry no token.
    const acc = await t.account("monitored");
    const other = await t.sdk(acc.cookie).joinOrCreate("slitherrush", {});
    other.onMessage("*", () => {});
    const inArena = (await t.http().get(`/monitor/api/room?roomId=${other.roomId}`, auth)).body as { clients: Array<{ sessionId: string }> };
    expect(inArena.clients.map((c) => c.sessionId)).toEqual([`${other.sessionId} · monitored · account ${acc.user.id}`]);
    expect(JSON.stringify(inArena)).not.toContain(other.reconnectionToken.split(":").pop()!);
    await other.leave();

    // "Disconnect" in the monitor hands back that label (by POST: issue 41).
    const left = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    expect((await t.http().post("/monitor/api/room/call", { roomId: room.roomId, method: "_forceClientDisconnect", args: [clients[0].sessionId] }, auth)).status).toBe(200);
    expect(await left).toBeGreaterThan(0);
  });
});

let addressCounter = 0;
/** A client address of its own (the test app trusts its loopback proxy's X-Forwarded-For). */
const freshAddress = () => `198.51.100.${++addressCounter}`;
const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString("base64")}`;

describe("guessing the monitor's password (issue 41)", () => {
  it("40 wrong passwords on /monitor meet 429 with Retry-After; then even the right one waits; other addresses are not affected", async () => {
    const from = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await t.http({ "x-forwarded-for": from, authorization: basic(`guess-${i}`) }).get("/monitor/api")).status);
    expect(statuses.slice(0, OPERATOR_AUTH_FAILURES.limit)).toEqual(Array(OPERATOR_AUTH_FAILURES.limit).fill(401));
    expect(statuses.slice(OPERATOR_AUTH_FAILURES.limit)).toEqual(Array(40 - OPERATOR_AUTH_FAILURES.limit).fill(429));
    const limited = await t.http({ "x-forwarded-for": from, authorization: basic("monitor-pass-1") }).get("/monitor/api");
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await t.http({ "x-forwarded-for": freshAddress(), authorization: basic("monitor-pass-1") }).get("/monitor/api")).status).toBe(200);
  });

  it("counts failures only: the operator's own page, and a browser's first request without credentials, never meet the limit", async () => {
    const from = freshAddress();
    for (let i = 0; i < 60; i++) expect((await t.http({ "x-forwarded-for": from, authorization: basic("monitor-pass-1") }).get("/monitor/api")).status).toBe(200);
    for (let i = 0; i < 30; i++) {
      const challenge = await t.http({ "x-forwarded-for": from }).get("/monitor/");
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get("www-authenticate")).toMatch(/^Basic realm="monitor"/);
    }
    expect((await t.http({ "x-forwarded-for": from, authorization: basic("monitor-pass-1") }).get("/monitor/")).status).toBe(200);
  });

  it("/metrics' basic-auth branch: 30 wrong passwords meet 429, and the limit is the monitor's (one guesser, one budget)", async () => {
    const from = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await t.http({ "x-forwarded-for": from, authorization: basic(`guess-${i}`) }).get("/metrics")).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(OPERATOR_AUTH_FAILURES.limit);
    expect(statuses.at(-1)).toBe(429);
    expect((await t.http({ "x-forwarded-for": from, authorization: basic("monitor-pass-1") }).get("/monitor/api")).status).toBe(429);
    // The scraper's token from another address is untouched.
    expect((await t.http({ "x-forwarded-for": freshAddress(), authorization: "Bearer metrics-token-0123456789abcdef" }).get("/metrics")).status).toBe(200);
  });
});

describe("room actions (issue 41)", () => {
  const auth = () => ({ authorization: basic("monitor-pass-1"), "x-forwarded-for": freshAddress() });
  const open = async () => {
    const room = await t.sdk().joinOrCreate("boss", { username: "Kept", bullets: 30 });
    room.onMessage("*", () => {});
    return room;
  };

  it("GET /monitor/api/room/call runs nothing: 405, the room stays", async () => {
    const room = await open();
    const args = encodeURIComponent("[]");
    const res = await t.http(auth()).get(`/monitor/api/room/call?roomId=${room.roomId}&method=disconnect&args=${args}`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.body.error.code).toBe("method_not_allowed");
    expect(matchMaker.getLocalRoomById(room.roomId)).toBeDefined();
    await room.leave();
  });

  it("POST runs only disconnect and _forceClientDisconnect; other methods (state edits, messages in the server's name, internals) are 400", async () => {
    const room = await open();
    for (const method of ["_editStateProperty", "_deleteStateProperty", "_sendMessageToClient", "broadcast", "onDispose", "lock", "constructor"]) {
      const res = await t.http(auth()).post("/monitor/api/room/call", { roomId: room.roomId, method, args: [] });
      expect(res.status, method).toBe(400);
      expect(res.body.error.code).toBe("validation_failed");
    }
    expect(matchMaker.getLocalRoomById(room.roomId)).toBeDefined();
    expect((await t.http(auth()).post("/monitor/api/room/call", { roomId: "no-such-room", method: "disconnect" })).status).toBe(404);
    expect((await t.http({ "x-forwarded-for": freshAddress() }).post("/monitor/api/room/call", { roomId: room.roomId, method: "disconnect" })).status).toBe(401);
    const closed = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    expect((await t.http(auth()).post("/monitor/api/room/call", { roomId: room.roomId, method: "disconnect" })).status).toBe(200);
    await closed;
    await expect.poll(() => matchMaker.getLocalRoomById(room.roomId)).toBeUndefined();
  });

  it("a page on another origin (with the browser's remembered basic auth) is refused 403; the server's own and listed origins pass", async () => {
    const room = await open();
    for (const origin of ["http://evil.example", "http://127.0.0.1:5001"]) {
      const res = await t.http({ ...auth(), origin }).post("/monitor/api/room/call", { roomId: room.roomId, method: "disconnect" });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("origin_not_allowed");
    }
    expect(matchMaker.getLocalRoomById(room.roomId)).toBeDefined();
    expect((await t.http({ ...auth(), origin: TEST_ORIGIN }).post("/monitor/api/room/call", { roomId: room.roomId, method: "_forceClientDisconnect", args: ["nobody"] })).status).toBe(200);
    expect((await t.http({ ...auth(), origin: t.baseUrl }).post("/monitor/api/room/call", { roomId: room.roomId, method: "disconnect" })).status).toBe(200);
  });
});
