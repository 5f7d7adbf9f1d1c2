// The PvP arena over real WebSocket clients (Colyseus SDK) against the real server and database:
// matchmaking in pairs, the ready check, the wall, server-side shots and hits, forfeits,
// persistence, one seat per account across modes, chat and presence, bad input and floods.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import { MatchMakeError } from "@colyseus/sdk";
import { patchedUntil } from "../helpers/waits.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, settle } from "../helpers/boss.js";
import { duelist, faceToFace, leaveAll, nextMessage, nextTick, pair, quickPlay, serverPvpRoom, startBattle, type Duelist } from "../helpers/pvp.js";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import { PvpStore } from "../../src/stores/pvp.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterEach(() => leaveAll());
afterAll(() => t?.stop());

/** The pvp rooms the matchmaker lists (any process), with their player counts. */
async function listedRooms() {
  return (await matchMaker.query({ name: "pvp" })).map((r) => ({ roomId: r.roomId, clients: r.clients, locked: r.locked }));
}

/** Once the fire rate allows, shoots from `shooter` along (dx, dy) and waits for the server's pvp_player_hit. */
async function landHit(shooter: Duelist, watcher: Duelist, dx: number, dy = 0) {
  const server = serverPvpRoom(shooter.room.roomId);
  while ((server.arena.players.get(shooter.sid)?.fireCharge ?? 0) < 1) await nextTick(server);
  const hit = nextMessage(watcher, "pvp_player_hit");
  shooter.room.send("pvp_shoot", { dx, dy });
  return hit;
}

describe("matchmaking", () => {
  it("pairs two players: P1 left at (100, 300), P2 right at (700, 300); both hear pvp_match_ready", async () => {
    const a = await quickPlay(t, undefined, { bullets: 30, username: "Ann" });
    const first = await a.log.waitFor("pvp_room_state");
    expect(first).toMatchObject({ roomId: a.room.roomId, playerCount: 1, playerNumber: 1, phase: "waiting", opponent: null });
    expect(first.self).toMatchObject({ sid: a.sid, player_number: 1, x: 100, y: 300, lives: 5, bullets: 30, guest: true, username: "Ann (guest)" });
    expect(first.arena).toEqual({ width: 800, height: 600, player_radius: 28, wall_left: 394, wall_right: 406, bullet_radius: 8, bullet_speed: 720 });

    const b = await quickPlay(t, undefined, { bullets: 30, username: "Ben" });
    expect(b.room.roomId).toBe(a.room.roomId);
    const second = await b.log.waitFor("pvp_room_state");
    expect(second).toMatchObject({ playerCount: 2, playerNumber: 2, phase: "ready_check" });
    expect(second.self).toMatchObject({ player_number: 2, x: 700, y: 300 });
    expect(second.opponent).toMatchObject({ sid: a.sid, player_number: 1 });
    expect(await a.log.waitFor("pvp_opponent_joined")).toMatchObject({ opponent: { sid: b.sid, username: "Ben (guest)", player_number: 2 }, playerCount: 2 });
    for (const d of [a, b]) {
      const ready = await d.log.waitFor("pvp_match_ready");
      expect(ready).toMatchObject({ message: "Both players are in the arena! Press Ready to start.", playerCount: 2 });
      expect(ready.player1).toMatchObject({ sid: a.sid, player_number: 1, x: 100, y: 300 });
      expect(ready.player2).toMatchObject({ sid: b.sid, player_number: 2, x: 700, y: 300 });
    }
    expect(b.log.all("pvp_opponent_joined")).toEqual([]);
    await patchedUntil(a.room, () => a.room.state.players?.size === 2 && a.room.state.phase === "ready_check", "synchronized state");
    expect(a.room.state.players.get(b.sid)).toMatchObject({ player_number: 2, x: 700, y: 300, lives: 5, ready: false, bullets: 30 });
    expect(await listedRooms()).toEqual([{ roomId: a.room.roomId, clients: 2, locked: true }]);
  });

  it("three players: a pair and one waiting in a new room; the fourth joins the waiting one; never three", async () => {
    const [a, b, c] = [await quickPlay(t), await quickPlay(t), await quickPlay(t)];
    expect(b.room.roomId).toBe(a.room.roomId);
    expect(c.room.roomId).not.toBe(a.room.roomId);
    expect((await c.log.waitFor("pvp_room_state")).playerNumber).toBe(1);
    const d = await quickPlay(t);
    expect(d.room.roomId).toBe(c.room.roomId);
    expect((await d.log.waitFor("pvp_room_state")).playerNumber).toBe(2);
    const rooms = await listedRooms();
    expect(rooms).toHaveLength(2);
    expect(rooms.every((r) => r.clients === 2)).toBe(true);
  });

  it("four players at once end up as two full rooms", async () => {
    const players = await Promise.all([0, 1, 2, 3].map(() => quickPlay(t)));
    // Racing joins may open a third room for a moment; its player is sent on (pvp_requeue).
    await eventually(async () => {
      const rooms = await listedRooms();
      return rooms.length === 2 && rooms.every((r) => r.clients === 2) && players.every((p) => p.room.connection.isOpen);
    }, "two full rooms");
    const byRoom = new Map<string, number>();
    for (const p of players) byRoom.set(p.room.roomId, (byRoom.get(p.room.roomId) ?? 0) + 1);
    expect([...byRoom.values()]).toEqual([2, 2]);
    for (const roomId of byRoom.keys()) {
      const numbers = [...serverPvpRoom(roomId).arena.players.values()].map((p) => p.number).sort();
      expect(numbers).toEqual([1, 2]);
    }
  });

  it("a player who lands in a newer room while an older one waits is sent to the older one", async () => {
    // Two rooms with a waiting player each: what racing joinOrCreate calls can end up with.
    const older = await duelist(t.joinNewRoom("pvp", { bullets: 30 }));
    const newer = await duelist(t.joinNewRoom("pvp", { bullets: 30 }));
    const closed = new Promise<number>((resolve) => newer.room.onLeave((code) => resolve(code)));
    expect(await newer.log.waitFor("pvp_requeue")).toEqual({ message: expect.any(String), reason: "waiting_player_elsewhere" });
    expect(await closed).toBe(4000);
    expect(older.log.all("pvp_requeue")).toEqual([]);
    // The client does what pvp_requeue asks: quick play again, which fills the older room.
    const again = await quickPlay(t);
    expect(again.room.roomId).toBe(older.room.roomId);
    expect(await older.log.waitFor("pvp_match_ready")).toMatchObject({ player2: { sid: again.sid } });
  });

  it("re-pairs after a leave: of two rooms with one waiting player each, the newer one's player moves", async () => {
    const [a, b, c] = [await quickPlay(t), await quickPlay(t), await quickPlay(t)];
    expect(c.room.roomId).not.toBe(a.room.roomId);
    const [left, requeue] = [nextMessage(b, "pvp_opponent_left"), nextMessage(c, "pvp_requeue")];
    a.room.send("pvp_leave", {});
    expect(await left).toMatchObject({ sid: a.sid, reason: "left", forfeit: false, playerCount: 1 });
    expect(await requeue).toMatchObject({ reason: "waiting_player_elsewhere" });
    await eventually(() => c.moves === 1 && c.room.connection.isOpen, "c followed pvp_requeue");
    expect(c.room.roomId).toBe(b.room.roomId);
    // c takes the number a left free.
    expect(await b.log.waitFor("pvp_match_ready", (m) => m.player1.sid === c.sid)).toMatchObject({ player1: { player_number: 1 }, player2: { sid: b.sid } });
    expect(b.log.all("pvp_requeue")).toEqual([]);
    await eventually(async () => {
      const rooms = await listedRooms();
      return rooms.length === 1 && rooms[0].clients === 2;
    }, "one full room");
  });

  it("a seat reservation the matchmaker gave up on (it lands after a pause) holds the waiting player's second seat seconds, not 15", async () => {
    const waiting = await quickPlay(t);
    const server = serverPvpRoom(waiting.room.roomId) as unknown as { _reserveSeat(sid: string, options: unknown, auth: unknown): Promise<boolean> };
    // What a paused process finds on resuming: a reservation whose onAuth answered 5 s ago; the
    // matchmaker stopped waiting for it after 2 s and placed that player elsewhere.
    await server._reserveSeat("late", {}, { guestBullets: 0, lagCompensation: true, authedAt: Date.now() - 5000 });
    expect(await listedRooms()).toEqual([{ roomId: waiting.room.roomId, clients: 2, locked: true }]);
    await eventually(async () => (await listedRooms())[0]?.clients === 1, "the late seat freed", 6000);
    const next = await quickPlay(t);
    expect(next.room.roomId).toBe(waiting.room.roomId);
  });

  it("two players waiting apart, whose rooms heard no join or leave, meet within a couple of seconds", async () => {
    const a = await quickPlay(t);
    // A reservation whose client never comes fills a's second seat for 2 s: b opens a room of its own.
    await (serverPvpRoom(a.room.roomId) as unknown as { _reserveSeat(sid: string, o: unknown, a: unknown, s: number): Promise<boolean> })._reserveSeat("ghost", {}, undefined, 2);
    const b = await quickPlay(t);
    expect(b.room.roomId).not.toBe(a.room.roomId);
    // The reservation lapses (no join, no leave in either room); the rooms look again and b moves.
    expect(await b.log.waitFor("pvp_requeue", undefined, 6000)).toMatchObject({ reason: "waiting_player_elsewhere" });
    await eventually(() => b.moves === 1 && b.room.connection.isOpen, "b followed pvp_requeue");
    expect(b.room.roomId).toBe(a.room.roomId);
    expect(await a.log.waitFor("pvp_match_ready")).toMatchObject({ player2: { sid: b.sid } });
  });

  it("a player left alone with nobody waiting elsewhere stays and gets the next newcomer", async () => {
    const { a, b } = await pair(t);
    const left = nextMessage(b, "pvp_opponent_left");
    await a.room.leave();
    await left;
    const c = await quickPlay(t);
    expect(c.room.roomId).toBe(b.room.roomId);
    expect((await c.log.waitFor("pvp_room_state")).playerNumber).toBe(1); // the free number, not a second "2"
    expect(b.log.all("pvp_requeue")).toEqual([]);
  });
});

describe("ready check and battle start", () => {
  it("one ready player waits; both ready start the battle for both; ready again during it is refused", async () => {
    const { a, b, server } = await pair(t);
    a.room.send("pvp_ready", {});
    expect(await nextMessage(b, "pvp_player_ready")).toEqual({ sid: a.sid, player_number: 1 });
    await patchedUntil(a.room, () => a.room.state.players.get(a.sid)?.ready === true, "ready in the state");
    expect(server.arena.phase).toBe("ready_check");
    const starts = [nextMessage(a, "pvp_battle_start"), nextMessage(b, "pvp_battle_start")];
    b.room.send("pvp_ready");
    const [sa, sb] = await Promise.all(starts);
    expect(sa).toEqual(sb);
    expect(sa).toMatchObject({ message: "Battle starting!", match_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(sa.player1).toMatchObject({ sid: a.sid, x: 100, y: 300, lives: 5 });
    expect(sa.player2).toMatchObject({ sid: b.sid, x: 700, y: 300, lives: 5 });
    await patchedUntil(a.room, () => a.room.state.phase === "battle" && a.room.state.match_id === sa.match_id, "battle in the state");
    a.room.send("pvp_ready");
    expect(await nextMessage(a, "error")).toMatchObject({ code: "battle_active", type: "pvp_ready" });
    b.room.send("pvp_get_status");
    expect(await nextMessage(b, "pvp_room_status")).toEqual({ roomId: b.room.roomId, playerCount: 2, battleActive: true, phase: "battle" });
  });

  it("pvp_join from a client already in the room resends its state", async () => {
    const { a } = await pair(t);
    const [state, status] = [nextMessage(a, "pvp_room_state"), nextMessage(a, "pvp_room_status")];
    a.room.send("pvp_join", { username: "Someone", bullets: 999, lives: 99 });
    expect(await state).toMatchObject({ playerNumber: 1, self: { bullets: 30, lives: 5 } });
    expect(await status).toMatchObject({ roomId: a.room.roomId, playerCount: 2 });
    a.room.send("pvp_join", { room_id: "elsewhere" });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "wrong_room", type: "pvp_join" });
  });
});

describe("movement", () => {
  it("holds the wall under a client pushing into it for seconds", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    const start = server.arena.now;
    let pushes = 0;
    while (server.arena.now - start < 3000) {
      await nextTick(server);
      const reply = nextMessage(a, "pvp_self_position");
      a.room.send("pvp_move", { x: 800 + pushes, y: 300 });
      const pos = await reply;
      expect(pos.x).toBeLessThanOrEqual(366);
      pushes++;
    }
    expect(pushes).toBeGreaterThan(30);
    expect(server.arena.players.get(a.sid)).toMatchObject({ x: 366, y: 300 });
    await eventually(() => b.log.all("pvp_opponent_position").at(-1)?.x === 366, "the opponent sees the wall hold");
    expect(b.log.all("pvp_opponent_position").every((p: { x: number }) => p.x <= 366)).toBe(true);
    await patchedUntil(b.room, () => b.room.state.players.get(a.sid)?.x === 366, "state at the wall");
    // The other side too: P2 stops at x = 434.
    for (let i = 0; i < 60; i++) {
      const reply = nextMessage(b, "pvp_self_position");
      b.room.send("pvp_move", { x: 0, y: 300 });
      await reply;
      await nextTick(server);
    }
    expect(server.arena.players.get(b.sid)!.x).toBe(434);
    expect(b.log.all("pvp_self_position").every((p: { x: number }) => p.x >= 434)).toBe(true);
  });

  it("caps speed: one message cannot teleport; the mover gets its authoritative position", async () => {
    const { a, b } = await pair(t);
    a.room.send("pvp_move", { x: 300, y: 550 });
    const self = await nextMessage(a, "pvp_self_position");
    expect(Math.hypot(self.x - 100, self.y - 300)).toBeLessThanOrEqual(112.5 + 1e-6);
    expect(await nextMessage(b, "pvp_opponent_position")).toEqual(self);
  });
});

describe("shots and hits, decided by the server", () => {
  it("five server-side hits end the battle with the right winner; client-sent results change nothing", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    b.room.send("pvp_hit_opponent", {});
    b.room.send("pvp_stats_update", { lives: 99, bullets: 999 });
    expect(await nextMessage(b, "error")).toMatchObject({ code: "server_authoritative", type: "pvp_hit_opponent" });
    await eventually(() => b.log.all("error").length === 2, "both refused");
    expect(b.log.all("error")[1]).toMatchObject({ code: "server_authoritative", type: "pvp_stats_update" });
    expect(server.arena.players.get(a.sid)!.lives).toBe(5);
    expect(server.arena.players.get(b.sid)).toMatchObject({ lives: 5, bullets: 30 });

    const shot = nextMessage(b, "pvp_opponent_shot");
    const first = await landHit(a, b, 1);
    expect(await shot).toMatchObject({ bulletX: 133, bulletY: 300, dx: 1, dy: 0, speed: 720, character: "knight" });
    expect(first).toEqual({ target: b.sid, lives: 4, shooter: a.sid });
    expect(await a.log.waitFor("pvp_player_hit")).toEqual(first);
    for (const lives of [3, 2, 1]) expect((await landHit(a, b, 1)).lives).toBe(lives);
    const ends = [nextMessage(a, "pvp_battle_end"), nextMessage(b, "pvp_battle_end")];
    expect((await landHit(a, b, 1)).lives).toBe(0);
    const [end, endB] = await Promise.all(ends);
    expect(endB).toEqual(end);
    expect(end).toMatchObject({ winner: a.sid, loser: b.sid, reason: "knockout" });
    expect(end.stats.match_id).toBe(server.arena.lastResult!.matchId);
    expect(end.stats.players).toEqual([
      { sid: a.sid, player_number: 1, username: expect.any(String), character: "knight", guest: true, shots: 5, hits: 5, lives: 5, bullets: 25 },
      { sid: b.sid, player_number: 2, username: expect.any(String), character: "knight", guest: true, shots: 0, hits: 0, lives: 0, bullets: 30 },
    ]);
    await patchedUntil(a.room, () => a.room.state.phase === "finished" && a.room.state.players.get(b.sid)?.lives === 0, "finished in the state");
    a.room.send("pvp_shoot", { dx: 1, dy: 0 });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "not_in_battle" });
  });

  it("a rematch: both ready again after the battle; lives reset, bullets carry over", async () => {
    const { a, b, server } = await pair(t);
    const first = await startBattle(a, b);
    faceToFace(server);
    for (let i = 0; i < 5; i++) await landHit(b, a, -1);
    const end = await a.log.waitFor("pvp_battle_end");
    expect(end).toMatchObject({ winner: b.sid, loser: a.sid });
    const second = await startBattle(a, b);
    expect(second.matchId).not.toBe(first.matchId);
    expect(server.arena.players.get(a.sid)).toMatchObject({ lives: 5, x: 100, y: 300, bullets: 30 });
    expect(server.arena.players.get(b.sid)).toMatchObject({ lives: 5, x: 700, y: 300, bullets: 25 });
  });

  it("refuses shots over the fire rate and without bullets", async () => {
    const { a, b, server } = await pair(t, [], [{ bullets: 3 }, { bullets: 30 }]);
    await startBattle(a, b);
    for (let i = 0; i < 3; i++) a.room.send("pvp_shoot", { dx: 0, dy: -1 });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "fire_rate", type: "pvp_shoot" });
    await eventually(() => server.arena.players.get(a.sid)!.fireCharge >= 1, "the fire rate allows a shot");
    a.room.send("pvp_shoot", { dx: 0, dy: -1 });
    await eventually(() => server.arena.players.get(a.sid)!.bullets === 0, "three shots fired");
    await eventually(() => server.arena.players.get(a.sid)!.fireCharge >= 1, "the fire rate allows a shot");
    a.room.send("pvp_shoot", { dx: 0, dy: -1 });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "no_bullets" });
  });
});

describe("forfeit", () => {
  it("a player who leaves during a battle loses by forfeit; the one who stays hears it", async () => {
    const { a, b } = await pair(t);
    await startBattle(a, b);
    await landHit(a, b, 1);
    const end = nextMessage(a, "pvp_battle_end");
    const left = nextMessage(a, "pvp_opponent_left");
    b.room.send("pvp_leave", {});
    expect(await end).toMatchObject({ winner: a.sid, loser: b.sid, reason: "forfeit" });
    expect(await left).toMatchObject({ sid: b.sid, reason: "left", forfeit: true, playerCount: 1 });
    await patchedUntil(a.room, () => a.room.state.players.size === 1 && a.room.state.phase === "waiting", "waiting for a new opponent");
  });
});

describe("accounts", () => {
  it("persists both accounts' results and bullets spent at the end of a battle; GET /api/pvp/stats shows them", async () => {
    const winner = await accountWithBullets(t, 20);
    const loser = await accountWithBullets(t, 12);
    const { a, b, server } = await pair(t, [winner.cookie, loser.cookie], [{}, {}]);
    expect((await a.log.waitFor("pvp_room_state")).self).toMatchObject({ bullets: 20, guest: false, username: winner.user.username });
    const { matchId } = await startBattle(a, b);
    faceToFace(server);
    b.room.send("pvp_shoot", { dx: 0, dy: 1 }); // a miss
    for (let i = 0; i < 5; i++) await landHit(a, b, 1);
    await a.log.waitFor("pvp_battle_end");
    const rows = await eventually(async () => {
      const found = await t.prisma.pvpResult.findMany({ where: { matchId }, orderBy: { playerNumber: "asc" } });
      return found.length === 2 ? found : undefined;
    }, "two result rows");
    expect(rows[0]).toMatchObject({ userId: winner.user.id, outcome: "win", reason: "knockout", shots: 5, hits: 5, livesLeft: 5, opponentUserId: loser.user.id, roomId: a.room.roomId });
    expect(rows[1]).toMatchObject({ userId: loser.user.id, outcome: "loss", shots: 1, hits: 0, livesLeft: 0, opponentName: winner.user.username });
    const bullets = async (userId: number) => (await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId } })).totalBullets;
    expect(await bullets(winner.user.id)).toBe(15);
    expect(await bullets(loser.user.id)).toBe(11);
    const stats = await t.http({ cookie: winner.cookie }).get("/api/pvp/stats");
    expect(stats.body).toMatchObject({ matches: 1, wins: 1, losses: 0, shots: 5, hits: 5, win_rate: 100, accuracy: 100 });
    expect(stats.body.recent[0]).toMatchObject({ match_id: matchId, outcome: "win", opponent: { username: loser.user.username, user_id: loser.user.id } });
  });

  it("a forfeit counts for both accounts; bullets spent are written when the leaver goes", async () => {
    const stayer = await accountWithBullets(t, 20);
    const leaver = await accountWithBullets(t, 20);
    const { a, b, server } = await pair(t, [stayer.cookie, leaver.cookie], [{}, {}]);
    const { matchId } = await startBattle(a, b);
    faceToFace(server);
    await landHit(b, a, -1);
    await landHit(b, a, -1);
    await b.room.leave();
    await a.log.waitFor("pvp_battle_end");
    const rows = await eventually(async () => {
      const found = await t.prisma.pvpResult.findMany({ where: { matchId } });
      return found.length === 2 ? found : undefined;
    }, "two result rows");
    expect(rows.find((r) => r.userId === leaver.user.id)).toMatchObject({ outcome: "loss", reason: "forfeit", shots: 2, hits: 2 });
    expect(rows.find((r) => r.userId === stayer.user.id)).toMatchObject({ outcome: "win", reason: "forfeit", livesLeft: 3 });
    expect((await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: leaver.user.id } })).totalBullets).toBe(18);
    expect((await t.http({ cookie: leaver.cookie }).get("/api/pvp/stats")).body).toMatchObject({ matches: 1, losses: 1, forfeits: 1 });
  });

  it("writes bullets spent at each checkpoint during a battle, and retries a failed battle write without double counting", async () => {
    const acc = await accountWithBullets(t, 20);
    const { a, b, server } = await pair(t, [acc.cookie], [{}]);
    const bullets = async () => (await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } })).totalBullets;
    const { matchId } = await startBattle(a, b);
    a.room.send("pvp_shoot", { dx: 0, dy: -1 });
    a.room.send("pvp_shoot", { dx: 0, dy: 1 });
    await eventually(() => server.arena.players.get(a.sid)!.bullets === 18, "two shots");
    await server.seats.checkpoint();
    expect(await bullets()).toBe(18);
    await server.seats.checkpoint(); // nothing new: nothing written twice
    expect(await bullets()).toBe(18);

    // The database fails the battle's write once: nothing is lost, the next write carries it.
    const failOnce = vi.spyOn(PvpStore.prototype, "record").mockRejectedValueOnce(new Error("database unavailable"));
    try {
      faceToFace(server);
      for (let i = 0; i < 5; i++) await landHit(b, a, -1);
      await a.log.waitFor("pvp_battle_end");
      await eventually(() => failOnce.mock.calls.length >= 1, "the failed write");
      expect(await t.prisma.pvpResult.count({ where: { matchId } })).toBe(0);
    } finally {
      failOnce.mockRestore();
    }
    await server.seats.checkpoint();
    expect(await t.prisma.pvpResult.findMany({ where: { matchId } })).toMatchObject([{ userId: acc.user.id, outcome: "loss", shots: 2 }]);
    expect(await bullets()).toBe(18);
  });

  it("an account brings its progress record's bullets (a claim is ignored); a guest's claim is capped at 30 and never stored", async () => {
    const acc = await accountWithBullets(t, 7);
    const a = await quickPlay(t, acc.cookie, { bullets: 500 });
    expect((await a.log.waitFor("pvp_room_state")).self).toMatchObject({ bullets: 7, guest: false });
    const g = await quickPlay(t, undefined, { bullets: 500, username: "<b>Greedy</b>" });
    expect((await g.log.waitFor("pvp_room_state")).self).toMatchObject({ bullets: 30, guest: true, username: "bGreedy/b (guest)" });
    const before = await t.prisma.pvpResult.count();
    const { matchId } = await startBattle(a, g);
    faceToFace(serverPvpRoom(a.room.roomId));
    for (let i = 0; i < 5; i++) await landHit(g, a, -1);
    await a.log.waitFor("pvp_battle_end");
    const rows = await eventually(async () => {
      const found = await t.prisma.pvpResult.findMany({ where: { matchId } });
      return found.length === 1 ? found : undefined;
    }, "the account's row");
    expect(rows[0]).toMatchObject({ userId: acc.user.id, outcome: "loss", opponentUserId: null });
    expect(await t.prisma.pvpResult.count()).toBe(before + 1);
  });

  it("one live match per account across modes: a boss seat refuses a duel with 409 naming the room, and back", async () => {
    const acc = await accountWithBullets(t, 20);
    const boss = await t.sdk(acc.cookie).joinOrCreate("boss", {});
    const refused = await t.sdk(acc.cookie).joinOrCreate("pvp", {}).catch((e) => e);
    expect(refused).toBeInstanceOf(MatchMakeError);
    expect(refused.code).toBe(409);
    expect(refused.message).toBe(`this account is already in boss room ${boss.roomId}`);
    await boss.leave();
    const duel = await eventually(() => quickPlay(t, acc.cookie, {}), "a duel seat after leaving the boss");
    const bossRefused = await t.sdk(acc.cookie).joinOrCreate("boss", {}).catch((e) => e);
    expect(bossRefused.code).toBe(409);
    expect(bossRefused.message).toBe(`this account is already in pvp room ${duel.room.roomId}`);
    const second = await t.sdk(acc.cookie).joinOrCreate("pvp", {}).catch((e) => e);
    expect(second.code).toBe(409);
    expect(second.message).toBe(`this account already has a seat in this room`);
  });
});

describe("chat and presence", () => {
  it("chat reaches the opponent only, under the server-side name, sanitised and cut to 280; chat is rate-limited", async () => {
    const { a, b } = await pair(t, [], [{ bullets: 30, username: "Ann" }, { bullets: 30 }]);
    const other = await quickPlay(t);
    a.room.send("pvp_chat_send", { content: "  hi <script>there</script>\u0007 ", username: "admin", character: "wizard" });
    expect(await nextMessage(b, "pvp_chat_message")).toEqual({ sid: a.sid, username: "Ann (guest)", character: "knight", content: "hi scriptthere/script" });
    a.room.send("pvp_chat_send", { content: "y".repeat(500) });
    expect((await nextMessage(b, "pvp_chat_message")).content).toBe("y".repeat(280));
    a.room.send("pvp_chat_send", { content: "   " });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "invalid_payload", type: "pvp_chat_send" });
    for (let i = 0; i < 10; i++) a.room.send("pvp_chat_send", { content: `spam ${i}` });
    expect(await a.log.waitFor("error", (e) => e.code === "rate_limited")).toMatchObject({ type: "pvp_chat_send" });
    await eventually(() => b.log.all("pvp_chat_message").length >= 3, "some spam through");
    expect(b.log.all("pvp_chat_message").length).toBeLessThan(2 + 10);
    expect(a.log.all("pvp_chat_message")).toEqual([]);
    expect(other.log.all("pvp_chat_message")).toEqual([]);
  });

  it("relays away and returned to the opponent, once per change", async () => {
    const { a, b } = await pair(t, [], [{ bullets: 30, username: "Ann" }, { bullets: 30 }]);
    a.room.send("pvp_player_away", { username: "Mallory" });
    expect(await nextMessage(b, "pvp_player_away")).toEqual({ sid: a.sid, username: "Ann (guest)" });
    await patchedUntil(b.room, () => b.room.state.players.get(a.sid)?.away === true, "away in the state");
    a.room.send("pvp_player_away", {});
    a.room.send("pvp_player_returned", {});
    expect(await nextMessage(b, "pvp_player_returned")).toEqual({ sid: a.sid, username: "Ann (guest)" });
    expect(b.log.all("pvp_player_away")).toHaveLength(1);
    expect(a.log.all("pvp_player_away")).toEqual([]);
  });
});

describe("bad input and floods", () => {
  it("answers every invalid payload with an error and keeps the client connected", async () => {
    const { a, server } = await pair(t);
    const cases: Array<[string, unknown, string]> = [
      ["pvp_move", { x: "1", y: 2 }, "invalid_payload"],
      ["pvp_move", { x: NaN, y: 2 }, "invalid_payload"],
      ["pvp_move", { x: Infinity, y: 2 }, "invalid_payload"],
      ["pvp_move", { x: 1e9, y: 2 }, "invalid_payload"],
      ["pvp_move", null, "invalid_payload"],
      ["pvp_move", [1, 2], "invalid_payload"],
      ["pvp_shoot", { dx: 0, dy: 0 }, "no_direction"],
      ["pvp_shoot", { dx: "left", dy: 1 }, "invalid_payload"],
      ["pvp_chat_send", { content: 5 }, "invalid_payload"],
      ["pvp_chat_send", { content: "x".repeat(5000) }, "invalid_payload"],
      ["pvp_ready", "now", "invalid_payload"],
      ["pvp_ready", { room_id: "r".repeat(65) }, "invalid_payload"],
      ["pvp_leave", 42, "invalid_payload"],
      ["pvp_move", { x: 1, y: 2, room_id: "another-room" }, "wrong_room"],
      ["pvp_teleport", { x: 1 }, "unknown_message"],
    ];
    for (const [type, payload] of cases) a.room.send(type, payload);
    await eventually(() => a.log.all("error").length === cases.length, `${cases.length} errors`);
    expect(a.log.all("error").map((e) => [e.code, e.type])).toEqual(cases.map(([type, , code]) => [code, type]));
    expect(server.arena.players.get(a.sid)).toMatchObject({ x: 100, y: 300, ready: false });
    a.room.send("pvp_get_status", {});
    expect(await nextMessage(a, "pvp_room_status")).toMatchObject({ playerCount: 2 });
  });

  it("a duel survives a garbage-spewing opponent: its junk is dropped, the battle goes on to its end", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    faceToFace(server);
    let spewing = true;
    const junk: unknown[] = ["", null, 12, { x: "y" }, [1, 2, 3], { dx: NaN }, "\u0000".repeat(100)];
    const types = ["pvp_move", "pvp_shoot", "pvp_chat_send", "pvp_ready", "pvp_nonsense", "pvp_hit_opponent"];
    const spew = (async () => {
      for (let i = 0; spewing; i++) {
        // 4 messages per tick (~120/s): twice the room's limit, under Colyseus' disconnecting one.
        for (let j = 0; j < 4 && b.room.connection.isOpen; j++) b.room.send(types[(i + j) % types.length], junk[(i * 7 + j) % junk.length]);
        await nextTick(server);
      }
    })();
    for (let i = 0; i < 5; i++) await landHit(a, a, 1);
    const end = await a.log.waitFor("pvp_battle_end");
    spewing = false;
    await spew;
    expect(end).toMatchObject({ winner: a.sid, loser: b.sid, reason: "knockout" });
    expect(server.arena.players.get(a.sid)!.lives).toBe(5);
    expect(b.room.connection.isOpen).toBe(true);
    expect(b.log.all("error").some((e) => e.code === "rate_limited")).toBe(true);
    expect(b.log.all("error").some((e) => e.code === "invalid_payload")).toBe(true);
  });

  it("rate-limits each client with one notice; the opponent's budget is its own", async () => {
    const { a, b, server } = await pair(t);
    for (let i = 0; i < 120; i++) a.room.send("pvp_get_status", {});
    await a.log.waitFor("error", (e) => e.code === "rate_limited");
    await settle(300); // a while longer: no second notice comes
    expect(a.log.all("error").filter((e) => e.code === "rate_limited")).toHaveLength(1);
    expect(server.arena.players.has(a.sid)).toBe(true);
    b.room.send("pvp_get_status", {});
    expect(await nextMessage(b, "pvp_room_status")).toBeTruthy();
  });

  it("a client cannot act in a room it is not in", async () => {
    const { a } = await pair(t);
    const c = await quickPlay(t);
    c.room.send("pvp_ready", { room_id: a.room.roomId });
    expect(await nextMessage(c, "error")).toMatchObject({ code: "wrong_room" });
    c.room.send("pvp_shoot", { dx: 1, dy: 0, room_id: a.room.roomId });
    expect(await nextMessage(c, "error")).toMatchObject({ code: "wrong_room" });
    expect(serverPvpRoom(a.room.roomId).arena.players.has(c.sid)).toBe(false);
  });
});

// Keeps the server-side type import honest (tests reach the room instance through it).
export type { PvpRoom };
