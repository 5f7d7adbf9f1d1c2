import { describe, expect, it } from "vitest";
import {
  ALL_LESSONS,
  MAX_BONUS_BULLETS_PER_GAME,
  MAX_BONUS_BULLETS_PER_GRANT,
  MAX_BULLETS_PER_LESSON,
  MAX_BULLETS_PER_QUESTION,
  QUESTION_SQUARE_COUNT,
  answerUnlocksBoss,
  bonusBulletsRemaining,
  bulletsForAnswer,
  questionSquareCoverage,
  sectionRequiredFor,
} from "../../src/game/progress.js";
import {
  addBulletsBody,
  answerQuestionBody,
  championsQuery,
  clientStateBody,
  completeLessonBody,
  leaderboardQuery,
  SERVER_OWNED_FIELDS,
  updateSquareBody,
} from "../../src/http/progressWire.js";

describe("board layout", () => {
  it("has five lessons and fifty question squares 7..56", () => {
    expect(ALL_LESSONS).toEqual([1, 2, 3, 4, 5]);
    expect(QUESTION_SQUARE_COUNT).toBe(50);
  });

  it("keeps the documented bullet bounds", () => {
    expect(MAX_BULLETS_PER_LESSON).toBe(20);
    expect(MAX_BULLETS_PER_QUESTION).toBe(10);
    expect(MAX_BONUS_BULLETS_PER_GRANT).toBe(MAX_BULLETS_PER_QUESTION);
    expect(MAX_BONUS_BULLETS_PER_GAME).toBe(50);
  });
});

describe("sections and movement", () => {
  it("needs no section for lesson squares, half1 for question squares, boss beyond 56", () => {
    expect(sectionRequiredFor(1)).toBeNull();
    expect(sectionRequiredFor(6)).toBeNull();
    expect(sectionRequiredFor(7)).toBe("half1");
    expect(sectionRequiredFor(56)).toBe("half1");
    expect(sectionRequiredFor(57)).toBe("boss");
    expect(sectionRequiredFor(100)).toBe("boss");
  });

  it("unlocks the boss from square 56", () => {
    expect(answerUnlocksBoss(55)).toBe(false);
    expect(answerUnlocksBoss(56)).toBe(true);
  });
});

describe("bullets", () => {
  it("pays a wrong answer nothing whatever the claim", () => {
    expect(bulletsForAnswer(true, 7)).toBe(7);
    expect(bulletsForAnswer(false, 10)).toBe(0);
  });

  it("reports the bonus still available, never negative", () => {
    expect(bonusBulletsRemaining(0)).toBe(50);
    expect(bonusBulletsRemaining(45)).toBe(5);
    expect(bonusBulletsRemaining(80)).toBe(0);
  });
});

describe("question square coverage", () => {
  it("splits 7..56 into visited and unvisited, ascending, ignoring squares outside the section", () => {
    const { visited, unvisited } = questionSquareCoverage([30, 7, 56, 3, 99, 30]);
    expect(visited).toEqual([7, 30, 56]);
    expect(unvisited).toHaveLength(47);
    expect(unvisited[0]).toBe(8);
    expect(unvisited.at(-1)).toBe(55);
    expect(questionSquareCoverage([]).unvisited).toHaveLength(50);
  });
});

describe("request validation", () => {
  const ok = (schema: { safeParse(v: unknown): { success: boolean } }, v: unknown) => schema.safeParse(v).success;

  it("takes only integer lessons 1..5 and bounded bullets", () => {
    expect(completeLessonBody.parse({ lesson_number: 3 })).toEqual({ lesson_number: 3, bullets_earned: 0 });
    for (const lesson_number of [0, 6, true, "3", 2.5, null]) expect(ok(completeLessonBody, { lesson_number }), String(lesson_number)).toBe(false);
    expect(ok(completeLessonBody, { lesson_number: 1, bullets_earned: 20 })).toBe(true);
    for (const bullets_earned of [-1, 21, 1.5, "5"]) expect(ok(completeLessonBody, { lesson_number: 1, bullets_earned })).toBe(false);
    expect(ok(completeLessonBody, { lesson_number: 1, extra: 1 })).toBe(false);
  });

  it("takes question squares 7..56, a real boolean and bounded bullets", () => {
    expect(ok(answerQuestionBody, { square: 7, correct: true, bullets_earned: 10 })).toBe(true);
    expect(ok(answerQuestionBody, { square: 56, correct: false })).toBe(true);
    for (const square of [6, 57, "7", 7.5]) expect(ok(answerQuestionBody, { square, correct: true })).toBe(false);
    for (const correct of ["false", "true", 1, 0, null, undefined]) expect(ok(answerQuestionBody, { square: 9, correct })).toBe(false);
    expect(ok(answerQuestionBody, { square: 9, correct: true, bullets_earned: 11 })).toBe(false);
  });

  it("autosave: validates client fields, accepts and ignores server-owned ones, refuses the rest", () => {
    expect(SERVER_OWNED_FIELDS).toEqual(expect.arrayContaining(["total_bullets", "completed_lessons", "unlocked_sections", "game_status", "visited_squares"]));
    expect(SERVER_OWNED_FIELDS).not.toContain("lives");
    expect(ok(clientStateBody, {})).toBe(true);
    expect(ok(clientStateBody, { current_square: 100, lives: 0, time_played: 12.5, character: "wizard" })).toBe(true);
    expect(ok(clientStateBody, { total_bullets: 9999, unlocked_sections: ["boss"], game_status: "completed" })).toBe(true);
    expect(ok(clientStateBody, { selected_character: "knight" })).toBe(true); // the original client's name for character
    for (const bad of [{ lives: 6 }, { lives: -1 }, { current_square: 0 }, { current_square: 101 }, { time_played: -1 }, { character: "ninja" }, { selected_character: "ninja" }, { character: "knight", selected_character: "wizard" }, { cheat: 1 }]) {
      expect(ok(clientStateBody, bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("add-bullets and update-square bounds", () => {
    expect(ok(addBulletsBody, { bullets: 1 })).toBe(true);
    expect(ok(addBulletsBody, { bullets: 10 })).toBe(true);
    for (const bullets of [0, 11, -5, 1e9, "5"]) expect(ok(addBulletsBody, { bullets })).toBe(false);
    expect(ok(updateSquareBody, { square: 1 })).toBe(true);
    expect(ok(updateSquareBody, { square: 100 })).toBe(true);
    for (const square of [0, 101, "50"]) expect(ok(updateSquareBody, { square })).toBe(false);
  });

  it("query integers: digits only, bounded, with defaults", () => {
    expect(leaderboardQuery.parse({})).toEqual({ limit: 10 });
    expect(leaderboardQuery.parse({ limit: "100" })).toEqual({ limit: 100 });
    for (const limit of ["0", "101", "-1", "abc", "5.5", "", ["1", "2"], "1e2"]) expect(ok(leaderboardQuery, { limit }), String(limit)).toBe(false);
    expect(championsQuery.parse({})).toEqual({ limit: 100, offset: 0 });
    expect(ok(championsQuery, { limit: "1001" })).toBe(false);
  });
});
