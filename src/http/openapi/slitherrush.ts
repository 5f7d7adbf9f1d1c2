// OpenAPI 3.1 description of /api/slitherrush/*, generated from the zod schemas the routes use.
import { z } from "zod";
import * as wire from "../slitherrushWire.js";
import { authErrors, errorResponse } from "./common.js";

function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

const ok = (schema: z.ZodType) => ({ description: "OK", content: { "application/json": { schema: schemaOf(schema) } } });
const security = [{ sessionCookie: [] }];

export const slitherrushPaths = {
  "/api/slitherrush/stats": {
    get: {
      tags: ["slitherrush"],
      summary: "The caller's SlitherRush results over all sessions (zeros before the first)",
      description:
        "Written when the player leaves an arena and checkpointed while it plays. Guests are never stored. " +
        "`best_score` and `best_length` are the highest reached in any session.",
      security,
      responses: { "200": ok(wire.statsResponse), ...authErrors },
    },
  },
  "/api/slitherrush/leaderboard": {
    get: {
      tags: ["slitherrush"],
      summary: "All-time best SlitherRush scores",
      description: "Ordered by `best_score`, then `best_length`, then `kills`, descending (ties: earlier account first).",
      security,
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          description: `Entries to return. Digits only; anything else, or a value outside 1..${wire.SLITHERRUSH_LEADERBOARD_MAX_LIMIT}, is a 400.`,
          schema: { type: "integer", minimum: 1, maximum: wire.SLITHERRUSH_LEADERBOARD_MAX_LIMIT, default: wire.SLITHERRUSH_LEADERBOARD_DEFAULT_LIMIT },
        },
      ],
      responses: {
        "200": ok(wire.leaderboardResponse),
        "400": errorResponse("Invalid `limit` (`validation_failed`)", {
          code: "validation_failed",
          message: "Invalid request query: limit: must be an integer from 1 to 100",
          details: { problems: [{ field: "limit", message: "must be an integer from 1 to 100" }] },
        }),
        ...authErrors,
      },
    },
  },
};
