// Issue 10, fault 6: clients must not be able to fill the error log. What a client gets wrong (an
// oversized or malformed frame, an undecodable payload, a refused seat) is logged at info/warn
// without a stack; `error` stays for the server's own faults.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { accountWithBullets, joined } from "../helpers/boss.js";

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs("debug");
  t = await startTestApp({}, { logger: logs.logger });
});
afterAll(() => t?.stop());

/** The raw WebSocket of an SDK room, to send what a well-behaved SDK never would. */
const socketOf = (room: { connection: unknown }) => (room.connection as { transport: { ws: WebSocket } }).transport.ws;

function expectNoErrorLines(): void {
  expect(logs.errors().map((l) => l.msg)).toEqual([]);
  expect(logs.lines.filter((l) => JSON.stringify(l).includes("    at ")).map((l) => l.msg)).toEqual([]);
}

describe("client mistakes are not server errors", () => {
  it("an oversized frame closes that client and is logged at info without a stack", async () => {
    logs.lines.length = 0;
    const lobby = await joined(t.sdk().joinOrCreate("boss_lobby", {}));
    const closed = new Promise<number>((resolve) => lobby.room.onLeave((code) => resolve(code)));
    socketOf(lobby.room).send(new Uint8Array(64 * 1024));
    expect(await closed).toBeGreaterThan(1000);
    await expect.poll(() => logs.lines.some((l) => /Max payload size exceeded/.test(JSON.stringify(l)))).toBe(true);
    const line = logs.lines.find((l) => /Max payload size exceeded/.test(JSON.stringify(l)))!;
    expect(line).toMatchObject({ level: 30, reason: "Max payload size exceeded" });
    expectNoErrorLines();
  });

  it("an undecodable message payload is logged at info without a stack", async () => {
    logs.lines.length = 0;
    const lobby = await joined(t.sdk().joinOrCreate("boss_lobby", {}));
    const closed = new Promise<number>((resolve) => lobby.room.onLeave((code) => resolve(code)));
    // ROOM_DATA (13), message type "x" as a msgpack fixstr, then a truncated msgpack map.
    socketOf(lobby.room).send(new Uint8Array([13, 0xa1, 0x78, 0xde, 0xff]));
    await closed;
    await expect.poll(() => logs.lines.some((l) => /does not decode/.test(l.msg))).toBe(true);
    expect(logs.lines.find((l) => /does not decode/.test(l.msg))!.level).toBe(30);
    expectNoErrorLines();
  });

  it("a refused duplicate seat is answered 409 and logged at info without a stack", async () => {
    logs.lines.length = 0;
    const acc = await accountWithBullets(t, 50);
    const first = await joined(t.sdk(acc.cookie).joinOrCreate("boss", {}));
    const second = await t.sdk(acc.cookie).joinById(first.room.roomId, {}).catch((e) => e);
    expect(second.code).toBe(409);
    await expect.poll(() => logs.lines.some((l) => /already has a seat/.test(String(l.reason)))).toBe(true);
    expect(logs.lines.find((l) => /already has a seat/.test(String(l.reason)))).toMatchObject({ level: 30, code: 409 });
    expectNoErrorLines();
    await first.room.leave();
  });
});
