// The board game's rules, with no I/O: board layout, lesson and question ranges, the bullet bounds,
// which section each square needs, and what unlocks each section. The store and the routes use
// these values; nothing else decides them.

export const BOARD_FIRST_SQUARE = 1;
export const BOARD_FINAL_SQUARE = 100;
/** Squares 1..6 hold the five lessons. */
export const LESSON_SECTION_LAST_SQUARE = 6;
export const QUESTION_SECTION_MIN_SQUARE = 7;
export const QUESTION_SECTION_MAX_SQUARE = 56;
export const QUESTION_SQUARE_COUNT = QUESTION_SECTION_MAX_SQUARE - QUESTION_SECTION_MIN_SQUARE + 1;

export const LESSON_MIN = 1;
export const LESSON_MAX = 5;
/** half2 opens once every one of these lessons has been completed. */
export const ALL_LESSONS: readonly number[] = Array.from({ length: LESSON_MAX - LESSON_MIN + 1 }, (_, i) => LESSON_MIN + i);

/**
 * Bullets a client may claim for one lesson and for one correct answer. The server has no answer key,
 * so it cannot verify the amount; it bounds it instead. With these bounds a full board pays at most
 * 5 × 20 + 50 × 10 = 600 bullets, and one lesson or two correct answers cover the 10 bullets the boss
 * battle asks for.
 */
export const MAX_BULLETS_PER_LESSON = 20;
export const MAX_BULLETS_PER_QUESTION = 10;
/** add-bullets: one grant is worth at most one question… */
export const MAX_BONUS_BULLETS_PER_GRANT = MAX_BULLETS_PER_QUESTION;
/** …and all grants of one game (until a reset) at most five questions. */
export const MAX_BONUS_BULLETS_PER_GAME = 50;

export const STARTING_LIVES = 5;
export const MAX_LIVES = 5;
export const MIN_LIVES = 0;

/** Upper bound for the client-reported play time (seconds): ten years, i.e. "any sane value". */
export const MAX_TIME_PLAYED_SECONDS = 10 * 365 * 24 * 3600;

export const CHARACTERS = ["knight", "wizard", "archer", "warrior"] as const;
export type Character = (typeof CHARACTERS)[number];
export const DEFAULT_CHARACTER: Character = "knight";

export const SECTIONS = ["half1", "half2", "boss"] as const;
export type Section = (typeof SECTIONS)[number];
export const INITIAL_SECTIONS: readonly Section[] = ["half1"];

export const GAME_STATUSES = ["active", "completed"] as const;
export type GameStatus = (typeof GAME_STATUSES)[number];

/** A record counts as an active player when it was written within this window. */
export const ACTIVE_PLAYER_WINDOW_MS = 10_000;

export const LEADERBOARD_DEFAULT_LIMIT = 10;
export const LEADERBOARD_MAX_LIMIT = 100;
export const CHAMPIONS_DEFAULT_LIMIT = 100;
export const CHAMPIONS_MAX_LIMIT = 1000;
/** At most this many active players are listed (the count covers all of them). */
export const ACTIVE_PLAYERS_MAX_LISTED = 100;

/**
 * The section a player must have unlocked to stand on a square: the lesson squares are always open,
 * the question squares need half1 (every record has it from the start), and everything after the
 * last question square needs the boss section.
 */
export function sectionRequiredFor(square: number): Section | null {
  if (square <= LESSON_SECTION_LAST_SQUARE) return null;
  if (square <= QUESTION_SECTION_MAX_SQUARE) return "half1";
  return "boss";
}

/**
 * Whether arriving on a square (update-square) marks it visited. A question square (7..56) counts
 * as visited only once answered, because its first answer is what pays (answer-question); every
 * other square is visited by standing on it.
 */
export const visitedOnArrival = (square: number): boolean => square < QUESTION_SECTION_MIN_SQUARE || square > QUESTION_SECTION_MAX_SQUARE;

/** Answering the last question square (or beyond) opens the boss section. */
export const answerUnlocksBoss = (square: number): boolean => square >= QUESTION_SECTION_MAX_SQUARE;

/** A wrong answer earns nothing, whatever the client claims. */
export const bulletsForAnswer = (correct: boolean, claimed: number): number => (correct ? claimed : 0);

export function bonusBulletsRemaining(bonusBulletsGranted: number): number {
  return Math.max(0, MAX_BONUS_BULLETS_PER_GAME - bonusBulletsGranted);
}

/** Question squares split into visited and unvisited, both ascending. */
export function questionSquareCoverage(visitedSquares: readonly number[]): { visited: number[]; unvisited: number[] } {
  const seen = new Set(visitedSquares);
  const visited: number[] = [];
  const unvisited: number[] = [];
  for (let square = QUESTION_SECTION_MIN_SQUARE; square <= QUESTION_SECTION_MAX_SQUARE; square++) {
    (seen.has(square) ? visited : unvisited).push(square);
  }
  return { visited, unvisited };
}
