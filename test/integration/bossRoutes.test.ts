// REST /api/boss/*: join, leave, stats, room, with every error path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, joined, serverBossRoom } from "../helpers/boss.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const withCookie = (cookie: string) => t.http({ cookie });

describe("authentication on every /api/boss route", () => {
  const calls: Array<[string, string, unknown?]> = [
    ["POST", "/api/boss/join", {}],
    ["POST", "/api/boss/leave", { room_id: "abc" }],
    ["GET", "/api/boss/stats"],
    ["GET", "/api/boss/room/abc"],
  ];

  it.each(calls)("%s %s: 401 without a token", async (method, path, body) => {
    const res = await t.http().request(method, path, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: "unauthenticated", message: "Authentication token is missing" } });
  });

  it.each(calls)("%s %s: 403 with an expired token", async (method, path, body) => {
    const { user } = await accountWithBullets(t, 50);
    const expired = await t.app.ctx.tokens.sign(user.id, -10);
    const res = await t.http({ cookie: `jwt=${expired}` }).request(method, path, body);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("token_expired");
  });
});

describe("POST /api/boss/join", () => {
  it("403 with the current count when the progress record has fewer than 10 bullets", async () => {
    const poor = await accountWithBullets(t, 7);
    const res = await withCookie(poor.cookie).post("/api/boss/join", { bullets: 500, character: "wizard", lives: 5 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: { code: "not_enough_bullets", message: "You need at least 10 bullets to fight the boss; you have 7", details: { bullets: 7, required: 10 } },
    });
    // An account without a progress record gets one, with 0 bullets.
    const fresh = await t.prisma.user.create({ data: { username: `rest_fresh_${process.pid}`, passwordHash: "x" } });
    const none = await t.http({ cookie: `jwt=${await t.app.ctx.tokens.sign(fresh.id)}` }).post("/api/boss/join", {});
    expect(none.status).toBe(403);
    expect(none.body.error.details).toEqual({ bullets: 0, required: 10 });
  });

  it.each([
    ["a non-string room_id", { room_id: 5 }, /room_id/],
    ["a malformed room_id", { room_id: "../../etc" }, /room_id/],
    ["an array body", [1, 2], /body/],
  ])("400 for %s", async (_name, body, message) => {
    const acc = await accountWithBullets(t, 20);
    const res = await withCookie(acc.cookie).post("/api/boss/join", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.message).toMatch(message);
  });

  it("400 for unknown body fields, like every other route; the spec's bullets/character/lives (and the original client's guest and dev fields) are accepted, ignored and listed (issue 10, fault 9)", async () => {
    const acc = await accountWithBullets(t, 20);
    const res = await withCookie(acc.cookie).post("/api/boss/join", { room_id: "abc", damage: 9999, admin: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.message).toMatch(/damage/);
    expect(res.body.error.message).toMatch(/admin/);
    const known = await withCookie(acc.cookie).post("/api/boss/join", { bullets: 500, character: "wizard", lives: 5, dev_mode: true, guest_id: "x", guest_name: "y" });
    expect(known.status).toBe(200);
    expect(known.body.ignored_fields).toEqual(["bullets", "character", "lives", "dev_mode", "guest_id", "guest_name"]);
    expect((await withCookie(acc.cookie).post("/api/boss/join")).body.ignored_fields).toEqual([]);
  });

  it("400 for malformed JSON and for a bare JSON string", async () => {
    const acc = await accountWithBullets(t, 20);
    for (const raw of ['{"room_id": ', '"hello"']) {
      const res = await withCookie(acc.cookie).post("/api/boss/join", raw);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_json");
    }
  });

  it("returns an open room and how to join it; the client then joins with its cookie", async () => {
    const a = await accountWithBullets(t, 20);
    const res = await withCookie(a.cookie).post("/api/boss/join", { bullets: 9999, character: "wizard", lives: 99 });
    expect(res.status).toBe(200);
    const roomId = res.body.room_id;
    expect(res.body).toMatchObject({
      message: "Joined boss battle",
      room_name: "boss",
      join: { room_name: "boss", room_id: roomId, method: "joinById" },
      room: { room_id: roomId, boss_health: 2000, max_boss_health: 2000, boss_health_percentage: 100, is_active: true, is_completed: false, live: true, phase: "battle", player_count: 0, total_players: 0, completed_at: null },
      players: [],
      live_players: [],
    });
    expect(Object.keys(res.body.room).sort()).toEqual(
      ["id", "room_id", "boss_health", "max_boss_health", "boss_health_percentage", "is_active", "is_completed", "live", "phase", "player_count", "total_players", "created_at", "completed_at"].sort(),
    );
    const client = await joined(t.sdk(a.cookie).joinById(roomId));
    const state = await client.log.waitFor("boss_room_state");
    expect(state.self).toMatchObject({ bullets: 20, lives: 5 }); // from the progress record, not the body

    // The next caller is sent to the same (fullest open) room and sees who is in it.
    const b = await accountWithBullets(t, 30);
    const second = await withCookie(b.cookie).post("/api/boss/join");
    expect(second.status).toBe(200);
    expect(second.body.room_id).toBe(roomId);
    expect(second.body.players).toEqual([expect.objectContaining({ user_id: a.user.id, username: a.user.username, lives: 5, left_at: null, victory: false })]);
    expect(second.body.live_players).toEqual([expect.objectContaining({ sid: client.room.sessionId, username: a.user.username, guest: false })]);
    expect(second.body.room).toMatchObject({ player_count: 1, total_players: 1 });
    await client.room.leave();
  });

  it("honours a preferred open room, and never offers a finished battle", async () => {
    const a = await accountWithBullets(t, 20);
    const first = (await withCookie(a.cookie).post("/api/boss/join")).body.room_id;
    const ca = await joined(t.sdk(a.cookie).joinById(first));
    const other = await joined(t.joinNewRoom("boss", { bullets: 20 }));
    const b = await accountWithBullets(t, 20);
    expect((await withCookie(b.cookie).post("/api/boss/join", { room_id: other.room.roomId })).body.room_id).toBe(other.room.roomId);
    expect((await withCookie(b.cookie).post("/api/boss/join", { room_id: "NoSuchRoom" })).status).toBe(200);

    // Win the first battle: it is no longer offered, not even when asked for.
    const server = serverBossRoom(first);
    Object.assign(server.battle.tuning, { bossMoves: false, bossAttacks: false, powerupSpawns: false });
    const p = server.battle.players.get(ca.room.sessionId)!;
    p.x = server.battle.boss.x;
    p.y = 400;
    server.battle.health = 10;
    ca.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    await ca.log.waitFor("boss_defeated");
    await eventually(async () => (await t.sdk().joinById(first, { bullets: 20 }).catch((e) => e)) instanceof Error, "room locked");
    const again = await withCookie(b.cookie).post("/api/boss/join", { room_id: first });
    expect(again.status).toBe(200);
    expect(again.body.room_id).not.toBe(first);
    await Promise.all([ca.room.leave(), other.room.leave()]);
  });
});

describe("POST /api/boss/leave", () => {
  it("400 without a room_id, 404 for an unknown room", async () => {
    const acc = await accountWithBullets(t, 20);
    const missing = await withCookie(acc.cookie).post("/api/boss/leave", {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("validation_failed");
    const unknown = await withCookie(acc.cookie).post("/api/boss/leave", { room_id: "NoSuchRoom" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: "not_found", message: "Boss room NoSuchRoom not found" } });
  });

  it("takes a connected caller out of the live room and closes the seat", async () => {
    const acc = await accountWithBullets(t, 20);
    const roomId = (await withCookie(acc.cookie).post("/api/boss/join")).body.room_id;
    const client = await joined(t.sdk(acc.cookie).joinById(roomId));
    const watcher = await joined(t.sdk().joinById(roomId, { bullets: 20 }));
    const gone = new Promise<number>((resolve) => client.room.onLeave((code) => resolve(code)));
    client.room.send("boss_player_shoot", { dx: 1, dy: 0 });
    await eventually(() => serverBossRoom(roomId).battle.players.get(client.room.sessionId)?.bulletsFired === 1, "shot");

    const res = await withCookie(acc.cookie).post("/api/boss/leave", { room_id: roomId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Left battle", room_id: roomId, left: true });
    expect(await gone).toBe(4000);
    expect(await watcher.log.waitFor("boss_player_left")).toMatchObject({ player: { sid: client.room.sessionId }, reason: "left" });
    const row = await t.prisma.bossPlayer.findFirstOrThrow({ where: { userId: acc.user.id } });
    expect(row.leftAt).toBeInstanceOf(Date);
    expect(row.bulletsUsed).toBe(1);
    expect((await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: acc.user.id } })).totalBullets).toBe(19);

    const twice = await withCookie(acc.cookie).post("/api/boss/leave", { room_id: roomId });
    expect(twice.body.left).toBe(false);
    await watcher.room.leave();
  });
});

describe("GET /api/boss/stats", () => {
  it("zeros when the caller never fought, then the aggregate with win rate and average damage", async () => {
    const acc = await accountWithBullets(t, 40);
    const empty = await withCookie(acc.cookie).get("/api/boss/stats");
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      user_id: acc.user.id,
      username: acc.user.username,
      battles_joined: 0,
      battles_won: 0,
      total_damage_dealt: 0,
      total_bullets_used: 0,
      deaths: 0,
      best_damage: 0,
      win_rate: 0,
      average_damage: 0,
    });
    await t.prisma.bossBattleStats.create({
      data: { userId: acc.user.id, battlesJoined: 3, battlesWon: 1, totalDamageDealt: 100, totalBulletsUsed: 12, deaths: 2, bestDamage: 60 },
    });
    const stats = await withCookie(acc.cookie).get("/api/boss/stats");
    expect(stats.body).toMatchObject({ battles_joined: 3, battles_won: 1, total_damage_dealt: 100, total_bullets_used: 12, deaths: 2, best_damage: 60, win_rate: 33.3, average_damage: 33.3 });
  });
});

describe("GET /api/boss/room/:room_id", () => {
  it("404 for an unknown or malformed room id", async () => {
    const acc = await accountWithBullets(t, 20);
    for (const id of ["NoSuchRoom", "bad%20id", "x".repeat(80)]) {
      const res = await withCookie(acc.cookie).get(`/api/boss/room/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });

  it("never echoes what a malformed id carries (issue 23: a%00b came back with its NUL)", async () => {
    const acc = await accountWithBullets(t, 20);
    for (const id of ["a%00b", "a%1Bb", "a%E2%80%AEb", "%3Cscript%3E"]) {
      const res = await withCookie(acc.cookie).get(`/api/boss/room/${id}`);
      expect(res.status).toBe(404);
      expect(res.text).not.toMatch(/\\u0000|\\u001b|\u202e|<script>/i);
      expect(res.body.error.message).not.toMatch(/[\u0000-\u001f\u202e<]/);
    }
    expect((await withCookie(acc.cookie).get("/api/boss/room/NoSuchRoom")).body.error.message).toBe("Boss room NoSuchRoom not found");
  });

  it("the live room with its players, then the closed record after everyone left", async () => {
    const acc = await accountWithBullets(t, 20);
    const roomId = (await withCookie(acc.cookie).post("/api/boss/join")).body.room_id;
    const client = await joined(t.sdk(acc.cookie).joinById(roomId));
    serverBossRoom(roomId).battle.health = 1500;
    const live = await withCookie(acc.cookie).get(`/api/boss/room/${roomId}`);
    expect(live.status).toBe(200);
    expect(live.body.room).toMatchObject({ room_id: roomId, live: true, boss_health: 1500, boss_health_percentage: 75, player_count: 1, is_active: true });
    expect(live.body.players).toEqual([expect.objectContaining({ user_id: acc.user.id, left_at: null, is_alive: true })]);
    await client.room.leave();
    const closed = await eventually(async () => {
      const r = await withCookie(acc.cookie).get(`/api/boss/room/${roomId}`);
      return r.body.room?.live === false && r.body.room.is_active === false ? r : undefined;
    }, "room closed");
    expect(closed.body.room).toMatchObject({ phase: "closed", is_completed: false, player_count: 0, total_players: 1, boss_health: 2000 });
    expect(closed.body.players[0].left_at).not.toBeNull();
    expect(closed.body.live_players).toEqual([]);
  });
});
