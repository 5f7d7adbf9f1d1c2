// OpenAPI 3.1 description of /api/boss/* (paths and the schemas they use), for the merged document.

import { errorResponse as error, withOperationIds } from "./common.js";
import { IGNORED_JOIN_FIELDS } from "../bossRoutes.js";

const unauthenticated = error("No session cookie, a bad signature or an unknown user", { code: "unauthenticated", message: "Authentication token is missing" });
const expired = error("The session token expired", { code: "token_expired", message: "Authentication token expired" });
const badBody = error("The body is not valid JSON or fails validation", {
  code: "validation_failed",
  message: "Invalid request body: room_id: room_id must be a string",
  details: { problems: [{ field: "room_id", message: "room_id must be a string" }] },
});
const unknownRoom = error("No boss room with this id", { code: "not_found", message: "Boss room AbC123xyz not found" });

const roomIdProperty = { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", description: "The Colyseus room id of a boss battle" };
const security = [{ sessionCookie: [] }];

export const bossSchemas = {
  BossRoom: {
    type: "object",
    properties: {
      id: { type: "integer" },
      room_id: roomIdProperty,
      boss_health: { type: "integer", description: "Live value while the battle runs, else the stored one" },
      max_boss_health: { type: "integer", example: 2000 },
      boss_health_percentage: { type: "number" },
      is_active: { type: "boolean" },
      is_completed: { type: "boolean" },
      live: { type: "boolean", description: "A Colyseus room runs this battle now" },
      phase: { type: "string", enum: ["battle", "defeated", "closed"] },
      player_count: { type: "integer", description: "Players alive in the battle" },
      total_players: { type: "integer", description: "Accounts that ever took a seat" },
      created_at: { type: "string", format: "date-time" },
      completed_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  BossPlayer: {
    type: "object",
    description: "An account's seat in a boss room (guests are never stored)",
    properties: {
      id: { type: "integer" },
      user_id: { type: "integer" },
      username: { type: "string" },
      lives: { type: "integer" },
      bullets_used: { type: "integer" },
      damage_dealt: { type: "integer" },
      is_alive: { type: "boolean" },
      victory: { type: "boolean" },
      joined_at: { type: "string", format: "date-time" },
      left_at: { type: ["string", "null"], format: "date-time" },
      died_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  LivePlayer: {
    type: "object",
    description: "A player of the running battle (the boss_room_players entry), guests included",
    properties: {
      sid: { type: "string" },
      username: { type: "string" },
      character: { type: "string" },
      x: { type: "number" },
      y: { type: "number" },
      lives: { type: "integer" },
      bullets: { type: "integer" },
      damage_dealt: { type: "integer" },
      bullets_fired: { type: "integer" },
      bullets_hit: { type: "integer" },
      powerups_collected: { type: "array", items: { type: "string", enum: ["damage", "speed", "rapidfire", "heal"] } },
      status: { type: "string", enum: ["alive", "dead"] },
      connected: { type: "boolean" },
      away: { type: "boolean" },
      guest: { type: "boolean" },
    },
  },
  BossRoomDetails: {
    type: "object",
    properties: {
      room: { $ref: "#/components/schemas/BossRoom" },
      players: { type: "array", items: { $ref: "#/components/schemas/BossPlayer" } },
      live_players: { type: "array", items: { $ref: "#/components/schemas/LivePlayer" } },
    },
  },
};

export const bossPaths = withOperationIds({
  "/api/boss/join": {
    post: {
      tags: ["boss"],
      summary: "Find (or open) a boss battle for the caller",
      description:
        "Needs at least 10 bullets in the caller's progress record (bullets, character, lives, dev_mode, guest_id and guest_name in the body are ignored and listed in `ignored_fields`; any other field is a 400). " +
        "Returns an open `boss` room (the preferred `room_id` when it can take a player, else the fullest open one, else a new one). " +
        "The client then joins it over WebSocket with `client.joinById(room_id)`, sending the same cookie, within 15 s; joins arriving meanwhile may fill that room first. " +
        "With `reserve_seat: true` the seat is taken here (the room's checks run on the caller and its `join_options`; a room lost to concurrent joins is replaced by the next pick, up to 5 times; asking again before redeeming answers the same seat) " +
        "and the client redeems `join.reservation` with `client.consumeSeatReservation(reservation)` within 15 s.",
      security,
      requestBody: {
        required: false,
        content: {
          "application/json": {
            schema: {
              type: "object",
              additionalProperties: false,
              properties: {
                room_id: roomIdProperty,
                reserve_seat: { type: "boolean", description: "Take the seat now: the answer's `join` carries a seat reservation (what /play does)" },
                join_options: {
                  type: "object",
                  description: "With reserve_seat: the boss room's join options (`character`, `updates`), checked as on a WebSocket join (400 `invalid_join`)",
                },
                ...Object.fromEntries(IGNORED_JOIN_FIELDS.map((key) => [key, { description: "Accepted and ignored (listed in `ignored_fields`)" }])),
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: "A room to join",
          content: {
            "application/json": {
              schema: {
                allOf: [
                  { $ref: "#/components/schemas/BossRoomDetails" },
                  {
                    type: "object",
                    properties: {
                      message: { type: "string", example: "Joined boss battle" },
                      room_id: roomIdProperty,
                      room_name: { type: "string", const: "boss" },
                      join: {
                        type: "object",
                        description: "How to join: `joinById(room_id)`, or with reserve_seat `consumeSeatReservation(reservation)`",
                        properties: {
                          room_name: { type: "string", const: "boss" },
                          room_id: roomIdProperty,
                          method: { type: "string", enum: ["joinById", "consumeSeatReservation"] },
                          reservation: {
                            type: "object",
                            description: "With reserve_seat: the Colyseus seat reservation, valid 15 s",
                            properties: { name: { type: "string", const: "boss" }, sessionId: { type: "string" }, roomId: roomIdProperty, processId: { type: "string" } },
                            required: ["name", "sessionId", "roomId"],
                          },
                        },
                      },
                      ignored_fields: { type: "array", items: { type: "string" }, description: "Fields of the request that were accepted and ignored" },
                    },
                  },
                ],
              },
            },
          },
        },
        400: badBody,
        409: error("With reserve_seat: five rooms in a row filled up or closed before the seat was taken (`room_full`): join again"),
        429: error("Too many writes from this account (`rate_limited`, with Retry-After; RATE_LIMIT_WRITES)"),
        401: unauthenticated,
        403: {
          description: "Token expired (`token_expired`), or fewer than 10 bullets (`not_enough_bullets`, with the current count)",
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/Error" },
              example: {
                error: { code: "not_enough_bullets", message: "You need at least 10 bullets to fight the boss; you have 7", details: { bullets: 7, required: 10 } },
              },
            },
          },
        },
      },
    },
  },
  "/api/boss/leave": {
    post: {
      tags: ["boss"],
      summary: "Leave a boss battle",
      description: "Takes the caller out of the live room (its connection is closed with 4000) and closes its seat record. Idempotent.",
      security,
      requestBody: {
        required: true,
        content: { "application/json": { schema: { type: "object", required: ["room_id"], additionalProperties: false, properties: { room_id: roomIdProperty, guest_id: { description: "Accepted and ignored (the original client sends it)" } } } } },
      },
      responses: {
        200: {
          description: "Left (or was not seated)",
          content: {
            "application/json": {
              schema: { type: "object", properties: { message: { type: "string" }, room_id: roomIdProperty, left: { type: "boolean", description: "The caller had a seat that is now closed" } } },
            },
          },
        },
        400: badBody,
        429: error("Too many writes from this account (`rate_limited`, with Retry-After; RATE_LIMIT_WRITES)"),
        401: unauthenticated,
        403: expired,
        404: unknownRoom,
      },
    },
  },
  "/api/boss/stats": {
    get: {
      tags: ["boss"],
      summary: "The caller's boss battle statistics (zeros before the first battle)",
      security,
      responses: {
        200: {
          description: "Aggregate over all battles",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  user_id: { type: "integer" },
                  username: { type: "string" },
                  battles_joined: { type: "integer" },
                  battles_won: { type: "integer" },
                  total_damage_dealt: { type: "integer" },
                  total_bullets_used: { type: "integer" },
                  deaths: { type: "integer" },
                  best_damage: { type: "integer" },
                  win_rate: { type: "number", description: "Percent, one decimal" },
                  average_damage: { type: "number", description: "Per battle, one decimal" },
                },
              },
            },
          },
        },
        401: unauthenticated,
        403: expired,
      },
    },
  },
  "/api/boss/room/{room_id}": {
    get: {
      tags: ["boss"],
      summary: "A boss room's record, its account seats and, while it runs, its live players",
      security,
      parameters: [{ name: "room_id", in: "path", required: true, schema: roomIdProperty }],
      responses: {
        200: { description: "The room", content: { "application/json": { schema: { $ref: "#/components/schemas/BossRoomDetails" } } } },
        401: unauthenticated,
        403: expired,
        404: unknownRoom,
      },
    },
  },
}, {
  "POST /api/boss/join": "joinBossBattle",
  "POST /api/boss/leave": "leaveBossBattle",
  "GET /api/boss/stats": "getBossStats",
  "GET /api/boss/room/{room_id}": "getBossRoom",
});
