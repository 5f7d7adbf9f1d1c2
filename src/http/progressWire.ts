// The JSON shapes of the progress API (snake_case, like the spec) and the one mapping from a stored
// record to them. The zod schemas document the responses (OpenAPI) and let tests check real bodies.
import { z } from "zod";
import {
  ACTIVE_PLAYER_WINDOW_MS,
  BOARD_FINAL_SQUARE,
  BOARD_FIRST_SQUARE,
  CHAMPIONS_DEFAULT_LIMIT,
  CHAMPIONS_MAX_LIMIT,
  CHARACTERS,
  DEFAULT_CHARACTER,
  GAME_STATUSES,
  LEADERBOARD_DEFAULT_LIMIT,
  LEADERBOARD_MAX_LIMIT,
  LESSON_MAX,
  LESSON_MIN,
  MAX_BONUS_BULLETS_PER_GAME,
  MAX_BONUS_BULLETS_PER_GRANT,
  MAX_BULLETS_PER_LESSON,
  MAX_BULLETS_PER_QUESTION,
  MAX_LIVES,
  MAX_TIME_PLAYED_SECONDS,
  MIN_LIVES,
  QUESTION_SECTION_MAX_SQUARE,
  QUESTION_SECTION_MIN_SQUARE,
  SECTIONS,
  type Character,
  type GameStatus,
  type Section,
} from "../game/progress.js";
import type { ProgressWithUser } from "../stores/progress.js";
import { withTextRule } from "../protocol/text.js";

const count = z.number().int().min(0);
const timestamp = z.iso.datetime();

export const progressStateSchema = z
  .object({
    user_id: z.number().int().describe("The player's user id"),
    username: z.string(),
    current_square: z.number().int().min(BOARD_FIRST_SQUARE).max(BOARD_FINAL_SQUARE),
    total_bullets: count.describe("Bullets owned"),
    lives: z.number().int().min(MIN_LIVES).max(MAX_LIVES),
    game_status: z.enum(GAME_STATUSES),
    completed_at: timestamp.nullable().describe("When the current game was completed; null until then and after a reset"),
    champion_at: timestamp.nullable().describe("First completion ever; survives resets (Hall of Champions)"),
    boss_battle_attempts: count,
    boss_victories: count.describe("Recorded boss victories in the current game"),
    bonus_bullets: count.max(MAX_BONUS_BULLETS_PER_GAME).describe("Bullets granted by add-bullets in the current game"),
    completed_lessons: z.array(z.number().int().min(LESSON_MIN).max(LESSON_MAX)).describe("Lesson numbers, in completion order"),
    visited_squares: z.array(z.number().int()).describe("Answered question squares, and squares reached outside the question section (1..6, 57..100), in order"),
    unlocked_sections: z.array(z.enum(SECTIONS)),
    character: z.enum(CHARACTERS),
    selected_character: z.enum(CHARACTERS).describe("The same as character, under the original game client's name for it"),
    time_played: z.number().min(0).describe("Seconds"),
    last_updated: timestamp,
  })
  .strict();
export type ProgressState = z.infer<typeof progressStateSchema>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toProgressState(p: ProgressWithUser): ProgressState {
  return {
    user_id: p.userId,
    username: p.user.username,
    current_square: p.currentSquare,
    total_bullets: p.totalBullets,
    lives: p.lives,
    game_status: p.gameStatus as GameStatus,
    completed_at: iso(p.completedAt),
    champion_at: iso(p.championAt),
    boss_battle_attempts: p.bossBattleAttempts,
    boss_victories: p.bossVictories,
    bonus_bullets: p.bonusBullets,
    completed_lessons: p.completedLessons,
    visited_squares: p.visitedSquares,
    unlocked_sections: p.unlockedSections as Section[],
    character: p.character as Character,
    selected_character: p.character as Character,
    time_played: p.timePlayed,
    last_updated: p.updatedAt.toISOString(),
  };
}

export const activePlayerSchema = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    character: z.enum(CHARACTERS),
    current_square: z.number().int(),
    total_bullets: count,
    last_updated: timestamp,
  })
  .strict();

export const toActivePlayer = (p: ProgressWithUser): z.infer<typeof activePlayerSchema> => ({
  user_id: p.userId,
  username: p.user.username,
  character: p.character as Character,
  current_square: p.currentSquare,
  total_bullets: p.totalBullets,
  last_updated: p.updatedAt.toISOString(),
});

export const championSchema = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    character: z.enum(CHARACTERS),
    total_bullets: count,
    time_played: z.number().min(0),
    completed_at: timestamp.describe("First completion (champion_at); a later reset or completion does not change it"),
  })
  .strict();

export const toChampion = (p: ProgressWithUser): z.infer<typeof championSchema> => ({
  user_id: p.userId,
  username: p.user.username,
  character: p.character as Character,
  total_bullets: p.totalBullets,
  time_played: p.timePlayed,
  completed_at: p.championAt!.toISOString(),
});

export const leaderboardEntrySchema = z
  .object({
    rank: z.number().int().min(1),
    user_id: z.number().int(),
    username: z.string(),
    character: z.enum(CHARACTERS),
    total_bullets: count,
    current_square: z.number().int(),
    game_status: z.enum(GAME_STATUSES),
    time_played: z.number().min(0),
  })
  .strict();

export const toLeaderboardEntry = (p: ProgressWithUser, index: number): z.infer<typeof leaderboardEntrySchema> => ({
  rank: index + 1,
  user_id: p.userId,
  username: p.user.username,
  character: p.character as Character,
  total_bullets: p.totalBullets,
  current_square: p.currentSquare,
  game_status: p.gameStatus as GameStatus,
  time_played: p.timePlayed,
});

// ---------------------------------------------------------------------------------------------
// Requests. Objects are strict (unknown fields → 400) and numbers are never coerced: "3" and true
// are not lesson 3.
// ---------------------------------------------------------------------------------------------

function integerIn(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A query-string integer: digits only, within bounds, or absent (→ fallback). */
export function queryIntegerIn(min: number, max: number, fallback: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return withTextRule(z.string({ error }), "identifier")
    // As many digits as the largest value has (a bound, before Number(): a 400-digit string is no number to parse).
    .regex(new RegExp(`^[0-9]{1,${String(max).length}}$`), { error })
    .transform(Number)
    .pipe(z.number().int().min(min, { error }).max(max, { error }))
    .default(fallback);
}

export const completeLessonBody = z
  .object({
    lesson_number: integerIn(LESSON_MIN, LESSON_MAX),
    bullets_earned: integerIn(0, MAX_BULLETS_PER_LESSON).default(0).describe("Paid only the first time the lesson is completed"),
  })
  .strict();

export const answerQuestionBody = z
  .object({
    square: integerIn(QUESTION_SECTION_MIN_SQUARE, QUESTION_SECTION_MAX_SQUARE),
    correct: z.boolean({ error: "must be true or false" }),
    bullets_earned: integerIn(0, MAX_BULLETS_PER_QUESTION)
      .default(0)
      .describe("Paid only for a correct first answer to the square; a wrong answer earns 0 whatever this says"),
  })
  .strict();

/** Fields the client owns: the only ones an autosave writes. */
const clientOwnedFields = {
  current_square: integerIn(BOARD_FIRST_SQUARE, BOARD_FINAL_SQUARE).optional().describe("Must lie in an unlocked section"),
  lives: integerIn(MIN_LIVES, MAX_LIVES).optional(),
  time_played: z
    .number({ error: `must be a number of seconds from 0 to ${MAX_TIME_PLAYED_SECONDS}` })
    .min(0, { error: `must be a number of seconds from 0 to ${MAX_TIME_PLAYED_SECONDS}` })
    .max(MAX_TIME_PLAYED_SECONDS, { error: `must be a number of seconds from 0 to ${MAX_TIME_PLAYED_SECONDS}` })
    .optional()
    .describe("Seconds; a value below the stored one is ignored (play time never goes backwards)"),
  character: characterChoice().optional(),
  selected_character: characterChoice().optional().describe("The original client's name for character"),
};

/** A character name; "default" (the original client's initial value) means the default character. */
function characterChoice() {
  return z
    .enum([...CHARACTERS, "default"], { error: `must be one of ${CHARACTERS.join(", ")}` })
    .transform((c): Character => (c === "default" ? DEFAULT_CHARACTER : c));
}

/** character and selected_character name one field: both may be sent, but not with different values. */
function oneCharacter(body: { character?: Character; selected_character?: Character }, ctx: z.RefinementCtx): void {
  if (body.character !== undefined && body.selected_character !== undefined && body.character !== body.selected_character) {
    ctx.addIssue({ code: "custom", path: ["selected_character"], message: "must equal character when both are sent" });
  }
}

/** The character a body chose, under either name. */
export const chosenCharacter = (body: { character?: Character; selected_character?: Character }): Character | undefined =>
  body.character ?? body.selected_character;

/**
 * Fields of the game state that only the server changes. A client may send them back (the original
 * autosave sent its whole state) but they are ignored, so a stale copy cannot overwrite them.
 */
export const SERVER_OWNED_FIELDS = Object.keys(progressStateSchema.shape).filter((key) => !(key in clientOwnedFields));

export const clientStateBody = z
  .object({
    ...clientOwnedFields,
    ...Object.fromEntries(SERVER_OWNED_FIELDS.map((key) => [key, z.unknown().optional().describe("Server-owned: accepted and ignored")])),
  })
  .strict()
  .superRefine(oneCharacter);

/** POST /api/snakes/: the original client creates its record with the chosen character. */
export const createRecordBody = z
  .object({ character: clientOwnedFields.character, selected_character: clientOwnedFields.selected_character })
  .strict()
  .superRefine(oneCharacter);

export const addBulletsBody = z.object({ bullets: integerIn(1, MAX_BONUS_BULLETS_PER_GRANT) }).strict();

export const updateSquareBody = z.object({ square: integerIn(BOARD_FIRST_SQUARE, BOARD_FINAL_SQUARE) }).strict();

/** Routes that take no input refuse a body with fields rather than silently ignore it. */
export const emptyBody = z.object({}).strict();

export const leaderboardQuery = z.object({ limit: queryIntegerIn(1, LEADERBOARD_MAX_LIMIT, LEADERBOARD_DEFAULT_LIMIT) });

export const championsQuery = z.object({
  limit: queryIntegerIn(1, CHAMPIONS_MAX_LIMIT, CHAMPIONS_DEFAULT_LIMIT),
  offset: queryIntegerIn(0, 1_000_000_000, 0),
});

// ---------------------------------------------------------------------------------------------
// Responses: the full game state plus what the route did.
// ---------------------------------------------------------------------------------------------

const newlyUnlocked = z.array(z.enum(SECTIONS)).describe("Sections this request unlocked");

export const completeLessonResponse = progressStateSchema.extend({
  message: z.string(),
  lesson_number: z.number().int(),
  bullets_awarded: count,
  already_completed: z.boolean().describe("True when the lesson had been completed before (nothing paid)"),
  newly_unlocked_sections: newlyUnlocked,
});

export const answerQuestionResponse = progressStateSchema.extend({
  message: z.string(),
  square: z.number().int(),
  correct: z.boolean(),
  bullets_awarded: count,
  first_answer: z.boolean().describe("False when the square had been answered before (nothing paid)"),
  newly_unlocked_sections: newlyUnlocked,
});

export const saveStateResponse = progressStateSchema.extend({
  ignored_fields: z.array(z.string()).describe("Server-owned fields present in the request, ignored"),
});

export const completeResponse = progressStateSchema.extend({
  message: z.string(),
  already_completed: z.boolean().describe("True when the game had been completed before; completed_at was kept"),
});

export const resetResponse = progressStateSchema.extend({
  message: z.string(),
  was_champion: z.boolean(),
});

export const resetPositionResponse = progressStateSchema.extend({ message: z.string() });

export const addBulletsResponse = progressStateSchema.extend({
  bullets_added: z.number().int().min(1),
  bonus_bullets_remaining: count.describe("What add-bullets may still grant in this game"),
});

export const activePlayersResponse = z
  .object({
    active_players: count.describe(`Players whose record changed in the last ${ACTIVE_PLAYER_WINDOW_MS / 1000} seconds`),
    players: z.array(activePlayerSchema).describe("Most recent first; at most 100 listed"),
    window_seconds: z.number(),
  })
  .strict();

export const championsResponse = z
  .object({
    champions: z.array(championSchema),
    count: count.describe("All champions, not only this page"),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .strict();

export const leaderboardResponse = z
  .object({
    leaderboard: z.array(leaderboardEntrySchema),
    count: count.describe("Entries returned"),
    limit: z.number().int(),
  })
  .strict();

export const unvisitedSquaresResponse = z
  .object({
    unvisited_squares: z.array(z.number().int()),
    visited_squares: z.array(z.number().int()),
    unvisited_count: count,
    visited_count: count,
    total_question_squares: count,
  })
  .strict();

export const errorResponse = z
  .object({
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
  })
  .strict();
