// Mode status: GET /api/modes/status counts the matchmaker's listings honestly; the mode_select
// room pushes the numbers once on join and then on change, at most twice a second.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, joined, serverBossRoom } from "../helpers/boss.js";
import { faceToFace, leaveAll, nextMessage, nextTick, pair, startBattle } from "../helpers/pvp.js";
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

  it("a boss room counts its players after the boss falls, for as long as they stay (REST and the pushed boss_status)", async () => {
    const first = await joined(t.joinNewRoom("boss", { bullets: 20 }));
    const others = [];
    for (let i = 1; i < 10; i++) others.push(await joined(t.sdk().joinById(first.room.roomId, { bullets: 20 })));
    expect((await status()).boss).toEqual({ totalPlayers: 10, activeRooms: 1, openSlots: 0 });

    const server = serverBossRoom(first.room.roomId);
    Object.assign(server.battle.tuning, { bossMoves: false, bossAttacks: false, powerupSpawns: false });
    const shooter = server.battle.players.get(first.room.sessionId)!;
    shooter.x = server.battle.boss.x;
    shooter.y = 400;
    server.battle.health = 10;
    first.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    await first.log.waitFor("boss_defeated");
    // The finished room is locked with phase "defeated": no seats offered, every player still counted.
    await eventually(async () => server.metadata?.phase === "defeated", "the listing says defeated");
    expect((await status()).boss).toEqual({ totalPlayers: 10, activeRooms: 1, openSlots: 0 });
    // A viewer joining now is sent the same numbers (the pushed boss_status reads the same listings).
    const viewer = await joined(t.sdk().joinOrCreate("mode_select"));
    expect(await viewer.log.waitFor("boss_status")).toMatchObject({ totalPlayers: 10, activeRooms: 1, openSlots: 0 });

    // As they leave, the count follows them down.
    await Promise.all(others.slice(0, 4).map((p) => p.room.leave()));
    await eventually(async () => (await status()).boss.totalPlayers === 6, "six players left in the finished room");
    await Promise.all([first.room.leave(), ...others.slice(4).map((p) => p.room.leave()), viewer.room.leave()]);
    await eventually(async () => (await status()).boss.totalPlayers === 0, "finished boss room emptied");
  });

  it("a finished duel counts both duellists while they stay", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    faceToFace(server);
    server.arena.players.get(b.sid)!.lives = 1;
    while ((server.arena.players.get(a.sid)?.fireCharge ?? 0) < 1) await nextTick(server);
    const end = nextMessage(a, "pvp_battle_end");
    a.room.send("pvp_shoot", { dx: 1, dy: 0 });
    expect(await end).toMatchObject({ winner: a.sid, reason: "knockout" });
    await eventually(() => server.metadata?.phase === "finished", "the listing says finished");
    expect((await status()).pvp).toEqual({ totalPlayers: 2, activeRooms: 1, openSlots: 0 });
    await leaveAll();
    expect((await status()).pvp.totalPlayers).toBe(0);
  });
});
