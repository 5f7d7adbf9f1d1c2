// The boss lobby and boss battle protocol: every message name, zod schemas for what clients send,
// TypeScript types for what the server sends. Names and payload keys follow the spec and, where it
// is silent, the original system (docs/boss-battle.md lists them all).
import { z } from "zod";
import { CHARACTERS, type Bounds, type PowerupType } from "../game/boss/constants.js";
import { CHAT_MAX_LENGTH } from "../game/chat.js";
import { text } from "./text.js";
import { coordinateSchema, DIRECTION_REQUIRED, displayNameSchema, itemNameSchema, roomIdSchema, updatesOption, type ErrorPayload, type ServerDrainingPayload, type TypedRoom } from "./common.js";
import type { BossLobbyState, BossRoomState } from "./bossState.js";
import type { BossPattern } from "../game/boss/bossAi.js";
import type { PowerupEffect } from "../game/boss/powerups.js";
import type { PlayerStats } from "../game/boss/simulation.js";

/** Colyseus room names. */
export const BOSS_LOBBY_ROOM = "boss_lobby";
export const BOSS_ROOM = "boss";

/** Error codes of the boss battle, on top of the common ones (protocol/common.ts). */
export const BossErrorCodes = {
  /** The sender's player is dead. */
  dead: "dead",
  /** The boss is already defeated. */
  battleOver: "battle_over",
  noBullets: "no_bullets",
  /** Shots beyond the fire rate. */
  fireRate: "fire_rate",
  /** A shot without a direction. */
  noDirection: "no_direction",
} as const;

// ------------------------------------------------------------------------------------------------
// Inbound payloads. Unknown keys are dropped (the original client sends extras such as username or
// weapon_type; a forged `damage` does nothing). zod 4 numbers are finite: NaN and ±Infinity fail.
// ------------------------------------------------------------------------------------------------


export const characterSchema = z.enum(CHARACTERS);

/** For messages that carry at most the room id (away, returned, leave, join, get players). */
export const roomRefSchema = z.object({ room_id: roomIdSchema.optional() }).optional();

export const joinLobbySchema = z.object({ character: characterSchema.optional() }).optional();
export const leaveLobbySchema = z.object({}).optional();

export const chatSendSchema = z.object({
  content: text({ min: 1, max: CHAT_MAX_LENGTH }),
  room_id: roomIdSchema.optional(),
});

export const playerMoveSchema = z.object({
  room_id: roomIdSchema.optional(),
  x: coordinateSchema,
  y: coordinateSchema,
});

export const playerShootSchema = z
  .object({
    room_id: roomIdSchema.optional(),
    /** Where the client drew the bullet; ignored: bullets start at the player's server position. */
    bulletX: coordinateSchema.optional(),
    bulletY: coordinateSchema.optional(),
    dx: coordinateSchema,
    dy: coordinateSchema,
    character: itemNameSchema.optional(),
    weapon_type: itemNameSchema.optional(),
  })
  .refine((s) => s.dx !== 0 || s.dy !== 0, DIRECTION_REQUIRED);

/** Options of `joinOrCreate/joinById("boss", options)`. Health, lives and position are never taken. */
export const bossJoinOptionsSchema = z
  .object({
    username: displayNameSchema.optional(),
    character: characterSchema.optional(),
    /** Guests only: the bullets their browser-side progress claims (capped). Accounts: ignored. */
    bullets: z.number().int().min(0).max(1_000_000).optional(),
    /**
     * The update channel the client reads: "messages" (no state patches) or "state" (no
     * boss_player_position / boss_self_position mirror of the state); both when omitted.
     */
    updates: updatesOption,
  })
  .optional();
export type BossJoinOptions = z.infer<typeof bossJoinOptionsSchema>;

/** Options of `joinOrCreate("boss_lobby", options)`. */
export const lobbyJoinOptionsSchema = z
  .object({ username: displayNameSchema.optional(), character: characterSchema.optional() })
  .optional();

/** Client → server, `boss_lobby` room: message name → payload schema. */
export const bossLobbyInbound = {
  boss_join_lobby: joinLobbySchema,
  boss_leave_lobby: leaveLobbySchema,
  boss_chat_send: chatSendSchema,
};

/** Client → server, `boss` room: message name → payload schema. */
export const bossInbound = {
  boss_join_room: roomRefSchema,
  boss_player_move: playerMoveSchema,
  boss_player_shoot: playerShootSchema,
  boss_chat_send: chatSendSchema,
  boss_player_away: roomRefSchema,
  boss_player_returned: roomRefSchema,
  boss_get_players: roomRefSchema,
  boss_leave_room: roomRefSchema,
};

// ------------------------------------------------------------------------------------------------
// Outbound payloads
// ------------------------------------------------------------------------------------------------

export interface LobbyMemberView {
  sid: string;
  username: string;
  character: string;
  guest: boolean;
}
export interface LobbyStatePayload {
  playerCount: number;
  players: LobbyMemberView[];
}
export interface LobbyMembersPayload {
  members: LobbyMemberView[];
}
export interface LobbyPlayerCountPayload {
  playerCount: number;
}

export interface ChatMessagePayload {
  sid: string;
  username: string;
  character: string;
  content: string;
  room_id: string;
}

export interface BossPlayerView {
  sid: string;
  username: string;
  character: string;
  x: number;
  y: number;
  lives: number;
  bullets: number;
  damage_dealt: number;
  bullets_fired: number;
  bullets_hit: number;
  powerups_collected: PowerupType[];
  status: "alive" | "dead";
  connected: boolean;
  away: boolean;
  guest: boolean;
}
export interface PowerupView {
  id: string;
  type: PowerupType;
  x: number;
  y: number;
}
export interface BossView {
  x: number;
  y: number;
  pattern: BossPattern;
  radius: number;
}

export interface RoomStatePayload {
  room_id: string;
  bossHealth: number;
  maxBossHealth: number;
  playerCount: number;
  players: BossPlayerView[];
  powerups: PowerupView[];
  self: BossPlayerView;
  bounds: Bounds;
  boss: BossView;
  player_radius: number;
  phase: "battle" | "defeated";
}
export interface PlayerJoinedPayload {
  player: BossPlayerView;
  playerCount: number;
}
export interface PlayerPositionPayload {
  sid: string;
  x: number;
  y: number;
}
export interface SelfPositionPayload {
  x: number;
  y: number;
}
export interface PlayerBulletPayload {
  sid: string;
  /** Server position the bullet starts from, its unit direction and speed (px/s). */
  bulletX: number;
  bulletY: number;
  dx: number;
  dy: number;
  speed: number;
  character: string;
  weapon_type?: string;
}
export interface PowerupSpawnedPayload extends PowerupView {
  /** Milliseconds the powerup stays if nobody collects it. */
  expires_in: number;
}
export interface PowerupCollectedPayload {
  powerup_id: string;
  type: PowerupType;
  username: string;
  collector_sid: string;
  effect: PowerupEffect;
}
export interface PowerupExpiredPayload {
  powerup_id: string;
}
export interface HealthUpdatePayload {
  bossHealth: number;
  maxBossHealth: number;
  attacker: string;
  attacker_sid: string;
  damage: number;
}
export interface PlayerDamagedPayload {
  player: { sid: string; username: string; lives: number };
  source: "projectile" | "contact";
}
export interface PlayerDiedPayload {
  message: string;
  player: { sid: string; username: string; lives: 0 };
  aliveCount: number;
  playerCount: number;
}
export interface PlayerLeftPayload {
  player: { sid: string; username: string };
  playerCount: number;
  reason: "left" | "disconnected";
}
export interface AwayPayload {
  sid: string;
  username: string;
  message: string;
}
export interface RoomPlayersPayload {
  room_id: string;
  players: BossPlayerView[];
  playerCount: number;
}
/** One player's line of boss_defeated.all_player_stats. */
export type PlayerBattleStats = Omit<PlayerStats, "id" | "status"> & { sid: string };
export interface DefeatedPayload {
  message: string;
  players: BossPlayerView[];
  all_player_stats: PlayerBattleStats[];
}

/** Server → client, `boss_lobby` room: message name → payload. */
export interface BossLobbyOutbound {
  /** This process is stopping: matchmake again (protocol/common.ts). */
  server_draining: ServerDrainingPayload;
  boss_lobby_state: LobbyStatePayload;
  boss_lobby_members: LobbyMembersPayload;
  boss_lobby_player_count: LobbyPlayerCountPayload;
  boss_chat_message: ChatMessagePayload;
  error: ErrorPayload;
}

/** Server → client, `boss` room: message name → payload. */
export interface BossOutbound {
  /** This process is stopping: matchmake again (protocol/common.ts). */
  server_draining: ServerDrainingPayload;
  boss_room_state: RoomStatePayload;
  boss_player_joined: PlayerJoinedPayload;
  boss_player_position: PlayerPositionPayload;
  boss_self_position: SelfPositionPayload;
  boss_player_bullet: PlayerBulletPayload;
  boss_powerup_spawned: PowerupSpawnedPayload;
  boss_powerup_collected: PowerupCollectedPayload;
  boss_powerup_expired: PowerupExpiredPayload;
  boss_health_update: HealthUpdatePayload;
  boss_player_damaged: PlayerDamagedPayload;
  boss_player_died: PlayerDiedPayload;
  boss_player_left: PlayerLeftPayload;
  boss_player_away: AwayPayload;
  boss_player_returned: AwayPayload;
  boss_room_players: RoomPlayersPayload;
  boss_chat_message: ChatMessagePayload;
  boss_defeated: DefeatedPayload;
  error: ErrorPayload;
}

/** The rooms as the Colyseus SDK sees them: `sdk.joinOrCreate<BossRoomType>("boss", options)`. */
export type BossLobbyRoomType = TypedRoom<typeof bossLobbyInbound, BossLobbyOutbound, BossLobbyState>;
export type BossRoomType = TypedRoom<typeof bossInbound, BossOutbound, BossRoomState>;
