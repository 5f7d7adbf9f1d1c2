// Mode status: GET /api/modes/status counts the matchmaker's listings honestly; the mode_select
// room pushes the numbers once on join and then on change, at most twice a second.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, joined } from "../helpers/boss.js";
import { STATUS_PUSH_INTERVAL_MS } from "../../src/rooms/modes/ModeSelectRoom.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const status = async () => (await t.http().get("/api/modes/status")).body;

describe("mode status", () => {
  it("GET /api/modes/status: players, active rooms and honest open seats, no auth needed", async () => {
    const empty = await t.http().get("/api/modes/status");
    expect(empty.status).toBe(200);
    const zero = { totalPlayers: 0, activeRooms: 0, openSlots: 0 };
    expect(empty.body).toEqual({ boss: zero, pvp: zero, slitherrush: zero });

    const a = await t.sdk().joinOrCreate("boss", { bullets: 20 });
    const b = await t.sdk().joinOrCreate("boss", { bullets: 20 });
    expect(b.roomId).toBe(a.roomId);
    expect((await status()).boss).toEqual({ totalPlayers: 2, activeRooms: 1, openSlots: 8 });

    // A locked room offers no seats, whatever its head count.
    const server = (await import("@colyseus/core")).matchMaker.getLocalRoomById(a.roomId)!;
    await server.lock();
    expect((await status()).boss).toEqual({ totalPlayers: 2, activeRooms: 1, openSlots: 0 });
    await Promise.all([a.leave(), b.leave()]);
    await eventually(async () => (await status()).boss.totalPlayers === 0, "boss room emptied");
  });

  it("counts duels: a waiting player leaves one open seat, a full duel none", async () => {
    const a = await t.sdk().joinOrCreate("pvp", { bullets: 20 });
    expect((await status()).pvp).toEqual({ totalPlayers: 1, activeRooms: 1, openSlots: 1 });
    const b = await t.sdk().joinOrCreate("pvp", { bullets: 20 });
    expect(b.roomId).toBe(a.roomId);
    expect((await status()).pvp).toEqual({ totalPlayers: 2, activeRooms: 1, openSlots: 0 });
    await Promise.all([a.leave(), b.leave()]);
    await eventually(async () => (await status()).pvp.totalPlayers === 0, "duel emptied");
  });

  it("mode_select pushes every mode's status on join and again when a number changes, at most twice a second", async () => {
    const viewer = await joined(t.sdk().joinOrCreate("mode_select"));
    const first = await viewer.log.waitFor("pvp_status");
    expect(first).toEqual({ totalPlayers: 0, activeRooms: 0, openSlots: 0, viewerCount: expect.any(Number) });
    expect(await viewer.log.waitFor("slitherrush_status")).toMatchObject({ totalPlayers: 0, activeRooms: 0, openSlots: 0 });
    await viewer.log.waitFor("boss_status");
    // The viewer itself is counted once the listing shows it.
    await viewer.log.waitFor("boss_status", (s) => s.viewerCount === 1);

    const acc = await accountWithBullets(t, 30);
    viewer.log.clear();
    const player = await t.sdk(acc.cookie).joinOrCreate("boss");
    const pushed = await viewer.log.waitFor("boss_status", (s) => s.totalPlayers === 1);
    expect(pushed).toEqual({ totalPlayers: 1, activeRooms: 1, openSlots: 9, viewerCount: 1 });
    const second = await t.sdk().joinOrCreate("boss", { bullets: 10 });
    await viewer.log.waitFor("boss_status", (s) => s.totalPlayers === 2);
    const times = viewer.log.received.filter((m) => m.type === "boss_status").map((m) => m.at);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(STATUS_PUSH_INTERVAL_MS - 150) // arrival jitter on a shared machine;

    // Asking again answers the sender at once; unknown types are an error, the viewer stays.
    viewer.log.clear();
    viewer.room.send("slitherrush_get_status");
    expect(await viewer.log.waitFor("slitherrush_status")).toMatchObject({ totalPlayers: 0 });
    viewer.room.send("pvp_move", { x: 1, y: 2 });
    expect(await viewer.log.waitFor("error")).toMatchObject({ code: "unknown_message" });
    await Promise.all([player.leave(), second.leave(), viewer.room.leave()]);
  });
});
