// The PvP arena protocol (room "pvp"): every message name, zod schemas for what clients send,
// TypeScript types for what the server sends. Names and payload keys follow the original system
// (notes §7) where it had them; docs/pvp.md lists them all with the rules.
import { z } from "zod";
import { CHARACTERS } from "../game/progress.js";
import { CHAT_MAX_LENGTH } from "../game/chat.js";
import type { EndReason, PvpPhase } from "../game/pvp/simulation.js";
import type { PlayerNumber } from "../game/pvp/constants.js";
import { text } from "./text.js";
import { coordinateSchema, DIRECTION_REQUIRED, displayNameSchema, itemNameSchema, roomIdSchema, type ErrorPayload, type ServerDrainingPayload, type TypedRoom } from "./common.js";
import type { PvpRoomState } from "./pvpState.js";

/** The Colyseus room name. */
export const PVP_ROOM = "pvp";

/** Error codes of the PvP arena, on top of the common ones (protocol/common.ts). */
export const PvpErrorCodes = {
  /** Ready while a battle runs. */
  battleActive: "battle_active",
  /** A shot outside a battle. */
  notInBattle: "not_in_battle",
  /** A shot while the opponent's connection is gone (the battle waits for it). */
  battlePaused: "battle_paused",
  /** A move from a player whose connection is gone. */
  disconnected: "disconnected",
  /** Ready or a shot without bullets. */
  noBullets: "no_bullets",
  /** Shots beyond the fire rate. */
  fireRate: "fire_rate",
  /** A shot without a direction. */
  noDirection: "no_direction",
  /** A client-reported result (a hit, lives, bullets): the server decides those. */
  serverAuthoritative: "server_authoritative",
} as const;

// ------------------------------------------------------------------------------------------------
// Inbound payloads. Unknown keys are dropped (the original client sends extras such as username or
// character); zod 4 numbers are finite: NaN and ±Infinity fail.
// ------------------------------------------------------------------------------------------------

/** Chat longer than this is malformed; anything up to it is sanitised and cut to CHAT_MAX_LENGTH. */
export const MAX_RAW_CHAT_LENGTH = 4 * CHAT_MAX_LENGTH;

const displayName = displayNameSchema;

/** For messages that carry at most the room id (ready, leave, status, away, returned). */
export const pvpRoomRefSchema = z.object({ room_id: roomIdSchema.optional(), username: displayName.optional() }).optional();

/** `pvp_join` from a client already in the room (the original client re-sends it to resync). */
export const pvpJoinSchema = z
  .object({
    room_id: roomIdSchema.optional(),
    roomId: roomIdSchema.optional(),
    username: displayName.optional(),
    character: itemNameSchema.optional(),
  })
  .optional();

export const pvpMoveSchema = z.object({ room_id: roomIdSchema.optional(), x: coordinateSchema, y: coordinateSchema });

export const pvpShootSchema = z
  .object({
    room_id: roomIdSchema.optional(),
    /** Where the client drew the bullet; ignored: bullets start at the player's server position. */
    bulletX: coordinateSchema.optional(),
    bulletY: coordinateSchema.optional(),
    dx: coordinateSchema,
    dy: coordinateSchema,
    character: itemNameSchema.optional(),
  })
  .refine((s) => s.dx !== 0 || s.dy !== 0, DIRECTION_REQUIRED);

export const pvpChatSendSchema = z.object({
  content: text({ min: 1, max: MAX_RAW_CHAT_LENGTH }),
  room_id: roomIdSchema.optional(),
  username: displayName.optional(),
  character: itemNameSchema.optional(),
});

/** Original messages that reported results (`pvp_hit_opponent`, `pvp_stats_update`): answered, never applied. */
export const pvpClientResultSchema = z.unknown();

/** Options of `joinOrCreate("pvp", options)`. Lives and position are never taken. */
export const pvpJoinOptionsSchema = z
  .object({
    username: displayName.optional(),
    character: z.enum(CHARACTERS).optional(),
    /** Guests only: the bullets their browser-side progress claims (capped at 30). Accounts: ignored. */
    bullets: z.number().int().min(0).max(1_000_000).optional(),
    /**
     * false: this player's own shots are judged live instead of where its view showed the opponent
     * (docs/netcode.md). Only the aim load test turns it off, to measure what compensation is
     * worth; it can only disadvantage the player who asks.
     */
    lag_compensation: z.boolean().optional(),
  })
  .optional();
export type PvpJoinOptions = z.infer<typeof pvpJoinOptionsSchema>;

/** Client → server: message name → payload schema. */
export const pvpInbound = {
  pvp_join: pvpJoinSchema,
  pvp_ready: pvpRoomRefSchema,
  pvp_move: pvpMoveSchema,
  pvp_shoot: pvpShootSchema,
  pvp_hit_opponent: pvpClientResultSchema,
  pvp_stats_update: pvpClientResultSchema,
  pvp_chat_send: pvpChatSendSchema,
  pvp_player_away: pvpRoomRefSchema,
  pvp_player_returned: pvpRoomRefSchema,
  pvp_get_status: pvpRoomRefSchema,
  pvp_leave: pvpRoomRefSchema,
};

// ------------------------------------------------------------------------------------------------
// Outbound payloads
// ------------------------------------------------------------------------------------------------

export interface PvpPlayerView {
  sid: string;
  username: string;
  character: string;
  player_number: PlayerNumber;
  x: number;
  y: number;
  lives: number;
  bullets: number;
  ready: boolean;
  connected: boolean;
  away: boolean;
  guest: boolean;
}

/** The arena's fixed numbers, so a client draws what the server enforces. */
export interface PvpArenaView {
  width: number;
  height: number;
  player_radius: number;
  wall_left: number;
  wall_right: number;
  bullet_radius: number;
  bullet_speed: number;
}

export interface PvpRoomStatePayload {
  roomId: string;
  playerCount: number;
  playerNumber: PlayerNumber;
  phase: PvpPhase;
  self: PvpPlayerView;
  opponent: PvpPlayerView | null;
  arena: PvpArenaView;
}
export interface PvpRoomStatusPayload {
  roomId: string;
  playerCount: number;
  battleActive: boolean;
  phase: PvpPhase;
}
export interface PvpOpponentJoinedPayload {
  opponent: PvpPlayerView;
  playerCount: number;
}
export interface PvpOpponentLeftPayload {
  sid: string;
  username: string;
  reason: "left" | "disconnected";
  /** The leave ended a running battle: the one who stayed won it. */
  forfeit: boolean;
  playerCount: number;
}
export interface PvpMatchReadyPayload {
  message: string;
  playerCount: number;
  player1: PvpPlayerView;
  player2: PvpPlayerView;
}
export interface PvpPlayerReadyPayload {
  sid: string;
  player_number: PlayerNumber;
}
export interface PvpBattleStartPayload {
  message: string;
  match_id: string;
  player1: PvpPlayerView;
  player2: PvpPlayerView;
}
export interface PositionPayload {
  x: number;
  y: number;
}
export interface PvpOpponentShotPayload {
  bullet_id: number;
  /** Server position the bullet starts from, its unit direction and speed (px/s). */
  bulletX: number;
  bulletY: number;
  dx: number;
  dy: number;
  speed: number;
  character: string;
}
export interface PvpPlayerHitPayload {
  /** The sid of the player hit, and the lives it has left. */
  target: string;
  lives: number;
  shooter: string;
}
export interface PvpPlayerStats {
  sid: string;
  player_number: PlayerNumber;
  username: string;
  character: string;
  guest: boolean;
  shots: number;
  hits: number;
  lives: number;
  bullets: number;
}
export interface PvpBattleEndPayload {
  /** Sids; both null for a draw. */
  winner: string | null;
  loser: string | null;
  reason: EndReason;
  stats: { match_id: string; duration_ms: number; players: PvpPlayerStats[] };
}
export interface PvpChatMessagePayload {
  sid: string;
  username: string;
  character: string;
  content: string;
}
export interface PvpPresencePayload {
  sid: string;
  username: string;
}
export interface PvpOpponentDisconnectedPayload extends PvpPresencePayload {
  /** How long the seat waits for the connection to come back; a battle pauses meanwhile. */
  reconnect_seconds: number;
}
export interface PvpRequeuePayload {
  message: string;
  /** The server is about to close this connection; the client calls joinOrCreate("pvp") again. */
  reason: "waiting_player_elsewhere";
}

/** Server → client: message name → payload. */
export interface PvpOutbound {
  /** This process is stopping: matchmake again (protocol/common.ts). */
  server_draining: ServerDrainingPayload;
  pvp_room_state: PvpRoomStatePayload;
  pvp_room_status: PvpRoomStatusPayload;
  pvp_opponent_joined: PvpOpponentJoinedPayload;
  pvp_opponent_left: PvpOpponentLeftPayload;
  pvp_match_ready: PvpMatchReadyPayload;
  pvp_player_ready: PvpPlayerReadyPayload;
  pvp_battle_start: PvpBattleStartPayload;
  pvp_self_position: PositionPayload;
  pvp_opponent_position: PositionPayload;
  pvp_opponent_shot: PvpOpponentShotPayload;
  pvp_player_hit: PvpPlayerHitPayload;
  pvp_battle_end: PvpBattleEndPayload;
  pvp_chat_message: PvpChatMessagePayload;
  pvp_player_away: PvpPresencePayload;
  pvp_player_returned: PvpPresencePayload;
  pvp_opponent_disconnected: PvpOpponentDisconnectedPayload;
  pvp_opponent_reconnected: PvpPresencePayload;
  pvp_requeue: PvpRequeuePayload;
  error: ErrorPayload;
}

/** The room as the Colyseus SDK sees it: `sdk.joinOrCreate<PvpRoomType>("pvp", options)`. */
export type PvpRoomType = TypedRoom<typeof pvpInbound, PvpOutbound, PvpRoomState>;
