// OpenAPI 3.1 description of /api/snakes/*. Request and response schemas are generated from the
// zod schemas the routes validate with (and the tests check bodies against), so they cannot drift.
import { z } from "zod";
import {
  ACTIVE_PLAYER_WINDOW_MS,
  CHAMPIONS_DEFAULT_LIMIT,
  CHAMPIONS_MAX_LIMIT,
  LEADERBOARD_DEFAULT_LIMIT,
  LEADERBOARD_MAX_LIMIT,
  MAX_BONUS_BULLETS_PER_GAME,
  MAX_BONUS_BULLETS_PER_GRANT,
  MAX_BULLETS_PER_LESSON,
  MAX_BULLETS_PER_QUESTION,
} from "../../game/progress.js";
import * as wire from "../progressWire.js";
import { authErrors, errorResponse, withOperationIds } from "./common.js";

type JsonSchema = Record<string, unknown>;

/** Drops generator noise: the date-time regex (the format says it) and the ±2^53 bounds of plain integers. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "pattern" && (node as JsonSchema).format === "date-time") continue;
    if ((key === "minimum" || key === "maximum") && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(value);
  }
  return out;
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return tidy(rest) as JsonSchema;
}

const json = (schema: z.ZodType, io: "input" | "output") => ({ "application/json": { schema: schemaOf(schema, io) } });
const bodyErrors = {
  "400": errorResponse("Invalid body (`validation_failed`, listing every problem in `details.problems`) or malformed JSON (`invalid_json`)"),
  "413": errorResponse("Body larger than 16 kB (`payload_too_large`)"),
  "429": errorResponse("Too many writes from this account (`rate_limited`, with Retry-After; RATE_LIMIT_WRITES)"),
};
const sectionLocked = errorResponse(
  "Session token expired (`token_expired`), or the square lies in a section the player has not unlocked (`section_locked`, `details.required_section`)",
);

function operation(spec: {
  summary: string;
  description: string;
  request?: z.ZodType;
  requestRequired?: boolean;
  parameters?: unknown[];
  response: z.ZodType;
  extraErrors?: Record<string, unknown>;
}) {
  return {
    tags: ["progress"],
    summary: spec.summary,
    description: spec.description,
    security: [{ sessionCookie: [] }],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.request ? { requestBody: { required: spec.requestRequired ?? true, content: json(spec.request, "input") } } : {}),
    responses: {
      "200": { description: "OK", content: json(spec.response, "output") },
      ...authErrors,
      ...(spec.request ? bodyErrors : {}),
      ...spec.extraErrors,
    },
  };
}

const queryInteger = (name: string, min: number, max: number, fallback: number, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} Digits only; anything else, or a value outside ${min}..${max}, is a 400.`,
  schema: { type: "integer", minimum: min, maximum: max, default: fallback },
});

const getState = (summary: string) =>
  operation({
    summary,
    description: "The player's full game state. Creates the record with the defaults on the first request (safe under concurrent first requests). Reading never changes `last_updated`.",
    response: wire.progressStateSchema,
  });

const getExistingState = operation({
  summary: "Full game state (404 before the record exists)",
  description:
    "The player's full game state. A player without a record gets 404 `no_progress` (nothing is created): the original web client then creates it with POST and the character the player picked. " +
    "Reading never changes `last_updated`.",
  response: wire.progressStateSchema,
  extraErrors: { "404": errorResponse("The player has no game record yet (`no_progress`): POST /api/snakes/ creates it") },
});

const saveState = (summary: string) =>
  operation({
    summary,
    description:
      "Autosave. Writes only the client-owned fields `current_square`, `lives`, `time_played` and `character` (or its alias `selected_character`, as the original client sends it; \"default\" means knight), and marks the player active. " +
      "Server-owned fields (bullets, lessons, visited squares, sections, status, timestamps…) may be sent back but are ignored and listed in `ignored_fields`, " +
      "so a stale copy never overwrites them. `time_played` never decreases. Unknown fields are a 400. " +
      "A `current_square` in a locked section refuses the whole save with 403.",
    request: wire.clientStateBody,
    response: wire.saveStateResponse,
    extraErrors: { "403": sectionLocked },
  });

const emptyRequest = { request: wire.emptyBody, requestRequired: false };

const OPERATION_IDS = {
  "GET /api/snakes/": "getGameState",
  "POST /api/snakes/": "createGameRecord",
  "PUT /api/snakes/": "saveGameState",
  "GET /api/snakes/progress": "getProgress",
  "PUT /api/snakes/update-game": "updateGame",
  "POST /api/snakes/complete-lesson": "completeLesson",
  "POST /api/snakes/answer-question": "answerQuestion",
  "POST /api/snakes/update-square": "updateSquare",
  "POST /api/snakes/add-bullets": "addBullets",
  "POST /api/snakes/complete": "completeGame",
  "POST /api/snakes/reset": "resetGame",
  "POST /api/snakes/reset-position": "resetPosition",
  "GET /api/snakes/active-players": "getActivePlayers",
  "GET /api/snakes/champions": "getChampions",
  "GET /api/snakes/leaderboard": "getLeaderboard",
  "GET /api/snakes/unvisited-squares": "getUnvisitedSquares",
};

export const progressPaths = withOperationIds({
  "/api/snakes/": {
    get: getExistingState,
    post: (() => {
      const op = operation({
        summary: "Create the record (the original game client's call)",
        description:
          "Creates the progress record with the chosen character (`selected_character` or `character`; default knight) and answers 201 with the state. " +
          "When the record exists it is left as it is and the state comes with 200. (The original client calls this after GET answered 404; GET /api/snakes/progress creates the record with the defaults instead.)",
        request: wire.createRecordBody,
        requestRequired: false,
        response: wire.progressStateSchema,
      });
      return { ...op, responses: { "201": { description: "Created", content: op.responses["200"].content }, ...op.responses } };
    })(),
    put: saveState("Autosave the client-owned state"),
  },
  "/api/snakes/progress": {
    get: getState("Progress (created when missing)"),
  },
  "/api/snakes/update-game": {
    put: saveState("Update the client-owned state (same as PUT /api/snakes/)"),
  },
  "/api/snakes/complete-lesson": {
    post: operation({
      summary: "Complete a lesson",
      description:
        `Appends the lesson and pays \`bullets_earned\` (0..${MAX_BULLETS_PER_LESSON}) the first time only; a repeat is a 200 with \`already_completed: true\` that pays nothing. ` +
        "Completing the fifth distinct lesson unlocks `half2`.",
      request: wire.completeLessonBody,
      response: wire.completeLessonResponse,
    }),
  },
  "/api/snakes/answer-question": {
    post: operation({
      summary: "Answer the question on a square",
      description:
        `Moves the player to \`square\` (7..56) and logs the answer. The first answer to a square decides its payment: \`bullets_earned\` (0..${MAX_BULLETS_PER_QUESTION}) when \`correct\` is true, nothing when false; ` +
        "later answers are logged but pay nothing (`first_answer: false`). The square is added to `visited_squares` on its first answer. Answering square 56 unlocks `boss`.",
      request: wire.answerQuestionBody,
      response: wire.answerQuestionResponse,
      extraErrors: { "403": sectionLocked },
    }),
  },
  "/api/snakes/update-square": {
    post: operation({
      summary: "Move to a square",
      description:
        "Sets `current_square` (1..100). Squares 1..6 are always open, 7..56 need `half1`, 57..100 need `boss`. " +
        "Answers with the updated position and visited list: a square outside the question section (1..6, 57..100) joins `visited_squares` on arrival; " +
        "a question square (7..56) only when answered, so its first answer still pays. Standing on square 100 allows POST /complete.",
      request: wire.updateSquareBody,
      response: wire.progressStateSchema,
      extraErrors: { "403": sectionLocked },
    }),
  },
  "/api/snakes/add-bullets": {
    post: operation({
      summary: "Grant bonus bullets",
      description:
        `Adds 1..${MAX_BONUS_BULLETS_PER_GRANT} bullets (one question's worth) for rewards the server cannot verify. ` +
        `All grants of one game (until a reset) are capped at ${MAX_BONUS_BULLETS_PER_GAME}, counted in \`bonus_bullets\`; beyond that the call is refused with 409.`,
      request: wire.addBulletsBody,
      response: wire.addBulletsResponse,
      extraErrors: { "409": errorResponse("The per-game bonus is used up (`bonus_bullets_exhausted`, `details.bonus_bullets_remaining`); nothing was added") },
    }),
  },
  "/api/snakes/complete": {
    post: operation({
      summary: "Complete the game",
      description:
        "Sets `game_status` to 'completed'. Allowed when the player stands on square 100, has a recorded boss victory, or has already completed this game. " +
        "Idempotent: `completed_at` and `champion_at` keep their first value. The player joins the Hall of Champions. Takes no body (an empty object is accepted).",
      ...emptyRequest,
      response: wire.completeResponse,
      extraErrors: { "409": errorResponse("Neither square 100 nor a boss victory (`game_not_finished`); nothing was written") },
    }),
  },
  "/api/snakes/reset": {
    post: operation({
      summary: "Start a new game",
      description:
        "Every field back to its default (square 1, 0 bullets, 5 lives, no lessons, no visited squares, sections ['half1'], knight, 0 s, active, no completion, bonus allowance restored) " +
        "and the answer log cleared. `champion_at` is kept, so a champion stays in the Hall of Champions.",
      ...emptyRequest,
      response: wire.resetResponse,
    }),
  },
  "/api/snakes/reset-position": {
    post: operation({
      summary: "Back to square 1 (boss retry)",
      description: "Sets `current_square` to 1 and `lives` to 5; `game_status` becomes 'active' unless the game is completed. Bullets, lessons and sections are kept.",
      ...emptyRequest,
      response: wire.resetPositionResponse,
    }),
  },
  "/api/snakes/active-players": {
    get: operation({
      summary: "Players active right now",
      description: `Records written in the last ${ACTIVE_PLAYER_WINDOW_MS / 1000} seconds (an autosave counts; reading does not), most recent first. The count covers all of them; at most 100 are listed.`,
      response: wire.activePlayersResponse,
    }),
  },
  "/api/snakes/champions": {
    get: operation({
      summary: "Hall of Champions",
      description: "Everyone who ever completed the game, ordered by first completion (`completed_at` here is that first completion). Resets do not remove anyone.",
      parameters: [
        queryInteger("limit", 1, CHAMPIONS_MAX_LIMIT, CHAMPIONS_DEFAULT_LIMIT, "Page size."),
        queryInteger("offset", 0, 1_000_000_000, 0, "Champions to skip."),
      ],
      response: wire.championsResponse,
      extraErrors: { "400": errorResponse("Invalid `limit` or `offset` (`validation_failed`)") },
    }),
  },
  "/api/snakes/leaderboard": {
    get: operation({
      summary: "Top players by bullets",
      description: "Ordered by `total_bullets` descending (ties: earlier account first).",
      parameters: [queryInteger("limit", 1, LEADERBOARD_MAX_LIMIT, LEADERBOARD_DEFAULT_LIMIT, "Entries to return.")],
      response: wire.leaderboardResponse,
      extraErrors: { "400": errorResponse("Invalid `limit` (`validation_failed`)") },
    }),
  },
  "/api/snakes/unvisited-squares": {
    get: operation({
      summary: "Question squares not yet answered",
      description: "Squares 7..56 absent from `visited_squares`, and those present, both ascending, with counts.",
      response: wire.unvisitedSquaresResponse,
    }),
  },
}, OPERATION_IDS);
