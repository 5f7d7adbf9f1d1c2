// The boss battle room over real WebSocket clients (Colyseus SDK) against the real server and
// database: admission, movement, shots, powerups, boss attacks, victory, persistence, reconnection,
// guests, bad input and rate limits. The server is booted with @colyseus/testing; tests wait on the
// room's simulation steps and state patches, and sleep only to show that something did not happen.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMakeError, type Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, joined, serverBossRoom, settle, type MessageLog } from "../helpers/boss.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import { BOSS_HOME, GUEST_MAX_BULLETS } from "../../src/game/boss/constants.js";
import { moveBudgetCap } from "../../src/game/boss/movement.js";
import { disposed, patchedUntil, ticksUntil } from "../helpers/waits.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

interface Player {
  room: SdkRoom;
  log: MessageLog;
  sid: string;
}

/** The boss parked at home, no boss attacks, no random powerups: only what a test does happens. */
function quiet(server: BossRoom): BossRoom {
  Object.assign(server.battle.tuning, { bossMoves: false, bossAttacks: false, powerupSpawns: false });
  server.battle.boss.x = BOSS_HOME.x;
  server.battle.boss.y = BOSS_HOME.y;
  server.battle.projectiles = [];
  return server;
}

async function asPlayer(promise: Promise<SdkRoom>): Promise<Player> {
  const { room, log } = await joined(promise);
  return { room, log, sid: room.sessionId };
}

/** A fresh quiet room with a first player (a guest with 20 bullets unless a cookie is given). */
async function newRoom(cookie?: string, options: Record<string, unknown> = { bullets: 20 }) {
  const first = await asPlayer(t.joinNewRoom("boss", options, cookie));
  return { first, server: quiet(serverBossRoom(first.room.roomId)) };
}

const join = (roomId: string, cookie?: string, options: Record<string, unknown> = { bullets: 20 }) => asPlayer(t.sdk(cookie).joinById(roomId, options));

/** Steps the room until the player's movement budget is full (at speed × `multiplier`). */
const fullMoveBudget = (server: BossRoom, sid: string, multiplier = 1) =>
  ticksUntil(server, () => server.battle.players.get(sid)!.moveBudget >= moveBudgetCap(multiplier), "a full movement budget");

/** Steps the room until the player may fire again. */
const canFire = (server: BossRoom, sid: string) => ticksUntil(server, () => server.battle.players.get(sid)!.fireCharge >= 1, "a shot recharged");

function put(server: BossRoom, sid: string, x: number, y: number) {
  const p = server.battle.players.get(sid)!;
  p.x = x;
  p.y = y;
  return p;
}

/** Unit direction from a player's server position to the boss centre. */
function aimAtBoss(server: BossRoom, sid: string) {
  const p = server.battle.players.get(sid)!;
  const dx = server.battle.boss.x - p.x;
  const dy = server.battle.boss.y - p.y;
  const d = Math.hypot(dx, dy);
  return { dx: dx / d, dy: dy / d };
}

describe("joining", () => {
  it("admits 10 players at clear spawns and refuses the 11th", async () => {
    const { first, server } = await newRoom(undefined, { bullets: 20, username: "p0" });
    const others: Player[] = [];
    for (let i = 1; i < 10; i++) others.push(await join(first.room.roomId, undefined, { bullets: 20, username: `p${i}` }));
    expect(server.battle.players.size).toBe(10);
    const ps = [...server.battle.players.values()];
    for (const p of ps) for (const q of ps) if (p !== q) expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeGreaterThanOrEqual(76);

    const refused = await t.sdk().joinById(first.room.roomId, { bullets: 20 }).catch((e) => e);
    expect(refused).toBeInstanceOf(MatchMakeError);
    expect(server.battle.players.size).toBe(10);
    // Quick play sends an 11th player to another room.
    const elsewhere = await asPlayer(t.sdk().joinOrCreate("boss", { bullets: 20 }));
    expect(elsewhere.room.roomId).not.toBe(first.room.roomId);
    await elsewhere.room.leave();

    // The first player heard about each of the 9 others; the last joiner got the full state.
    await eventually(() => first.log.all("boss_player_joined").length === 9, "nine boss_player_joined");
    expect(first.log.all("boss_player_joined").map((m) => m.player.username)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `p${i} (guest)`));
    const last = others[8];
    const state = await last.log.waitFor("boss_room_state");
    expect(state).toMatchObject({ room_id: first.room.roomId, bossHealth: 2000, maxBossHealth: 2000, playerCount: 10, bounds: { width: 1100, height: 600, top: 200 } });
    expect(state.self).toMatchObject({ sid: last.sid, lives: 5, bullets: 20, status: "alive" });
    expect(last.log.all("boss_player_joined")).toEqual([]);
    await Promise.all([first, ...others].map((p) => p.room.leave()));
  });

  it("takes health and bounds from the server, never from the client", async () => {
    const { first, server } = await newRoom(undefined, { bullets: 20, boss_health: 1, max_boss_health: 1, bounds: { width: 10 } });
    const state = await first.log.waitFor("boss_room_state");
    expect(state).toMatchObject({ bossHealth: 2000, maxBossHealth: 2000, bounds: { width: 1100, height: 600, top: 200 } });
    expect(server.battle.health).toBe(2000);
    await patchedUntil(first.room, () => first.room.state?.boss_health === 2000 && first.room.state.max_health === 2000, "synchronized health");
    await first.room.leave();
  });

  it("accepts boss_join_room idempotently: it resends the room state", async () => {
    const { first, server } = await newRoom();
    await first.log.waitFor("boss_room_state");
    first.log.clear();
    first.room.send("boss_join_room", { room_id: first.room.roomId, player: { username: "x", lives: 99 } });
    const again = await first.log.waitFor("boss_room_state");
    expect(again.self.lives).toBe(5);
    expect(server.battle.players.size).toBe(1);
    await first.room.leave();
  });
});

describe("movement", () => {
  it("clamps to the arena and pushes out of other players with the table's exact numbers", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    put(server, a.sid, 500, 400);
    put(server, b.sid, 560, 400);
    a.room.send("boss_player_move", { room_id: a.room.roomId, x: 530, y: 400 });
    expect(await a.log.waitFor("boss_self_position")).toEqual({ x: 490, y: 400 });
    expect(await b.log.waitFor("boss_player_position")).toEqual({ sid: a.sid, x: 490, y: 400 });

    a.log.clear();
    b.log.clear();
    put(server, a.sid, 50, 550);
    a.room.send("boss_player_move", { x: 10, y: 590 });
    expect(await a.log.waitFor("boss_self_position")).toEqual({ x: 35, y: 565 });
    expect(await b.log.waitFor("boss_player_position")).toEqual({ sid: a.sid, x: 35, y: 565 });
    expect(a.log.all("boss_player_position")).toEqual([]); // never to the sender
    expect(server.battle.players.get(a.sid)).toMatchObject({ x: 35, y: 565 });
    await patchedUntil(a.room, () => a.room.state.players.get(a.sid)?.x === 35, "synchronized position");
    await Promise.all([a.room.leave(), b.room.leave()]);
  });

  it("a client that teleports gains nothing: the server caps its speed", async () => {
    const { first: a, server } = await newRoom();
    await fullMoveBudget(server, a.sid);
    put(server, a.sid, 100, 400);
    a.room.send("boss_player_move", { x: 1000, y: 400 });
    const self = await a.log.waitFor("boss_self_position");
    expect(self.y).toBe(400);
    expect(self.x).toBeGreaterThan(100);
    expect(self.x).toBeLessThanOrEqual(100 + 420 * 0.25 + 1e-9);
    // A burst of teleports right after is cut to what the elapsed time allows.
    const started = Date.now();
    for (let i = 0; i < 10; i++) a.room.send("boss_player_move", { x: 1060, y: 560 });
    await eventually(() => a.log.all("boss_self_position").length === 11, "eleven boss_self_position");
    const elapsedS = (Date.now() - started) / 1000;
    const end = server.battle.players.get(a.sid)!;
    expect(Math.hypot(end.x - self.x, end.y - self.y)).toBeLessThanOrEqual(420 * (elapsedS + 0.25) + 1e-6);
    expect(end.x).toBeLessThan(1000);
    await a.room.leave();
  });

  it("ignores moves that name another room, with an error", async () => {
    const { first: a, server } = await newRoom();
    const before = { ...server.battle.players.get(a.sid)! };
    a.room.send("boss_player_move", { room_id: "someOtherRoom", x: before.x + 10, y: before.y });
    expect(await a.log.waitFor("error")).toMatchObject({ code: "wrong_room", type: "boss_player_move" });
    a.room.send("boss_player_move", { room_id: "", x: before.x + 10, y: before.y });
    await eventually(() => a.log.all("error").length === 2, "second error");
    expect(server.battle.players.get(a.sid)!.x).toBe(before.x);
    expect(a.log.all("boss_self_position")).toEqual([]);
    await a.room.leave();
  });
});

describe("shots and damage", () => {
  it("spends one bullet per shot from the server position; the server decides a 10-point hit; forged damage does nothing", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    put(server, a.sid, 550, 400);
    put(server, b.sid, 900, 500);
    a.room.send("boss_player_shoot", { bulletX: 0, bulletY: 0, dx: 0, dy: -1, damage: 99999, character: "wizard" });
    const bullet = await b.log.waitFor("boss_player_bullet");
    expect(bullet).toMatchObject({ sid: a.sid, bulletX: 550, bulletY: 400, dx: 0, dy: -1, speed: 720 });
    const update = await a.log.waitFor("boss_health_update");
    expect(update).toEqual({ bossHealth: 1990, maxBossHealth: 2000, attacker: a.room.state.players.get(a.sid)?.username ?? update.attacker, attacker_sid: a.sid, damage: 10 });
    expect(await b.log.waitFor("boss_health_update")).toEqual(update);
    expect(a.log.all("boss_player_bullet")).toEqual([]);
    expect(server.battle.health).toBe(1990);
    expect(server.battle.players.get(a.sid)).toMatchObject({ bullets: 19, bulletsFired: 1, bulletsHit: 1, damageDealt: 10 });

    // A message type that only a cheating client would send is refused, and the client stays.
    a.room.send("boss_damage", { room_id: a.room.roomId, damage: 5000 });
    expect(await a.log.waitFor("error")).toEqual({ code: "unknown_message", message: 'Unknown message type "boss_damage"', type: "boss_damage" });
    expect(server.battle.health).toBe(1990);
    a.room.send("boss_player_shoot", { dx: 1, dy: 0 }); // aimed away: a miss
    await eventually(() => server.battle.players.get(a.sid)!.bulletsFired === 2, "second shot");
    await ticksUntil(server, () => server.battle.bullets.length === 0, "the missed bullet gone");
    expect(server.battle.health).toBe(1990);
    expect(server.battle.players.get(a.sid)!.bulletsHit).toBe(1);
    await Promise.all([a.room.leave(), b.room.leave()]);
  });

  it("limits the fire rate and refuses shots without bullets", async () => {
    const { first: a, server } = await newRoom();
    // Six shots at once: two banked shots go out, the rest (but what refilled meanwhile) are refused.
    for (let i = 0; i < 6; i++) a.room.send("boss_player_shoot", { dx: 1, dy: 0 });
    await eventually(() => server.battle.players.get(a.sid)!.bulletsFired + a.log.all("error").length === 6, "six answers");
    const fired = server.battle.players.get(a.sid)!.bulletsFired;
    expect(fired).toBeGreaterThanOrEqual(2);
    expect(fired).toBeLessThan(6);
    expect(a.log.all("error").map((e) => e.code)).toEqual(Array(6 - fired).fill("fire_rate"));
    expect(server.battle.players.get(a.sid)!.bullets).toBe(20 - fired);

    server.battle.players.get(a.sid)!.bullets = 0;
    a.log.clear();
    await canFire(server, a.sid);
    a.room.send("boss_player_shoot", { dx: 1, dy: 0 });
    expect(await a.log.waitFor("error")).toMatchObject({ code: "no_bullets" });
    await a.room.leave();
  });
});

describe("powerups", () => {
  it("are collected by proximity, announced to everyone, and applied by the server", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    put(server, a.sid, 400, 400);
    put(server, b.sid, 900, 500);
    const rapid = server.battle.placePowerup("rapidfire", { x: 300, y: 400 });
    // Two simulation steps, each of which would have collected it: 100 px away, it is not collected.
    await server.waitForNextSimulationTick();
    await server.waitForNextSimulationTick();
    expect(server.battle.powerups.has(rapid.id)).toBe(true);
    a.room.send("boss_player_move", { x: 340, y: 400 });
    const collected = await b.log.waitFor("boss_powerup_collected");
    expect(collected).toMatchObject({ powerup_id: rapid.id, type: "rapidfire", collector_sid: a.sid, effect: { bulletsGained: 15 } });
    expect(await a.log.waitFor("boss_powerup_collected")).toEqual(collected);
    expect(server.battle.players.get(a.sid)).toMatchObject({ bullets: 35, powerupsCollected: ["rapidfire"] });

    // damage: the next hit counts double.
    server.battle.placePowerup("damage", { x: 340, y: 400 });
    await a.log.waitFor("boss_powerup_collected", (m) => m.type === "damage");
    put(server, a.sid, 550, 400);
    a.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    expect(await a.log.waitFor("boss_health_update")).toMatchObject({ damage: 20, bossHealth: 1980 });

    // heal: one life back below five lives.
    server.battle.players.get(a.sid)!.lives = 3;
    server.battle.placePowerup("heal", { x: 550, y: 400 });
    await a.log.waitFor("boss_powerup_collected", (m) => m.type === "heal");
    expect(server.battle.players.get(a.sid)!.lives).toBe(4);

    // speed: the movement cap grows 1.5×.
    server.battle.placePowerup("speed", { x: 550, y: 400 });
    await a.log.waitFor("boss_powerup_collected", (m) => m.type === "speed");
    await fullMoveBudget(server, a.sid, 1.5);
    put(server, a.sid, 100, 300);
    a.room.send("boss_player_move", { x: 1000, y: 300 });
    const self = await a.log.waitFor("boss_self_position", (m) => m.y === 300);
    expect(self.x).toBeGreaterThan(100 + 105);
    expect(self.x).toBeLessThanOrEqual(100 + 157.5 + 1e-9);
    await patchedUntil(a.room, () => a.room.state.players.get(a.sid)?.speed_boost === true, "speed_boost in state");
    expect([...a.room.state.players.get(a.sid)!.powerups_collected]).toEqual(["rapidfire", "damage", "heal", "speed"]);
    await Promise.all([a.room.leave(), b.room.leave()]);
  });

  it("spawn on the server every 5 s and are announced", async () => {
    const { first: a, server } = await newRoom();
    server.battle.tuning.powerupSpawns = true;
    const spawned = await a.log.waitFor("boss_powerup_spawned", undefined, 12_000);
    expect(spawned.id).toMatch(/^[0-9a-f]{8}$/);
    expect(spawned.x).toBeGreaterThanOrEqual(100);
    expect(spawned.x).toBeLessThanOrEqual(700);
    expect(["damage", "speed", "rapidfire", "heal"]).toContain(spawned.type);
    await a.room.leave();
  });
});

describe("boss attacks", () => {
  it("lives drop on the server; at zero the player dies and can no longer shoot", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    put(server, b.sid, 1000, 550);
    const p = put(server, a.sid, 550, 300);
    p.lives = 2;
    server.battle.boss.y = 240; // touching a
    server.battle.tuning.bossAttacks = true;
    const first = await b.log.waitFor("boss_player_damaged");
    expect(first.player).toMatchObject({ sid: a.sid, lives: 1 });
    const died = await b.log.waitFor("boss_player_died", undefined, 5000);
    expect(died).toMatchObject({ player: { sid: a.sid, lives: 0 }, aliveCount: 1, playerCount: 2 });
    expect(server.battle.players.get(a.sid)).toMatchObject({ lives: 0, status: "dead" });
    a.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    expect(await a.log.waitFor("error")).toMatchObject({ code: "dead" });
    await Promise.all([a.room.leave(), b.room.leave()]);
  });
});

describe("victory and persistence", () => {
  it("boss_defeated with every player's stats; rooms, players, stats and progress written", async () => {
    const accA = await accountWithBullets(t, 15);
    const accB = await accountWithBullets(t, 12);
    const accC = await accountWithBullets(t, 11);
    const { first: a, server } = await newRoom(accA.cookie, { bullets: 999 });
    const b = await join(a.room.roomId, accB.cookie, {});
    const c = await join(a.room.roomId, accC.cookie, {});
    const g = await join(a.room.roomId, undefined, { bullets: 25, username: "Gil" });
    expect(server.battle.players.get(a.sid)!.bullets).toBe(15); // the progress record, not the claim
    put(server, a.sid, 550, 400);
    put(server, b.sid, 650, 450);
    put(server, c.sid, 900, 550);
    put(server, g.sid, 200, 550);
    server.battle.health = 20; // shorten the fight, server-side

    a.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    await a.log.waitFor("boss_health_update", (m) => m.bossHealth === 10);
    b.room.send("boss_player_shoot", aimAtBoss(server, b.sid));
    const defeated = await c.log.waitFor("boss_defeated");
    expect(defeated.message).toBe("The boss has been defeated!");
    const stats = Object.fromEntries(defeated.all_player_stats.map((s: any) => [s.username, s]));
    expect(stats[accA.user.username]).toMatchObject({ damage_dealt: 10, lives: 5, powerups_collected: [], bullets_fired: 1, bullets_hit: 1 });
    expect(stats[accB.user.username]).toMatchObject({ damage_dealt: 10, lives: 5, powerups_collected: [] });
    expect(stats[accC.user.username]).toMatchObject({ damage_dealt: 0, lives: 5, powerups_collected: [] });
    expect(stats["Gil (guest)"]).toMatchObject({ damage_dealt: 0 });
    expect(await a.log.waitFor("boss_defeated")).toEqual(defeated);

    const roomRow = await eventually(async () => {
      const row = await t.prisma.bossRoom.findUnique({ where: { roomId: a.room.roomId } });
      return row?.isCompleted ? row : undefined;
    }, "BossRoom completed");
    expect(roomRow).toMatchObject({ isCompleted: true, isActive: false, bossHealth: 0 });
    expect(roomRow.completedAt).toBeInstanceOf(Date);

    const rows = await t.prisma.bossPlayer.findMany({ where: { bossRoomId: roomRow.id }, orderBy: { userId: "asc" } });
    expect(rows.map((r) => [r.userId, r.victory, r.damageDealt, r.bulletsUsed, r.isAlive])).toEqual([
      [accA.user.id, true, 10, 1, true],
      [accB.user.id, true, 10, 1, true],
      [accC.user.id, false, 0, 0, true],
    ]);
    const progress = async (userId: number) => t.prisma.gameProgress.findUniqueOrThrow({ where: { userId } });
    const pa = await progress(accA.user.id);
    expect(pa).toMatchObject({ gameStatus: "completed", bossVictories: 1, totalBullets: 14, bossBattleAttempts: 1 });
    expect(Math.abs(pa.completedAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(pa.championAt).toEqual(pa.completedAt);
    expect(await progress(accB.user.id)).toMatchObject({ gameStatus: "completed", totalBullets: 11 });
    expect(await progress(accC.user.id)).toMatchObject({ gameStatus: "active", bossVictories: 0, completedAt: null, totalBullets: 11 });
    const statsA = await t.prisma.bossBattleStats.findUniqueOrThrow({ where: { userId: accA.user.id } });
    expect(statsA).toMatchObject({ battlesJoined: 1, battlesWon: 1, totalDamageDealt: 10, totalBulletsUsed: 1, deaths: 0, bestDamage: 10 });
    expect(await t.prisma.bossBattleStats.findUniqueOrThrow({ where: { userId: accC.user.id } })).toMatchObject({ battlesJoined: 1, battlesWon: 0 });

    // The battle is over: shots are refused, the room admits nobody, no new boss appears.
    a.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    expect(await a.log.waitFor("error")).toMatchObject({ code: "battle_over" });
    expect(server.battle.health).toBe(0);
    expect(await t.sdk().joinById(a.room.roomId, { bullets: 20 }).catch((e) => e)).toBeInstanceOf(MatchMakeError);
    await patchedUntil(a.room, () => a.room.state.phase === "defeated", "phase defeated");

    // Leaving afterwards closes the seats without counting the battle twice.
    await Promise.all([a, b, c, g].map((p) => p.room.leave()));
    await eventually(async () => (await t.prisma.bossPlayer.count({ where: { bossRoomId: roomRow.id, leftAt: null } })) === 0, "seats closed");
    expect(await t.prisma.bossBattleStats.findUniqueOrThrow({ where: { userId: accA.user.id } })).toMatchObject({ battlesJoined: 1, battlesWon: 1 });
    expect((await progress(accA.user.id)).totalBullets).toBe(14);
  });

  it("a second victory counts, but completion and champion timestamps stay the first ones", async () => {
    const acc = await accountWithBullets(t, 30);
    const win = async () => {
      const { first, server } = await newRoom(acc.cookie, {});
      put(server, first.sid, 550, 400);
      server.battle.health = 10;
      first.room.send("boss_player_shoot", { dx: 0, dy: -1 });
      await first.log.waitFor("boss_defeated");
      await eventually(async () => (await t.prisma.bossRoom.findUnique({ where: { roomId: first.room.roomId } }))?.isCompleted, "completed");
      await first.room.leave();
      await eventually(async () => (await t.prisma.bossPlayer.count({ where: { userId: acc.user.id, leftAt: null } })) === 0, "left");
    };
    await win();
    const once = await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } });
    await win();
    const twice = await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } });
    expect(twice).toMatchObject({ bossVictories: 2, bossBattleAttempts: 2, totalBullets: 28, gameStatus: "completed" });
    expect(twice.completedAt).toEqual(once.completedAt);
    expect(twice.championAt).toEqual(once.championAt);
    expect(await t.prisma.bossBattleStats.findUniqueOrThrow({ where: { userId: acc.user.id } })).toMatchObject({ battlesJoined: 2, battlesWon: 2, totalDamageDealt: 20, bestDamage: 10 });
  });

  it("writes bullets spent back on leave, spends powerup bullets first, and never goes below zero", async () => {
    const acc = await accountWithBullets(t, 15);
    const { first: a, server } = await newRoom(acc.cookie, {});
    for (let i = 0; i < 3; i++) {
      a.room.send("boss_player_shoot", { dx: 1, dy: 0 });
      await eventually(() => server.battle.players.get(a.sid)!.bulletsFired === i + 1, `shot ${i + 1}`);
      await canFire(server, a.sid);
    }
    const roomRow = await t.prisma.bossRoom.findUniqueOrThrow({ where: { roomId: a.room.roomId } });
    // The periodic checkpoint writes what a live seat spent so far (a crash loses at most one period).
    await server.seats.checkpoint();
    expect(await t.prisma.bossPlayer.findFirstOrThrow({ where: { bossRoomId: roomRow.id } })).toMatchObject({ leftAt: null, bulletsUsed: 3 });
    expect(await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } })).toMatchObject({ totalBullets: 12 });
    expect(await t.prisma.bossBattleStats.findUnique({ where: { userId: acc.user.id } })).toBeNull();
    await server.seats.checkpoint(); // nothing new: nothing written twice
    await a.room.leave();
    const row = await eventually(async () => t.prisma.bossPlayer.findFirst({ where: { bossRoomId: roomRow.id, leftAt: { not: null } } }), "leftAt");
    expect(row).toMatchObject({ bulletsUsed: 3, victory: false });
    expect(await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } })).toMatchObject({ totalBullets: 12, bossBattleAttempts: 1 });
    expect(await t.prisma.bossBattleStats.findUniqueOrThrow({ where: { userId: acc.user.id } })).toMatchObject({ battlesJoined: 1, battlesWon: 0, totalBulletsUsed: 3 });

    // Bonus bullets go first; an account that spent bullets elsewhere meanwhile stops at zero.
    const { first: b, server: s2 } = await newRoom(acc.cookie, {});
    put(s2, b.sid, 900, 500);
    s2.battle.placePowerup("rapidfire", { x: 900, y: 500 });
    await b.log.waitFor("boss_powerup_collected");
    for (let i = 0; i < 2; i++) {
      b.room.send("boss_player_shoot", { dx: 1, dy: 0 });
      await eventually(() => s2.battle.players.get(b.sid)!.bulletsFired === i + 1, `bonus shot ${i + 1}`);
      await canFire(s2, b.sid);
    }
    expect(s2.battle.players.get(b.sid)).toMatchObject({ bullets: 25, accountBulletsSpent: 0 });
    s2.battle.players.get(b.sid)!.bonusBullets = 0;
    await t.prisma.gameProgress.update({ where: { userId: acc.user.id }, data: { totalBullets: 1 } });
    for (let i = 0; i < 3; i++) {
      b.room.send("boss_player_shoot", { dx: 1, dy: 0 });
      await eventually(() => s2.battle.players.get(b.sid)!.bulletsFired === i + 3, `account shot ${i + 1}`);
      await canFire(s2, b.sid);
    }
    await b.room.leave();
    await eventually(async () => (await t.prisma.bossPlayer.count({ where: { userId: acc.user.id, leftAt: null } })) === 0, "left");
    expect((await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } })).totalBullets).toBe(0);
  });
});

describe("reconnection", () => {
  it("a dropped connection comes back into its seat without losing its player", async () => {
    const acc = await accountWithBullets(t, 20);
    const { first: a, server } = await newRoom(acc.cookie, {});
    const b = await join(a.room.roomId);
    a.room.reconnection.minUptime = 0;
    put(server, b.sid, 900, 300); // far away: b's random spawn must not push a's move below
    const p = put(server, a.sid, 300, 500);
    p.bullets = 17;
    const back = new Promise<void>((resolve) => a.room.onReconnect(() => resolve()));
    a.log.clear();
    // A network drop: the server side of the socket dies without a close frame (client sees 1006).
    (server.clients.getById(a.sid)!.ref as unknown as { terminate(): void }).terminate();
    await eventually(() => server.battle.players.get(a.sid)?.connected === false, "marked disconnected");
    await back;
    expect(a.room.sessionId).toBe(a.sid);
    await eventually(() => server.battle.players.get(a.sid)?.connected === true, "marked connected");
    expect(server.battle.players.get(a.sid)).toBe(p);
    expect(p).toMatchObject({ x: 300, y: 500, bullets: 17, lives: 5 });
    expect(b.log.all("boss_player_left")).toEqual([]);
    const state = await a.log.waitFor("boss_room_state");
    expect(state.self).toMatchObject({ sid: a.sid, bullets: 17 });
    a.room.send("boss_player_move", { x: 320, y: 500 });
    expect(await a.log.waitFor("boss_self_position")).toEqual({ x: 320, y: 500 });
    const roomRow = await t.prisma.bossRoom.findUniqueOrThrow({ where: { roomId: a.room.roomId } });
    expect(await t.prisma.bossPlayer.findFirstOrThrow({ where: { bossRoomId: roomRow.id } })).toMatchObject({ leftAt: null });
    await Promise.all([a.room.leave(), b.room.leave()]);
  });
});

describe("guests and accounts", () => {
  it("guests play without being persisted; their claimed bullets are capped", async () => {
    const usersBefore = await t.prisma.user.count();
    const rowsBefore = await t.prisma.bossPlayer.count();
    const { first: g, server } = await newRoom(undefined, { bullets: 500, username: "<Zed>" });
    expect(server.battle.players.get(g.sid)).toMatchObject({ bullets: GUEST_MAX_BULLETS, username: "Zed (guest)" });
    expect((await g.log.waitFor("boss_room_state")).self).toMatchObject({ guest: true, bullets: 30 });
    g.room.send("boss_player_shoot", { dx: 1, dy: 0 });
    await eventually(() => server.battle.players.get(g.sid)!.bulletsFired === 1, "guest shot");
    const gone = disposed(server);
    await g.room.leave();
    await gone; // the room wrote whatever it writes on leave and on dispose

    expect(await t.prisma.user.count()).toBe(usersBefore);
    expect(await t.prisma.bossPlayer.count()).toBe(rowsBefore);
  });

  it("refuses fewer than 10 bullets: accounts by their progress record, guests by their claim", async () => {
    const poor = await accountWithBullets(t, 5);
    const err = await t.sdk(poor.cookie).joinOrCreate("boss", { bullets: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(MatchMakeError);
    expect(err.code).toBe(403);
    expect(err.message).toBe("need at least 10 bullets, you have 5");
    const guestErr = await t.sdk().joinOrCreate("boss", { bullets: 9 }).catch((e) => e);
    expect(guestErr.code).toBe(403);
    expect((await t.sdk().joinOrCreate("boss", {}).catch((e) => e)).message).toBe("need at least 10 bullets, you have 0");
    // An account without a progress record gets one (with 0 bullets) and is refused.
    const fresh = await t.prisma.user.create({ data: { username: `noprog${process.pid}`, passwordHash: "x" } });
    const freshCookie = `jwt=${await t.app.ctx.tokens.sign(fresh.id)}`;
    expect((await t.sdk(freshCookie).joinOrCreate("boss", {}).catch((e) => e)).code).toBe(403);
    expect(await t.prisma.gameProgress.findUnique({ where: { userId: fresh.id } })).toMatchObject({ totalBullets: 0 });
    // Malformed join options are refused with 400.
    expect((await t.sdk().joinOrCreate("boss", { bullets: "lots" }).catch((e) => e)).code).toBe(400);
  });

  it("gives an account one seat at a time", async () => {
    const acc = await accountWithBullets(t, 20);
    const { first } = await newRoom(acc.cookie, {});
    const again = await t.sdk(acc.cookie).joinById(first.room.roomId, {}).catch((e) => e);
    expect(again.code).toBe(409);
    const other = await t.sdk(acc.cookie).create("boss", {}).catch((e) => e);
    expect(other.code).toBe(409);
    expect(other.message).toMatch(/already in boss room/);
    await first.room.leave();
    await eventually(async () => {
      const r = await joined(t.sdk(acc.cookie).create("boss", {})).catch(() => undefined);
      await r?.room.leave();
      return r;
    }, "a seat again after leaving");
  });
});

describe("bad input and floods", () => {
  it("answers every invalid payload with an error and keeps the client connected", async () => {
    const { first: a, server } = await newRoom();
    const cases: Array<[string, unknown, string?]> = [
      ["boss_player_move", { x: "1", y: 2 }],
      ["boss_player_move", { x: NaN, y: 2 }],
      ["boss_player_move", { x: Infinity, y: 2 }],
      ["boss_player_move", { x: 1e9, y: 2 }],
      ["boss_player_move", null],
      ["boss_player_move", [1, 2]],
      ["boss_player_move", { x: 1 }],
      ["boss_player_shoot", { dx: 0, dy: 0 }, "no_direction"],
      ["boss_player_shoot", { dx: "up", dy: 1 }],
      ["boss_player_shoot", { dx: 1, dy: 1, character: "x".repeat(100) }],
      ["boss_chat_send", { content: "" }],
      ["boss_chat_send", { content: "x".repeat(281) }],
      ["boss_chat_send", { content: 5 }],
      ["boss_chat_send", "hello"],
      ["boss_player_away", { room_id: 5 }],
      ["boss_join_room", { room_id: "r".repeat(65) }],
      ["boss_leave_room", 42],
    ];
    for (const [type, payload] of cases) a.room.send(type, payload);
    await eventually(() => a.log.all("error").length === cases.length, `${cases.length} errors`);
    const errors = a.log.all("error");
    expect(errors.map((e) => [e.code, e.type])).toEqual(cases.map(([type, , code]) => [code ?? "invalid_payload", type]));
    expect(errors[0].message).toMatch(/^Invalid boss_player_move: x: /);
    expect(server.battle.players.size).toBe(1);
    expect(server.battle.players.get(a.sid)!.bulletsFired).toBe(0);
    // Still connected and served.
    a.room.send("boss_get_players");
    expect(await a.log.waitFor("boss_room_players")).toMatchObject({ room_id: a.room.roomId, playerCount: 1 });
    await a.room.leave();
  });

  it("rate-limits each client: excess messages are dropped with one notice; a flood far above the limit disconnects", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    for (let i = 0; i < 100; i++) a.room.send("boss_player_move", { x: 400, y: 300 });
    await a.log.waitFor("error", (e) => e.code === "rate_limited");
    await settle(300); // a while longer: no second notice arrives
    expect(a.log.all("error").filter((e) => e.code === "rate_limited")).toHaveLength(1);
    expect(server.battle.players.has(a.sid)).toBe(true);
    // b's own budget is untouched.
    b.room.send("boss_get_players");
    expect(await b.log.waitFor("boss_room_players")).toBeTruthy();

    const left = new Promise<number>((resolve) => b.room.onLeave((code) => resolve(code)));
    for (let i = 0; i < 400; i++) b.room.send("boss_get_players");
    expect(await left).toBe(4002);
    await eventually(() => !server.battle.players.has(b.sid), "flooder removed");
    await a.room.leave();
  });
});

describe("chat, away and the periodic player list", () => {
  it("chat reaches only the others of the sender's own room, under the server-side name, sanitised and length-limited", async () => {
    const acc = await accountWithBullets(t, 20);
    const { first: a } = await newRoom(acc.cookie, {});
    const b = await join(a.room.roomId);
    const { first: c } = await newRoom();
    a.room.send("boss_chat_send", { content: "  go\u0007 <b>team</b>\n!", username: "admin", room_id: a.room.roomId });
    const msg = await b.log.waitFor("boss_chat_message");
    expect(msg).toEqual({ sid: a.sid, username: acc.user.username, character: "knight", content: "go bteam/b !", room_id: a.room.roomId });
    a.room.send("boss_chat_send", { content: "sneaky", room_id: c.room.roomId });
    expect(await a.log.waitFor("error")).toMatchObject({ code: "wrong_room", type: "boss_chat_send" });
    a.room.send("boss_chat_send", { content: "y".repeat(280) });
    await b.log.waitFor("boss_chat_message", (m) => m.content.length === 280);
    await settle(300); // a while longer: the sender and the other room get nothing
    expect(a.log.all("boss_chat_message")).toEqual([]);
    expect(c.log.all("boss_chat_message")).toEqual([]);
    expect(b.log.all("boss_chat_message")).toHaveLength(2);
    await Promise.all([a.room.leave(), b.room.leave(), c.room.leave()]);
  });

  it("relays away/returned to the others and pushes the full player list every second", async () => {
    const { first: a, server } = await newRoom(undefined, { bullets: 20, username: "Ann" });
    const b = await join(a.room.roomId);
    a.room.send("boss_player_away", { room_id: a.room.roomId, username: "forged" });
    expect(await b.log.waitFor("boss_player_away")).toEqual({ sid: a.sid, username: "Ann (guest)", message: "Ann (guest) switched away from the game" });
    expect(server.battle.players.get(a.sid)!.away).toBe(true);
    a.room.send("boss_player_returned", {});
    expect(await b.log.waitFor("boss_player_returned")).toMatchObject({ sid: a.sid, message: "Ann (guest) is back!" });
    expect(a.log.all("boss_player_away")).toEqual([]);
    b.log.clear();
    await eventually(() => b.log.all("boss_room_players").length >= 2, "two player lists", 4000);
    const list = b.log.all("boss_room_players")[0];
    expect(list).toMatchObject({ room_id: a.room.roomId, playerCount: 2 });
    expect(list.players.map((p: any) => p.sid).sort()).toEqual([a.sid, b.sid].sort());
    expect(Object.keys(list.players[0]).sort()).toEqual(
      ["sid", "username", "character", "x", "y", "lives", "bullets", "damage_dealt", "bullets_fired", "bullets_hit", "powerups_collected", "status", "connected", "away", "guest"].sort(),
    );
    await Promise.all([a.room.leave(), b.room.leave()]);
  });

  it("boss_leave_room leaves, and the others hear boss_player_left", async () => {
    const { first: a, server } = await newRoom();
    const b = await join(a.room.roomId);
    const gone = new Promise<number>((resolve) => b.room.onLeave((code) => resolve(code)));
    b.room.send("boss_leave_room", { room_id: a.room.roomId });
    expect(await gone).toBe(4000);
    expect(await a.log.waitFor("boss_player_left")).toMatchObject({ player: { sid: b.sid }, playerCount: 1, reason: "left" });
    expect(server.battle.players.has(b.sid)).toBe(false);
    await a.room.leave();
  });
});
