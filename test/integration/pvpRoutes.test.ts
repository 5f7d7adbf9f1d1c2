// REST /api/pvp/stats and the PvP store behind it: aggregates, idempotent battle writes, bullets
// spent through the progress store, every error path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets } from "../helpers/boss.js";
import { PvpStore, type AccountResult, type BattleRecord } from "../../src/stores/pvp.js";

let t: TestApp;
let store: PvpStore;
beforeAll(async () => {
  t = await startTestApp();
  store = new PvpStore(t.prisma);
});
afterAll(() => t?.stop());

let matchCounter = 0;
const nextMatchId = () => (++matchCounter).toString(16).padStart(16, "0");

function side(userId: number, over: Partial<AccountResult> = {}): AccountResult {
  return { userId, playerNumber: 1, outcome: "win", shots: 6, hits: 5, livesLeft: 3, opponentName: "Guest-rival", opponentUserId: null, ...over };
}

function battle(accounts: AccountResult[], over: Partial<BattleRecord> = {}): BattleRecord {
  return { matchId: nextMatchId(), roomId: "pvpRoomA", reason: "knockout", durationMs: 12_345.6, endedAt: new Date(), accounts, ...over };
}

const stats = async (cookie: string, query = "") => t.http({ cookie }).get(`/api/pvp/stats${query}`);

describe("GET /api/pvp/stats: authentication", () => {
  it("401 without a token", async () => {
    const res = await t.http().get("/api/pvp/stats");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: "unauthenticated", message: "Authentication token is missing" } });
  });

  it("403 with an expired token, 401 with a forged one", async () => {
    const { user } = await accountWithBullets(t, 0);
    const expired = await t.app.ctx.tokens.sign(user.id, -10);
    const res = await stats(`jwt=${expired}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("token_expired");
    const forged = await stats(`jwt=${expired.slice(0, -4)}AAAA`);
    expect(forged.status).toBe(401);
  });
});

describe("GET /api/pvp/stats", () => {
  it("zeros before the first battle", async () => {
    const a = await accountWithBullets(t, 0);
    const res = await stats(a.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_id: a.user.id,
      username: a.user.username,
      matches: 0,
      wins: 0,
      losses: 0,
      draws: 0,
      forfeits: 0,
      shots: 0,
      hits: 0,
      win_rate: 0,
      accuracy: 0,
      recent: [],
    });
  });

  it("aggregates the caller's battles (and only the caller's), newest first", async () => {
    const a = await accountWithBullets(t, 40);
    const b = await accountWithBullets(t, 40);
    const first = battle([
      side(a.user.id, { outcome: "win", shots: 8, hits: 5, livesLeft: 2, opponentName: b.user.username, opponentUserId: b.user.id }),
      side(b.user.id, { playerNumber: 2, outcome: "loss", shots: 7, hits: 3, livesLeft: 0, opponentName: a.user.username, opponentUserId: a.user.id }),
    ]);
    await store.record([first], []);
    await store.record(
      [battle([side(a.user.id, { outcome: "loss", shots: 4, hits: 1, livesLeft: 4 })], { reason: "forfeit", endedAt: new Date(Date.now() + 1000) })],
      [],
    );
    await store.record(
      [battle([side(a.user.id, { outcome: "draw", shots: 3, hits: 0, livesLeft: 5 })], { reason: "out_of_ammo", endedAt: new Date(Date.now() + 2000) })],
      [],
    );
    const res = await stats(a.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ matches: 3, wins: 1, losses: 1, draws: 1, forfeits: 1, shots: 15, hits: 6, win_rate: 33.3, accuracy: 40 });
    expect(res.body.recent.map((r: any) => r.outcome)).toEqual(["draw", "loss", "win"]);
    expect(res.body.recent[2]).toEqual({
      match_id: first.matchId,
      room_id: "pvpRoomA",
      player_number: 1,
      outcome: "win",
      reason: "knockout",
      shots: 8,
      hits: 5,
      lives_left: 2,
      opponent: { username: b.user.username, user_id: b.user.id },
      duration_ms: 12_346,
      ended_at: first.endedAt.toISOString(),
    });
    const other = await stats(b.cookie);
    expect(other.body).toMatchObject({ matches: 1, wins: 0, losses: 1, forfeits: 0, shots: 7, hits: 3, win_rate: 0, accuracy: 42.9 });
    expect((await stats(a.cookie, "?recent=1")).body.recent).toHaveLength(1);
    expect((await stats(a.cookie, "?recent=0")).body.recent).toEqual([]);
  });

  it.each([
    ["recent=abc", /recent must be a number/],
    ["recent=51", /recent must be at most 50/],
    ["recent=-1", /recent must be at least 0/],
    ["recent=2.5", /whole number/],
  ])("400 for ?%s", async (query, message) => {
    const a = await accountWithBullets(t, 0);
    const res = await stats(a.cookie, `?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.message).toMatch(message);
  });
});

describe("PvpStore writes", () => {
  it("counts a battle once however often it is written (a retried write after a lost answer)", async () => {
    const a = await accountWithBullets(t, 0);
    const record = battle([side(a.user.id)]);
    await store.record([record], []);
    await store.record([record], []);
    expect((await store.stats(a.user.id)).matches).toBe(1);
  });

  it("takes the bullets spent off the progress record in the same transaction, never below zero", async () => {
    const a = await accountWithBullets(t, 20);
    const b = await accountWithBullets(t, 3);
    await store.record([], [{ userId: a.user.id, bullets: 4 }]);
    await store.record([battle([side(a.user.id), side(b.user.id, { playerNumber: 2, outcome: "loss" })])], [
      { userId: a.user.id, bullets: 6 },
      { userId: b.user.id, bullets: 9 },
    ]);
    const bullets = async (userId: number) => (await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId } })).totalBullets;
    expect(await bullets(a.user.id)).toBe(10);
    expect(await bullets(b.user.id)).toBe(0);
  });

  it("writes nothing at all when one part of a battle's transaction fails", async () => {
    const a = await accountWithBullets(t, 20);
    const missingUser = 2_000_000_000;
    const record = battle([side(a.user.id), side(missingUser, { playerNumber: 2, outcome: "loss" })]);
    await expect(store.record([record], [{ userId: a.user.id, bullets: 5 }])).rejects.toThrow();
    expect((await store.stats(a.user.id)).matches).toBe(0);
    expect((await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId: a.user.id } })).totalBullets).toBe(20);
  });

  it("reads what an account brings: its bullets and character (a record is created when missing)", async () => {
    const fresh = await t.prisma.user.create({ data: { username: `pvp_fresh_${process.pid}`, passwordHash: "x" } });
    expect(await store.ensureProgress(fresh.id)).toEqual({ totalBullets: 0, character: "knight" });
    const a = await accountWithBullets(t, 17);
    await t.prisma.gameProgress.update({ where: { userId: a.user.id }, data: { character: "wizard" } });
    expect(await store.ensureProgress(a.user.id)).toEqual({ totalBullets: 17, character: "wizard" });
  });
});
