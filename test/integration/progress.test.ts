// The /api/snakes progress API over real HTTP against the real database (PGlite here; PostgreSQL in
// the integration:postgres project). Response bodies are checked against the documented schemas.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { startTestApp, type HttpClient, type TestApp } from "../helpers/app.js";
import {
  activePlayersResponse,
  addBulletsResponse,
  answerQuestionResponse,
  championsResponse,
  completeLessonResponse,
  completeResponse,
  errorResponse,
  leaderboardResponse,
  progressStateSchema,
  resetPositionResponse,
  resetResponse,
  saveStateResponse,
  unvisitedSquaresResponse,
} from "../../src/http/progressWire.js";
import { completeGame, ensureProgress } from "../../src/stores/progress.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

/** Asserts the body matches the documented schema exactly (no missing or extra keys) and returns it typed. */
function shaped<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new Error(`body does not match its schema: ${result.error.message}\n${JSON.stringify(body)}`);
  return result.data;
}

function expectError(res: { status: number; body: unknown }, status: number, code: string, message?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const body = shaped(errorResponse, res.body);
  expect(body.error.code).toBe(code);
  if (message) expect(body.error.message).toMatch(message);
}

async function player(): Promise<{ http: HttpClient; userId: number }> {
  const { http, user } = await t.account();
  return { http, userId: user.id };
}

const row = (userId: number) => t.prisma.gameProgress.findUniqueOrThrow({ where: { userId } });

/** Unlocks the boss section the honest way: answer square 56. */
async function unlockBoss(http: HttpClient) {
  const res = await http.post("/api/snakes/answer-question", { square: 56, correct: true, bullets_earned: 0 });
  expect(res.status).toBe(200);
}

describe("authentication on every route", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/api/snakes/"],
    ["GET", "/api/snakes/progress"],
    ["POST", "/api/snakes/complete-lesson", { lesson_number: 1 }],
    ["POST", "/api/snakes/answer-question", { square: 7, correct: true }],
    ["PUT", "/api/snakes/update-game", { lives: 3 }],
    ["PUT", "/api/snakes/", { lives: 3 }],
    ["POST", "/api/snakes/complete"],
    ["POST", "/api/snakes/reset"],
    ["POST", "/api/snakes/reset-position"],
    ["GET", "/api/snakes/active-players"],
    ["GET", "/api/snakes/champions"],
    ["GET", "/api/snakes/leaderboard?limit=5"],
    ["POST", "/api/snakes/add-bullets", { bullets: 5 }],
    ["POST", "/api/snakes/update-square", { square: 3 }],
    ["GET", "/api/snakes/unvisited-squares"],
  ];

  it.each(routes)("%s %s: no token → 401", async (method, path, body) => {
    expectError(await t.http().request(method, path, body), 401, "unauthenticated");
  });

  it.each(routes)("%s %s: expired token → 403, nothing created", async (method, path, body) => {
    const { user } = await t.account();
    const expired = await t.app.ctx.tokens.sign(user.id, -5);
    expectError(await t.http().request(method, path, body, { cookie: `jwt=${expired}` }), 403, "token_expired");
    expect(await t.prisma.gameProgress.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a forged token → 401", async () => {
    const res = await t.http().get("/api/snakes/progress", { cookie: "jwt=not.a.jwt" });
    expectError(res, 401, "invalid_token");
  });
});

describe("GET /api/snakes/progress and GET /api/snakes/", () => {
  it("creates the record with the spec's defaults on first request", async () => {
    const { http, userId } = await player();
    const res = await http.get("/api/snakes/progress");
    expect(res.status).toBe(200);
    const state = shaped(progressStateSchema, res.body);
    expect(state).toMatchObject({
      user_id: userId,
      current_square: 1,
      total_bullets: 0,
      lives: 5,
      game_status: "active",
      completed_at: null,
      champion_at: null,
      boss_battle_attempts: 0,
      boss_victories: 0,
      bonus_bullets: 0,
      completed_lessons: [],
      visited_squares: [],
      unlocked_sections: ["half1"],
      character: "knight",
      time_played: 0,
    });
    expect(state.username).toMatch(/^user/);
    expect(Date.now() - Date.parse(state.last_updated)).toBeLessThan(60_000);
  });

  it("GET / answers 404 no_progress for a player without a record and creates nothing; once created it returns the same state as /progress", async () => {
    const { http, userId } = await player();
    const missing = await http.get("/api/snakes/");
    expectError(missing, 404, "no_progress");
    expect(await t.prisma.gameProgress.count({ where: { userId } })).toBe(0);
    // The original web client's next call: its character survives (GET used to create a knight).
    expect((await http.post("/api/snakes/", { selected_character: "archer" })).status).toBe(201);
    const root = await http.get("/api/snakes/");
    expect(root.status).toBe(200);
    expect(shaped(progressStateSchema, root.body).character).toBe("archer");
    const progress = await http.get("/api/snakes/progress");
    expect(progress.body).toEqual(root.body);
    expect(await t.prisma.gameProgress.count({ where: { userId } })).toBe(1);
  });

  it("reading does not write: last_updated stays put", async () => {
    const { http } = await player();
    const first = await http.get("/api/snakes/progress");
    await new Promise((r) => setTimeout(r, 20)); // a fixed wait: the clock must move on, so a write would show in last_updated
    const second = await http.get("/api/snakes/");
    expect(second.body.last_updated).toBe(first.body.last_updated);
  });

  it("concurrent first requests (3 players × 20) all succeed and leave exactly one record each", async () => {
    for (let round = 0; round < 3; round++) {
      const { http, userId } = await player();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => http.get("/api/snakes/progress")),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(responses.map((r) => r.body.user_id))).toEqual(new Set([userId]));
      expect(await t.prisma.gameProgress.count({ where: { userId } })).toBe(1);
    }
  });

  it("concurrent first writes of different kinds also create one record", async () => {
    const { http, userId } = await player();
    const responses = await Promise.all([
      http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 }),
      http.post("/api/snakes/answer-question", { square: 7, correct: true, bullets_earned: 3 }),
      http.post("/api/snakes/add-bullets", { bullets: 2 }),
      http.put("/api/snakes/", { lives: 4 }),
      http.get("/api/snakes/progress"),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await t.prisma.gameProgress.count({ where: { userId } })).toBe(1);
    expect(await row(userId)).toMatchObject({ totalBullets: 10, lives: 4 });
  });
});

describe("POST /api/snakes/complete-lesson", () => {
  it("pays a lesson once: a repeat is a 200 that pays nothing (no farming)", async () => {
    const { http, userId } = await player();
    const first = await http.post("/api/snakes/complete-lesson", { lesson_number: 3, bullets_earned: 15 });
    expect(first.status).toBe(200);
    expect(shaped(completeLessonResponse, first.body)).toMatchObject({
      lesson_number: 3,
      bullets_awarded: 15,
      already_completed: false,
      total_bullets: 15,
      completed_lessons: [3],
      newly_unlocked_sections: [],
      unlocked_sections: ["half1"],
    });
    const again = await http.post("/api/snakes/complete-lesson", { lesson_number: 3, bullets_earned: 20 });
    expect(again.status).toBe(200);
    expect(shaped(completeLessonResponse, again.body)).toMatchObject({ bullets_awarded: 0, already_completed: true, total_bullets: 15, completed_lessons: [3] });
    expect((await row(userId)).totalBullets).toBe(15);
  });

  it("bullets_earned defaults to 0", async () => {
    const { http } = await player();
    const res = await http.post("/api/snakes/complete-lesson", { lesson_number: 1 });
    expect(res.body).toMatchObject({ bullets_awarded: 0, total_bullets: 0, completed_lessons: [1] });
  });

  it("unlocks half2 exactly when the fifth distinct lesson is completed", async () => {
    const { http } = await player();
    for (const lesson of [1, 2, 2, 3, 4]) {
      const res = await http.post("/api/snakes/complete-lesson", { lesson_number: lesson, bullets_earned: 1 });
      expect(res.body.unlocked_sections).toEqual(["half1"]);
    }
    const fifth = await http.post("/api/snakes/complete-lesson", { lesson_number: 5, bullets_earned: 1 });
    expect(fifth.body).toMatchObject({ newly_unlocked_sections: ["half2"], unlocked_sections: ["half1", "half2"], total_bullets: 5 });
    const repeat = await http.post("/api/snakes/complete-lesson", { lesson_number: 5, bullets_earned: 1 });
    expect(repeat.body).toMatchObject({ newly_unlocked_sections: [], unlocked_sections: ["half1", "half2"] });
  });

  it("10 concurrent completions of one lesson pay once", async () => {
    const { http, userId } = await player();
    const responses = await Promise.all(Array.from({ length: 10 }, () => http.post("/api/snakes/complete-lesson", { lesson_number: 2, bullets_earned: 20 })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.filter((r) => r.body.already_completed === false)).toHaveLength(1);
    expect(await row(userId)).toMatchObject({ totalBullets: 20, completedLessons: [2] });
  });

  it("five lessons completed concurrently: all paid, half2 added once", async () => {
    const { http, userId } = await player();
    const responses = await Promise.all([1, 2, 3, 4, 5].map((n) => http.post("/api/snakes/complete-lesson", { lesson_number: n, bullets_earned: n })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const stored = await row(userId);
    expect(stored.totalBullets).toBe(15);
    expect([...stored.completedLessons].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(stored.unlockedSections).toEqual(["half1", "half2"]);
    expect(responses.flatMap((r) => r.body.newly_unlocked_sections)).toEqual(["half2"]);
  });

  it.each([
    ["lesson 0", { lesson_number: 0 }, /lesson_number: must be an integer from 1 to 5/],
    ["lesson 6", { lesson_number: 6 }, /lesson_number/],
    ["lesson true", { lesson_number: true }, /lesson_number/],
    ["lesson \"3\"", { lesson_number: "3" }, /lesson_number/],
    ["lesson 2.5", { lesson_number: 2.5 }, /lesson_number/],
    ["no lesson", { bullets_earned: 5 }, /lesson_number/],
    ["negative bullets", { lesson_number: 1, bullets_earned: -1 }, /bullets_earned: must be an integer from 0 to 20/],
    ["too many bullets", { lesson_number: 1, bullets_earned: 21 }, /bullets_earned/],
    ["string bullets", { lesson_number: 1, bullets_earned: "5" }, /bullets_earned/],
    ["an unknown field", { lesson_number: 1, total_bullets: 999 }, /total_bullets|Unrecognized/i],
    ["an array body", [1], /body/],
    ["no body", undefined, /body/],
  ])("rejects %s with 400 and writes nothing", async (_name, body, message) => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    expectError(await http.post("/api/snakes/complete-lesson", body), 400, "validation_failed", message);
    expect(await row(userId)).toMatchObject({ totalBullets: 0, completedLessons: [] });
  });

  it("rejects malformed JSON with 400 invalid_json", async () => {
    const { http } = await player();
    expectError(await http.post("/api/snakes/complete-lesson", '{"lesson_number": 1,'), 400, "invalid_json");
  });
});

describe("POST /api/snakes/answer-question", () => {
  it("a correct first answer pays, moves the player, marks the square visited and logs the answer", async () => {
    const { http, userId } = await player();
    const res = await http.post("/api/snakes/answer-question", { square: 12, correct: true, bullets_earned: 8 });
    expect(res.status).toBe(200);
    expect(shaped(answerQuestionResponse, res.body)).toMatchObject({
      message: "Question processed",
      square: 12,
      correct: true,
      bullets_awarded: 8,
      first_answer: true,
      newly_unlocked_sections: [],
      total_bullets: 8,
      current_square: 12,
      visited_squares: [12],
    });
    const stored = await row(userId);
    const log = await t.prisma.squareCompletion.findMany({ where: { progressId: stored.id } });
    expect(log).toMatchObject([{ square: 12, correct: true, bulletsEarned: 8 }]);
  });

  it("pays a square at most once: a second correct answer is logged but pays nothing (no farming)", async () => {
    const { http, userId } = await player();
    await http.post("/api/snakes/answer-question", { square: 20, correct: true, bullets_earned: 10 });
    const again = await http.post("/api/snakes/answer-question", { square: 20, correct: true, bullets_earned: 10 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ first_answer: false, bullets_awarded: 0, total_bullets: 10, visited_squares: [20] });
    const stored = await row(userId);
    const log = await t.prisma.squareCompletion.findMany({ where: { progressId: stored.id }, orderBy: { id: "asc" } });
    expect(log.map((l) => l.bulletsEarned)).toEqual([10, 0]);
  });

  it("a wrong answer earns nothing whatever bullets_earned says, and the first answer decides the square", async () => {
    const { http } = await player();
    const wrong = await http.post("/api/snakes/answer-question", { square: 9, correct: false, bullets_earned: 10 });
    expect(wrong.body).toMatchObject({ bullets_awarded: 0, total_bullets: 0, first_answer: true, visited_squares: [9], current_square: 9 });
    const retry = await http.post("/api/snakes/answer-question", { square: 9, correct: true, bullets_earned: 10 });
    expect(retry.body).toMatchObject({ bullets_awarded: 0, total_bullets: 0, first_answer: false });
  });

  it("square 56 unlocks the boss section once", async () => {
    const { http } = await player();
    const res = await http.post("/api/snakes/answer-question", { square: 56, correct: false });
    expect(res.body).toMatchObject({ newly_unlocked_sections: ["boss"], unlocked_sections: ["half1", "boss"] });
    const again = await http.post("/api/snakes/answer-question", { square: 56, correct: true });
    expect(again.body).toMatchObject({ newly_unlocked_sections: [], unlocked_sections: ["half1", "boss"] });
  });

  it("20 concurrent answers on different squares are all paid and all recorded", async () => {
    const { http, userId } = await player();
    const squares = Array.from({ length: 20 }, (_, i) => 7 + i * 2);
    const responses = await Promise.all(squares.map((square) => http.post("/api/snakes/answer-question", { square, correct: true, bullets_earned: 3 })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const stored = await row(userId);
    expect(stored.totalBullets).toBe(60);
    expect([...stored.visitedSquares].sort((a, b) => a - b)).toEqual(squares);
    expect(await t.prisma.squareCompletion.count({ where: { progressId: stored.id } })).toBe(20);
  });

  it("10 concurrent answers on one square pay once", async () => {
    const { http, userId } = await player();
    const responses = await Promise.all(Array.from({ length: 10 }, () => http.post("/api/snakes/answer-question", { square: 33, correct: true, bullets_earned: 10 })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.filter((r) => r.body.first_answer)).toHaveLength(1);
    expect(await row(userId)).toMatchObject({ totalBullets: 10, visitedSquares: [33] });
  });

  it("refuses a square whose section is locked with 403 section_locked", async () => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    // No API removes half1; a damaged record must still be refused, not paid.
    await t.prisma.gameProgress.update({ where: { userId }, data: { unlockedSections: [] } });
    expectError(await http.post("/api/snakes/answer-question", { square: 8, correct: true, bullets_earned: 5 }), 403, "section_locked", /half1/);
    expect(await row(userId)).toMatchObject({ totalBullets: 0, visitedSquares: [], currentSquare: 1 });
  });

  it.each([
    ["square 6", { square: 6, correct: true }, /square: must be an integer from 7 to 56/],
    ["square 57", { square: 57, correct: true }, /square/],
    ["square \"7\"", { square: "7", correct: true }, /square/],
    ["square 7.5", { square: 7.5, correct: true }, /square/],
    ["no square", { correct: true }, /square/],
    ["correct \"false\"", { square: 7, correct: "false" }, /correct: must be true or false/],
    ["correct 1", { square: 7, correct: 1 }, /correct/],
    ["no correct", { square: 7 }, /correct/],
    ["too many bullets", { square: 7, correct: true, bullets_earned: 11 }, /bullets_earned: must be an integer from 0 to 10/],
    ["negative bullets", { square: 7, correct: true, bullets_earned: -3 }, /bullets_earned/],
    ["an unknown field", { square: 7, correct: true, current_square: 50 }, /current_square|Unrecognized/i],
  ])("rejects %s with 400 and writes nothing", async (_name, body, message) => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    expectError(await http.post("/api/snakes/answer-question", body), 400, "validation_failed", message);
    expect(await row(userId)).toMatchObject({ totalBullets: 0, visitedSquares: [], currentSquare: 1 });
  });
});

describe.each(["/api/snakes/", "/api/snakes/update-game"])("PUT %s (autosave)", (path) => {
  it("saves the client-owned fields", async () => {
    const { http } = await player();
    const res = await http.put(path, { current_square: 30, lives: 2, time_played: 95.5, character: "archer" });
    expect(res.status).toBe(200);
    expect(shaped(saveStateResponse, res.body)).toMatchObject({ current_square: 30, lives: 2, time_played: 95.5, character: "archer", ignored_fields: [] });
  });

  it("a stale copy of server-owned fields changes nothing", async () => {
    const { http, userId } = await player();
    const stale = (await http.get("/api/snakes/progress")).body;
    for (const lesson of [1, 2, 3, 4, 5]) await http.post("/api/snakes/complete-lesson", { lesson_number: lesson, bullets_earned: 10 });
    await http.post("/api/snakes/answer-question", { square: 56, correct: true, bullets_earned: 10 });
    await http.post("/api/snakes/update-square", { square: 100 });
    await http.post("/api/snakes/complete");
    const before = await row(userId);

    const res = await http.put(path, { ...stale, lives: 4, current_square: 100 });
    expect(res.status).toBe(200);
    const body = shaped(saveStateResponse, res.body);
    expect(body.ignored_fields).toEqual(
      expect.arrayContaining(["total_bullets", "completed_lessons", "unlocked_sections", "visited_squares", "game_status", "completed_at", "boss_battle_attempts"]),
    );
    expect(body.ignored_fields).not.toContain("lives");
    expect(body).toMatchObject({ lives: 4, total_bullets: 60, game_status: "completed", unlocked_sections: ["half1", "half2", "boss"], visited_squares: [56, 100] });
    const after = await row(userId);
    expect(after).toMatchObject({
      totalBullets: before.totalBullets,
      completedLessons: before.completedLessons,
      unlockedSections: before.unlockedSections,
      visitedSquares: before.visitedSquares,
      gameStatus: "completed",
      completedAt: before.completedAt,
      lives: 4,
    });
  });

  it("server-owned fields with forged values are ignored too", async () => {
    const { http, userId } = await player();
    const res = await http.put(path, { total_bullets: 1e6, game_status: "completed", unlocked_sections: ["boss"], completed_at: "2020-01-01T00:00:00.000Z", bonus_bullets: -100 });
    expect(res.status).toBe(200);
    expect(await row(userId)).toMatchObject({ totalBullets: 0, gameStatus: "active", unlockedSections: ["half1"], completedAt: null, bonusBullets: 0 });
  });

  it("play time never goes backwards: a stale time is ignored", async () => {
    const { http } = await player();
    await http.put(path, { time_played: 300 });
    const stale = await http.put(path, { time_played: 120, lives: 3 });
    expect(stale.body).toMatchObject({ time_played: 300, lives: 3 });
    const newer = await http.put(path, { time_played: 310 });
    expect(newer.body.time_played).toBe(310);
  });

  it("an empty save marks the player active", async () => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    await t.prisma.gameProgress.update({ where: { userId }, data: { updatedAt: new Date(Date.now() - 60_000) } });
    const res = await http.put(path, {});
    expect(res.status).toBe(200);
    expect(Date.now() - Date.parse(res.body.last_updated)).toBeLessThan(5_000);
  });

  it("refuses a position in a locked section with 403 and saves nothing of that request", async () => {
    const { http, userId } = await player();
    await http.put(path, { lives: 5, time_played: 10 });
    expectError(await http.put(path, { current_square: 57, lives: 1, time_played: 50 }), 403, "section_locked", /boss/);
    expect(await row(userId)).toMatchObject({ currentSquare: 1, lives: 5, timePlayed: 10 });
    await unlockBoss(http);
    expect((await http.put(path, { current_square: 57 })).body.current_square).toBe(57);
  });

  it.each([
    ["an unknown field", { lives: 3, cheat: true }, /cheat|Unrecognized/i],
    ["lives 6", { lives: 6 }, /lives: must be an integer from 0 to 5/],
    ["lives -1", { lives: -1 }, /lives/],
    ["lives \"3\"", { lives: "3" }, /lives/],
    ["square 0", { current_square: 0 }, /current_square: must be an integer from 1 to 100/],
    ["square 101", { current_square: 101 }, /current_square/],
    ["square 5.5", { current_square: 5.5 }, /current_square/],
    ["an unknown character", { character: "ninja" }, /character: must be one of knight, wizard, archer, warrior/],
    ["negative time", { time_played: -1 }, /time_played/],
    ["string time", { time_played: "10" }, /time_played/],
    ["null lives", { lives: null }, /lives/],
    ["an array body", [{ lives: 3 }], /body/],
  ])("rejects %s with 400 and writes nothing", async (_name, body, message) => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    expectError(await http.put(path, body), 400, "validation_failed", message);
    expect(await row(userId)).toMatchObject({ lives: 5, currentSquare: 1, character: "knight", timePlayed: 0 });
  });
});

describe("concurrent autosave and earning", () => {
  it("autosaves carrying a stale total_bullets lose no bullets earned at the same time", async () => {
    const { http, userId } = await player();
    const stale = (await http.get("/api/snakes/progress")).body;
    const squares = Array.from({ length: 15 }, (_, i) => 10 + i);
    const answers = squares.map((square) => http.post("/api/snakes/answer-question", { square, correct: true, bullets_earned: 4 }));
    const saves = squares.map((square) => http.put("/api/snakes/", { ...stale, current_square: square, time_played: square }));
    const lessons = [1, 2, 3].map((n) => http.post("/api/snakes/complete-lesson", { lesson_number: n, bullets_earned: 20 }));
    const responses = await Promise.all([...answers, ...saves, ...lessons]);
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const stored = await row(userId);
    expect(stored.totalBullets).toBe(15 * 4 + 3 * 20);
    expect(stored.visitedSquares).toHaveLength(15);
    expect(stored.completedLessons).toHaveLength(3);
    expect(stored.timePlayed).toBe(24);
  });
});

describe("POST /api/snakes/update-square", () => {
  it("answers with the new position and visited list: lesson squares join on arrival, question squares only when answered", async () => {
    const { http } = await player();
    await http.post("/api/snakes/answer-question", { square: 7, correct: true, bullets_earned: 1 });
    const expected: Array<[number, number[]]> = [[3, [7, 3]], [40, [7, 3]], [56, [7, 3]], [1, [7, 3, 1]], [3, [7, 3, 1]]];
    for (const [square, visited] of expected) {
      const res = await http.post("/api/snakes/update-square", { square });
      expect(res.status).toBe(200);
      expect(shaped(progressStateSchema, res.body)).toMatchObject({ current_square: square, visited_squares: visited });
    }
    expect((await http.get("/api/snakes/unvisited-squares")).body).toMatchObject({ visited_squares: [7], visited_count: 1 });
  });

  it("a question square reached by update-square still pays on its first answer, and only once", async () => {
    const { http, userId } = await player();
    await http.post("/api/snakes/update-square", { square: 20 });
    const first = await http.post("/api/snakes/answer-question", { square: 20, correct: true, bullets_earned: 6 });
    expect(first.body).toMatchObject({ first_answer: true, bullets_awarded: 6, visited_squares: [20] });
    await http.post("/api/snakes/update-square", { square: 20 });
    const again = await http.post("/api/snakes/answer-question", { square: 20, correct: true, bullets_earned: 6 });
    expect(again.body).toMatchObject({ first_answer: false, bullets_awarded: 0, visited_squares: [20] });
    expect((await row(userId)).totalBullets).toBe(6);
  });

  it("squares beyond 56 need the boss section: 403 before, 200 after", async () => {
    const { http, userId } = await player();
    const locked = await http.post("/api/snakes/update-square", { square: 100 });
    expectError(locked, 403, "section_locked", /Square 100 needs the 'boss' section/);
    expect(locked.body.error.details).toEqual({ required_section: "boss" });
    expect((await row(userId)).currentSquare).toBe(1);
    await unlockBoss(http);
    const res = await http.post("/api/snakes/update-square", { square: 100 });
    expect(res.body).toMatchObject({ current_square: 100, visited_squares: [56, 100] });
  });

  it.each([
    ["square 0", { square: 0 }],
    ["square 101", { square: 101 }],
    ["square \"50\"", { square: "50" }],
    ["no square", {}],
    ["an unknown field", { square: 5, visited_squares: [5] }],
  ])("rejects %s with 400", async (_name, body) => {
    const { http, userId } = await player();
    expectError(await http.post("/api/snakes/update-square", body), 400, "validation_failed", /square|Unrecognized/i);
    expect(await t.prisma.gameProgress.count({ where: { userId, currentSquare: { not: 1 } } })).toBe(0);
  });
});

describe("POST /api/snakes/add-bullets", () => {
  it("adds within the per-call bound and counts against the per-game bonus", async () => {
    const { http } = await player();
    const res = await http.post("/api/snakes/add-bullets", { bullets: 7 });
    expect(res.status).toBe(200);
    expect(shaped(addBulletsResponse, res.body)).toMatchObject({ total_bullets: 7, bullets_added: 7, bonus_bullets: 7, bonus_bullets_remaining: 43 });
  });

  it("stops at 50 bonus bullets per game with 409; a reset restores the allowance", async () => {
    const { http, userId } = await player();
    for (let i = 0; i < 4; i++) expect((await http.post("/api/snakes/add-bullets", { bullets: 10 })).status).toBe(200);
    expect((await http.post("/api/snakes/add-bullets", { bullets: 6 })).status).toBe(200);
    const over = await http.post("/api/snakes/add-bullets", { bullets: 5 });
    expectError(over, 409, "bonus_bullets_exhausted", /4 left, 5 asked/);
    expect(over.body.error.details).toEqual({ bonus_bullets_remaining: 4 });
    expect((await http.post("/api/snakes/add-bullets", { bullets: 4 })).body.bonus_bullets_remaining).toBe(0);
    expectError(await http.post("/api/snakes/add-bullets", { bullets: 1 }), 409, "bonus_bullets_exhausted");
    expect(await row(userId)).toMatchObject({ totalBullets: 50, bonusBullets: 50 });
    await http.post("/api/snakes/reset");
    expect((await http.post("/api/snakes/add-bullets", { bullets: 10 })).body).toMatchObject({ total_bullets: 10, bonus_bullets_remaining: 40 });
  });

  it("10 concurrent grants of 10 pay exactly five of them", async () => {
    const { http, userId } = await player();
    const responses = await Promise.all(Array.from({ length: 10 }, () => http.post("/api/snakes/add-bullets", { bullets: 10 })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await row(userId)).toMatchObject({ totalBullets: 50, bonusBullets: 50 });
  });

  it.each([
    ["0", { bullets: 0 }],
    ["11", { bullets: 11 }],
    ["a negative amount", { bullets: -5 }],
    ["a huge amount", { bullets: 1e9 }],
    ["a string", { bullets: "5" }],
    ["nothing", {}],
    ["an unknown field", { bullets: 5, total_bullets: 100 }],
  ])("rejects %s with 400", async (_name, body) => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    expectError(await http.post("/api/snakes/add-bullets", body), 400, "validation_failed", /bullets|Unrecognized/i);
    expect((await row(userId)).totalBullets).toBe(0);
  });
});

describe("POST /api/snakes/complete", () => {
  it("refuses with 409 game_not_finished before square 100 or a boss victory, writing nothing", async () => {
    const { http, userId } = await player();
    await http.post("/api/snakes/update-square", { square: 50 });
    expectError(await http.post("/api/snakes/complete"), 409, "game_not_finished", /square 100 or after a recorded boss victory/);
    expect(await row(userId)).toMatchObject({ gameStatus: "active", completedAt: null, championAt: null });
  });

  it("completes on reaching square 100 (no separate call needed) and stays idempotent: completed_at is never rewritten", async () => {
    const { http } = await player();
    await unlockBoss(http);
    const arrived = await http.post("/api/snakes/update-square", { square: 100 });
    expect(arrived.body).toMatchObject({ current_square: 100, game_status: "completed" });
    expect(arrived.body.completed_at).not.toBeNull();
    const first = await http.post("/api/snakes/complete");
    expect(first.status).toBe(200);
    const done = shaped(completeResponse, first.body);
    expect(done).toMatchObject({ game_status: "completed", already_completed: true, message: "Game already completed" });
    expect(done.completed_at).toBe(arrived.body.completed_at);
    expect(done.champion_at).toBe(done.completed_at);
    await new Promise((r) => setTimeout(r, 15)); // a fixed wait: the clock moves on, so a second completion would show a later time
    // Still completed after moving away from square 100 (a boss retry, say).
    await http.post("/api/snakes/reset-position");
    const again = await http.post("/api/snakes/complete");
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ already_completed: true, completed_at: done.completed_at, champion_at: done.champion_at });
  });

  it("completes after a recorded boss victory", async () => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    await t.prisma.gameProgress.update({ where: { userId }, data: { bossVictories: 1 } });
    const res = await http.post("/api/snakes/complete");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ game_status: "completed", current_square: 1 });
  });

  it("concurrent completions agree on one completion time", async () => {
    const { http, userId } = await player();
    await http.get("/api/snakes/progress");
    await t.prisma.gameProgress.update({ where: { userId }, data: { bossVictories: 1 } });
    const responses = await Promise.all(Array.from({ length: 6 }, () => http.post("/api/snakes/complete")));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.filter((r) => r.body.already_completed === false)).toHaveLength(1);
    expect(new Set(responses.map((r) => r.body.completed_at)).size).toBe(1);
  });

  it("refuses a body with fields", async () => {
    const { http } = await player();
    expectError(await http.post("/api/snakes/complete", { game_status: "completed" }), 400, "validation_failed", /game_status|Unrecognized/i);
  });

  it("completeGame (for the boss routes) needs no square 100, creates a missing record and is idempotent", async () => {
    const { http, userId } = await player();
    expect(await completeGame(t.prisma, userId)).toEqual({ firstCompletion: true });
    const first = await row(userId);
    expect(first).toMatchObject({ gameStatus: "completed", currentSquare: 1 });
    expect(first.championAt).toEqual(first.completedAt);
    const repeats = await Promise.all([completeGame(t.prisma, userId), completeGame(t.prisma, userId)]);
    expect(repeats).toEqual([{ firstCompletion: false }, { firstCompletion: false }]);
    expect((await row(userId)).completedAt).toEqual(first.completedAt);
    expect((await http.get("/api/snakes/champions?limit=1000")).body.champions.map((c: { user_id: number }) => c.user_id)).toContain(userId);
  });

  it("ensureProgress called concurrently returns one and the same record", async () => {
    const { userId } = await player();
    const records = await Promise.all(Array.from({ length: 8 }, () => ensureProgress(t.prisma, userId)));
    expect(new Set(records.map((r) => r.id)).size).toBe(1);
    expect(records[0].user.username).toMatch(/^user/);
  });
});

describe("POST /api/snakes/reset and the Hall of Champions", () => {
  async function champion(): Promise<{ http: HttpClient; userId: number; completedAt: string }> {
    const { http, userId } = await player();
    await unlockBoss(http);
    await http.post("/api/snakes/update-square", { square: 100 });
    const res = await http.post("/api/snakes/complete");
    return { http, userId, completedAt: res.body.completed_at };
  }

  it("resets to fresh defaults but a champion stays in the champions list", async () => {
    const { http, userId, completedAt } = await champion();
    await http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 });
    await http.post("/api/snakes/add-bullets", { bullets: 3 });
    await http.put("/api/snakes/", { character: "wizard", lives: 2, time_played: 500 });

    const res = await http.post("/api/snakes/reset");
    expect(res.status).toBe(200);
    const fresh = shaped(resetResponse, res.body);
    expect(fresh).toMatchObject({
      was_champion: true,
      current_square: 1,
      total_bullets: 0,
      lives: 5,
      game_status: "active",
      completed_at: null,
      champion_at: completedAt,
      boss_battle_attempts: 0,
      boss_victories: 0,
      bonus_bullets: 0,
      completed_lessons: [],
      visited_squares: [],
      unlocked_sections: ["half1"],
      character: "knight",
      time_played: 0,
    });
    expect(await t.prisma.squareCompletion.count({ where: { progress: { userId } } })).toBe(0);

    const list = shaped(championsResponse, (await http.get(`/api/snakes/champions?limit=1000`)).body);
    expect(list.champions.find((c) => c.user_id === userId)).toMatchObject({ completed_at: completedAt, total_bullets: 0 });
    // A fresh game pays again, and the new game must be finished again before it can be completed.
    expect((await http.post("/api/snakes/answer-question", { square: 56, correct: true, bullets_earned: 10 })).body.bullets_awarded).toBe(10);
    expectError(await http.post("/api/snakes/complete"), 409, "game_not_finished");
  });

  it("completing again after a reset keeps the first completion as the champion time", async () => {
    const { http, userId, completedAt } = await champion();
    await http.post("/api/snakes/reset");
    await new Promise((r) => setTimeout(r, 15)); // a fixed wait: the clock moves on, so the new completion time differs from the first
    await unlockBoss(http);
    const second = (await http.post("/api/snakes/update-square", { square: 100 })) as { body: { completed_at: string; champion_at: string } };
    expect(second.body.completed_at).not.toBe(completedAt);
    expect(second.body.champion_at).toBe(completedAt);
    const list = (await http.get("/api/snakes/champions?limit=1000")).body;
    expect(list.champions.filter((c: { user_id: number }) => c.user_id === userId)).toEqual([expect.objectContaining({ completed_at: completedAt })]);
  });

  it("a player who never completed is not a champion", async () => {
    const { http, userId } = await player();
    const res = await http.post("/api/snakes/reset");
    expect(res.body).toMatchObject({ was_champion: false, champion_at: null });
    const list = (await http.get("/api/snakes/champions?limit=1000")).body;
    expect(list.champions.some((c: { user_id: number }) => c.user_id === userId)).toBe(false);
  });

  it("lists champions by first completion, with paging", async () => {
    const a = await champion();
    await new Promise((r) => setTimeout(r, 5)); // a fixed wait: the two champions' completion times must differ for the order to mean anything
    const b = await champion();
    const all = shaped(championsResponse, (await a.http.get("/api/snakes/champions?limit=1000")).body);
    expect(all.count).toBe(all.champions.length);
    const times = all.champions.map((c) => c.completed_at);
    expect(times).toEqual([...times].sort());
    const ids = all.champions.map((c) => c.user_id);
    expect(ids.indexOf(a.userId)).toBeLessThan(ids.indexOf(b.userId));
    const page = shaped(championsResponse, (await a.http.get(`/api/snakes/champions?limit=1&offset=${ids.indexOf(b.userId)}`)).body);
    expect(page).toMatchObject({ limit: 1, count: all.count });
    expect(page.champions.map((c) => c.user_id)).toEqual([b.userId]);
    expect((await a.http.get("/api/snakes/champions")).body).toMatchObject({ limit: 100, offset: 0 });
  });

  it.each(["limit=0", "limit=1001", "limit=abc", "offset=-1", "offset=1.5", "limit=1&limit=2"])("champions ?%s → 400", async (query) => {
    const { http } = await player();
    expectError(await http.get(`/api/snakes/champions?${query}`), 400, "validation_failed", /limit|offset/);
  });

  it("refuses a reset body with fields", async () => {
    const { http } = await player();
    expectError(await http.post("/api/snakes/reset", { keep: true }), 400, "validation_failed");
  });
});

describe("POST /api/snakes/reset-position", () => {
  it("puts the player on square 1 with 5 lives and keeps everything earned", async () => {
    const { http } = await player();
    await http.post("/api/snakes/complete-lesson", { lesson_number: 2, bullets_earned: 12 });
    await http.post("/api/snakes/answer-question", { square: 40, correct: true, bullets_earned: 5 });
    await http.put("/api/snakes/", { lives: 1 });
    const res = await http.post("/api/snakes/reset-position");
    expect(res.status).toBe(200);
    expect(shaped(resetPositionResponse, res.body)).toMatchObject({
      message: "Position reset",
      current_square: 1,
      lives: 5,
      game_status: "active",
      total_bullets: 17,
      completed_lessons: [2],
      visited_squares: [40],
    });
  });

  it("a completed game stays completed", async () => {
    const { http } = await player();
    await unlockBoss(http);
    await http.post("/api/snakes/update-square", { square: 100 });
    const done = await http.post("/api/snakes/complete");
    const res = await http.post("/api/snakes/reset-position");
    expect(res.body).toMatchObject({ current_square: 1, game_status: "completed", completed_at: done.body.completed_at });
  });

  it("refuses a body with fields", async () => {
    const { http } = await player();
    expectError(await http.post("/api/snakes/reset-position", { square: 1 }), 400, "validation_failed");
  });
});

describe("GET /api/snakes/leaderboard", () => {
  it("orders by bullets, defaults to 10 entries and honours ?limit", async () => {
    const top: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { http, userId } = await player();
      await http.get("/api/snakes/progress");
      await t.prisma.gameProgress.update({ where: { userId }, data: { totalBullets: 100_000 + i * 10 } });
      top.unshift(userId);
    }
    const { http } = await player();
    const byDefault = shaped(leaderboardResponse, (await http.get("/api/snakes/leaderboard")).body);
    expect(byDefault).toMatchObject({ count: 10, limit: 10 });
    expect(byDefault.leaderboard.map((e) => e.user_id)).toEqual(top.slice(0, 10));
    expect(byDefault.leaderboard.map((e) => e.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(byDefault.leaderboard[0].total_bullets).toBe(100_110);

    const three = shaped(leaderboardResponse, (await http.get("/api/snakes/leaderboard?limit=3")).body);
    expect(three.leaderboard.map((e) => e.user_id)).toEqual(top.slice(0, 3));
    const many = shaped(leaderboardResponse, (await http.get("/api/snakes/leaderboard?limit=100")).body);
    const bullets = many.leaderboard.map((e) => e.total_bullets);
    expect(bullets).toEqual([...bullets].sort((a, b) => b - a));
    expect(many.count).toBe(many.leaderboard.length);
  });

  it.each(["0", "101", "-1", "abc", "5.5", "", "1e2", "10&limit=20"])("?limit=%s → 400", async (limit) => {
    const { http } = await player();
    expectError(await http.get(`/api/snakes/leaderboard?limit=${limit}`), 400, "validation_failed", /limit: must be an integer from 1 to 100/);
  });
});

describe("GET /api/snakes/active-players", () => {
  /** Ages every record so that only what a test does next counts as activity. */
  const everyoneIdle = () => t.prisma.gameProgress.updateMany({ data: { updatedAt: new Date(Date.now() - 60_000) } });

  it("lists players whose record changed in the last 10 seconds", async () => {
    await everyoneIdle();
    const recent = await player();
    const stale = await player();
    const edge = await player();
    await recent.http.put("/api/snakes/", { current_square: 4 });
    await stale.http.put("/api/snakes/", { current_square: 5 });
    await edge.http.put("/api/snakes/", { current_square: 6 });
    await t.prisma.gameProgress.update({ where: { userId: stale.userId }, data: { updatedAt: new Date(Date.now() - 11_000) } });
    await t.prisma.gameProgress.update({ where: { userId: edge.userId }, data: { updatedAt: new Date(Date.now() - 8_000) } });

    const res = await recent.http.get("/api/snakes/active-players");
    expect(res.status).toBe(200);
    const body = shaped(activePlayersResponse, res.body);
    expect(body.window_seconds).toBe(10);
    expect(body.active_players).toBe(body.players.length);
    const ids = body.players.map((p) => p.user_id);
    expect(ids).toContain(recent.userId);
    expect(ids).toContain(edge.userId);
    expect(ids).not.toContain(stale.userId);
    expect(ids.indexOf(recent.userId)).toBeLessThan(ids.indexOf(edge.userId));
    expect(body.players.find((p) => p.user_id === recent.userId)).toMatchObject({ current_square: 4, character: "knight", total_bullets: 0 });
    const times = body.players.map((p) => p.last_updated);
    expect(times).toEqual([...times].sort().reverse());

    // Autosaving brings the idle player back.
    await stale.http.put("/api/snakes/", {});
    const again = (await recent.http.get("/api/snakes/active-players")).body;
    expect(again.players.map((p: { user_id: number }) => p.user_id)).toContain(stale.userId);
  });

  it("counts every active player but lists at most 100, most recent first", async () => {
    await everyoneIdle();
    const stamp = `${process.pid}_${Date.now()}`;
    await t.prisma.user.createMany({ data: Array.from({ length: 105 }, (_, i) => ({ username: `crowd_${stamp}_${i}`, passwordHash: "x" })) });
    const crowd = await t.prisma.user.findMany({ where: { username: { startsWith: `crowd_${stamp}_` } } });
    await t.prisma.gameProgress.createMany({ data: crowd.map((u) => ({ userId: u.id })) });
    const { http } = await player();
    await http.put("/api/snakes/", {});
    const body = shaped(activePlayersResponse, (await http.get("/api/snakes/active-players")).body);
    expect(body.active_players).toBe(106);
    expect(body.players).toHaveLength(100);
  });
});

describe("GET /api/snakes/unvisited-squares", () => {
  it("counts the question squares 7..56 not yet answered", async () => {
    const { http } = await player();
    const fresh = shaped(unvisitedSquaresResponse, (await http.get("/api/snakes/unvisited-squares")).body);
    expect(fresh).toMatchObject({ visited_squares: [], visited_count: 0, unvisited_count: 50, total_question_squares: 50 });
    expect(fresh.unvisited_squares).toEqual(Array.from({ length: 50 }, (_, i) => 7 + i));

    for (const square of [30, 7, 56]) await http.post("/api/snakes/answer-question", { square, correct: square !== 30 });
    await http.post("/api/snakes/update-square", { square: 20 });
    const later = shaped(unvisitedSquaresResponse, (await http.get("/api/snakes/unvisited-squares")).body);
    expect(later).toMatchObject({ visited_squares: [7, 30, 56], visited_count: 3, unvisited_count: 47 });
    expect(later.unvisited_squares).not.toContain(30);
    expect(later.unvisited_squares).toContain(20);
    expect(later.unvisited_squares).toHaveLength(47);
  });
});

describe("the original game client's REST calls (issue 10, fault 11)", () => {
  it("replays its sequence: POST /api/snakes/ creates the record, autosaves with selected_character are accepted, responses carry selected_character", async () => {
    const { http, userId } = await player();
    // A new player: the client creates the record with the chosen character (201), once.
    const created = await http.post("/api/snakes/", { selected_character: "archer" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(shaped(progressStateSchema, created.body)).toMatchObject({ user_id: userId, character: "archer", selected_character: "archer", current_square: 1 });
    const again = await http.post("/api/snakes/", { selected_character: "wizard" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ character: "archer", selected_character: "archer" });
    expect(await t.prisma.gameProgress.count({ where: { userId } })).toBe(1);

    // It reads the state back, then autosaves every 10 s with its whole local copy.
    const read = await http.get("/api/snakes/");
    expect(read.body.selected_character).toBe("archer");
    await http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 10 });
    const autosave = {
      total_bullets: 999,
      time_played: 42.5,
      current_square: 12,
      visited_squares: [7, 8, 9],
      lives: 4,
      boss_battle_attempts: 3,
      selected_character: "wizard",
    };
    const saved = await http.put("/api/snakes/", autosave);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const body = shaped(saveStateResponse, saved.body);
    expect(body).toMatchObject({ time_played: 42.5, current_square: 12, lives: 4, character: "wizard", selected_character: "wizard", total_bullets: 10, visited_squares: [], boss_battle_attempts: 0 });
    expect([...body.ignored_fields].sort()).toEqual(["boss_battle_attempts", "total_bullets", "visited_squares"]);
    // Later versions add completed_lessons and unlocked_sections: still server-owned, still ignored.
    const later = await http.put("/api/snakes/update-game", { ...autosave, time_played: 50, completed_lessons: [1, 2, 3, 4, 5], unlocked_sections: ["half1", "half2", "boss"] });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ completed_lessons: [1], unlocked_sections: ["half1"], time_played: 50 });
    expect(later.body.ignored_fields).toEqual(expect.arrayContaining(["completed_lessons", "unlocked_sections"]));
    expect((await http.post("/api/snakes/update-square", { square: 13 })).body.current_square).toBe(13);

    // Its default character name is "default": the service's default character.
    expect((await http.put("/api/snakes/", { selected_character: "default" })).body.character).toBe("knight");
  });

  it("refuses what it would refuse from anyone: unknown characters, two different characters, unknown fields", async () => {
    const { http } = await player();
    expectError(await http.post("/api/snakes/", { selected_character: "dragon" }), 400, "validation_failed", /selected_character/);
    expectError(await http.put("/api/snakes/", { character: "archer", selected_character: "wizard" }), 400, "validation_failed", /selected_character/);
    expectError(await http.post("/api/snakes/", { selected_character: "archer", cheat: 1 }), 400, "validation_failed", /cheat/);
    expect((await http.put("/api/snakes/", { character: "archer", selected_character: "archer" })).status).toBe(200);
  });

  it("POST /api/snakes/ without a body creates the record with the default character", async () => {
    const { http } = await player();
    const res = await http.post("/api/snakes/");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ character: "knight", selected_character: "knight" });
  });
});
