// OpenAPI 3.1 description of /api/pvp/* (paths and the schemas they use), for the merged document.
import { authErrors, errorResponse, jsonResponse } from "./common.js";

const percent = (description: string) => ({ type: "number", minimum: 0, maximum: 100, description: `${description}, percent with one decimal (0 when undefined)` });

export const pvpSchemas = {
  PvpResult: {
    type: "object",
    description: "The caller's side of one finished PvP battle",
    properties: {
      match_id: { type: "string", pattern: "^[0-9a-f]{16}$", description: "The battle's id (also in pvp_battle_start and pvp_battle_end)" },
      room_id: { type: "string", description: "The Colyseus room the battle ran in" },
      player_number: { type: "integer", enum: [1, 2] },
      outcome: { type: "string", enum: ["win", "loss", "draw"] },
      reason: { type: "string", enum: ["knockout", "forfeit", "out_of_ammo"] },
      shots: { type: "integer" },
      hits: { type: "integer" },
      lives_left: { type: "integer", minimum: 0, maximum: 5 },
      opponent: {
        type: "object",
        properties: { username: { type: "string" }, user_id: { type: ["integer", "null"], description: "Null for a guest" } },
      },
      duration_ms: { type: "integer" },
      ended_at: { type: "string", format: "date-time" },
    },
  },
  PvpStats: {
    type: "object",
    properties: {
      user_id: { type: "integer" },
      username: { type: "string" },
      matches: { type: "integer", description: "Finished battles" },
      wins: { type: "integer" },
      losses: { type: "integer" },
      draws: { type: "integer", description: "Both out of ammunition with equal lives" },
      forfeits: { type: "integer", description: "Battles lost by leaving or dropping for longer than the reconnection window" },
      shots: { type: "integer" },
      hits: { type: "integer" },
      win_rate: percent("wins / matches"),
      accuracy: percent("hits / shots"),
      recent: { type: "array", items: { $ref: "#/components/schemas/PvpResult" }, description: "Latest results, newest first" },
    },
  },
};

export const pvpPaths = {
  "/api/pvp/stats": {
    get: {
      tags: ["pvp"],
      summary: "The caller's PvP statistics and latest results (zeros before the first battle)",
      description: "Only accounts are recorded (guests never are); a battle counts once it has ended.",
      parameters: [
        {
          name: "recent",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 0, maximum: 50, default: 10 },
          description: "How many of the latest results to list",
        },
      ],
      responses: {
        200: jsonResponse("Aggregates over every recorded battle", { $ref: "#/components/schemas/PvpStats" }),
        400: errorResponse("A bad `recent` value", {
          code: "validation_failed",
          message: "Invalid request query: recent: recent must be at most 50",
          details: { problems: [{ field: "recent", message: "recent must be at most 50" }] },
        }),
        ...authErrors,
      },
    },
  },
};
