// REST /api/slitherrush/*: the caller's stats and the all-time leaderboard, and the store that
// feeds them (atomic deltas, bests that only go up).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { SlitherRushStore, type SlitherRushResultWrite } from "../../src/stores/slitherrush.js";
import { leaderboardResponse, statsResponse } from "../../src/http/slitherrushWire.js";

let t: TestApp;
let store: SlitherRushStore;
beforeAll(async () => {
  t = await startTestApp();
  store = new SlitherRushStore(t.prisma);
});
afterAll(() => t?.stop());

function shaped<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new Error(`body does not match its schema: ${result.error.message}\n${JSON.stringify(body)}`);
  return result.data;
}

const write = (userId: number, w: Partial<SlitherRushResultWrite> = {}): SlitherRushResultWrite => ({
  userId,
  sessions: 0,
  kills: 0,
  deaths: 0,
  timePlayedSeconds: 0,
  bestScore: 0,
  bestLength: 0,
  at: new Date(),
  ...w,
});

describe("authentication", () => {
  it.each(["/api/slitherrush/stats", "/api/slitherrush/leaderboard"])("%s: 401 without a token, 403 when expired", async (path) => {
    const none = await t.http().get(path);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("unauthenticated");
    const { user } = await t.account();
    const expired = await t.app.ctx.tokens.sign(user.id, -10);
    const old = await t.http({ cookie: `jwt=${expired}` }).get(path);
    expect(old.status).toBe(403);
    expect(old.body.error.code).toBe("token_expired");
  });
});

describe("GET /api/slitherrush/stats", () => {
  it("is all zeros before the first session", async () => {
    const { http, user } = await t.account();
    const res = await http.get("/api/slitherrush/stats");
    expect(res.status).toBe(200);
    expect(shaped(statsResponse, res.body)).toEqual({
      user_id: user.id,
      username: user.username,
      sessions: 0,
      kills: 0,
      deaths: 0,
      best_score: 0,
      best_length: 0,
      time_played: 0,
      last_played_at: null,
    });
  });

  it("adds up checkpoints and sessions, and keeps the best score and length", async () => {
    const { http, user } = await t.account();
    const at = new Date("2026-11-20T10:00:00Z");
    await store.record([write(user.id, { sessions: 1, kills: 2, deaths: 1, timePlayedSeconds: 15, bestScore: 2, bestLength: 18, at })]);
    await store.record([write(user.id, { kills: 3, deaths: 2, timePlayedSeconds: 15.04, bestScore: 4, bestLength: 22, at: new Date("2026-11-20T10:00:15Z") })]);
    // A later session with worse bests does not lower them.
    await store.record([write(user.id, { sessions: 1, kills: 0, deaths: 4, timePlayedSeconds: 10, bestScore: 1, bestLength: 14, at: new Date("2026-11-21T08:00:00Z") })]);
    const res = await http.get("/api/slitherrush/stats");
    expect(shaped(statsResponse, res.body)).toEqual({
      user_id: user.id,
      username: user.username,
      sessions: 2,
      kills: 5,
      deaths: 7,
      best_score: 4,
      best_length: 22,
      time_played: 40,
      last_played_at: "2026-11-21T08:00:00.000Z",
    });
  });

  it("loses no count when writes for one account race (two processes, a checkpoint and a leave)", async () => {
    const { http, user } = await t.account();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.record([write(user.id, { sessions: i === 0 ? 1 : 0, kills: 1, deaths: 1, timePlayedSeconds: 1, bestScore: i })])));
    const body = shaped(statsResponse, (await http.get("/api/slitherrush/stats")).body);
    expect(body).toMatchObject({ sessions: 1, kills: 20, deaths: 20, time_played: 20, best_score: 19 });
  });
});

describe("GET /api/slitherrush/leaderboard", () => {
  it("orders by best score, then best length, then kills; defaults to 10 and honours ?limit", async () => {
    const { http } = await t.account();
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { user } = await t.account();
      ids.push(user.id);
      await store.record([write(user.id, { sessions: 1, bestScore: 1000 + Math.floor(i / 2), bestLength: 20 + (i % 2), kills: i })]);
    }
    const res = await http.get("/api/slitherrush/leaderboard");
    expect(res.status).toBe(200);
    const body = shaped(leaderboardResponse, res.body);
    expect(body.limit).toBe(10);
    expect(body.count).toBe(10);
    expect(body.leaderboard.slice(0, 4).map((e) => e.user_id)).toEqual([ids[11], ids[10], ids[9], ids[8]]);
    expect(body.leaderboard[0]).toMatchObject({ rank: 1, best_score: 1005, best_length: 21, kills: 11, sessions: 1 });
    const three = shaped(leaderboardResponse, (await http.get("/api/slitherrush/leaderboard?limit=3")).body);
    expect(three.leaderboard.map((e) => e.rank)).toEqual([1, 2, 3]);
    expect(three).toMatchObject({ count: 3, limit: 3 });
  });

  it.each(["0", "101", "-1", "abc", "2.5", "1e2", ""])("400 for limit=%s", async (limit) => {
    const { http } = await t.account();
    const res = await http.get(`/api/slitherrush/leaderboard?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_failed", message: "Invalid request query: limit: must be an integer from 1 to 100" });
  });

  it("400 for a repeated limit", async () => {
    const { http } = await t.account();
    const res = await http.get("/api/slitherrush/leaderboard?limit=2&limit=3");
    expect(res.status).toBe(400);
  });
});
