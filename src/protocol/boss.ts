// The boss lobby and boss battle protocol: every message name, zod schemas for what clients send,
// TypeScript types for what the server sends. Names and payload keys follow the spec and, where it
// is silent, the original system (docs/boss-battle.md lists them all).
import { z } from "zod";
import { CHARACTERS, type Bounds, type PowerupType } from "../game/boss/constants.js";
import { CHAT_MAX_LENGTH } from "../game/chat.js";
import type { BossPattern } from "../game/boss/bossAi.js";
import type { PowerupEffect } from "../game/boss/powerups.js";
import type { PlayerStats } from "../game/boss/simulation.js";

/** Colyseus room names. */
export const BOSS_LOBBY_ROOM = "boss_lobby";
export const BOSS_ROOM = "boss";

/** Client → server. */
export const BossIn = {
  joinLobby: "boss_join_lobby",
  leaveLobby: "boss_leave_lobby",
  chatSend: "boss_chat_send",
  joinRoom: "boss_join_room",
  playerMove: "boss_player_move",
  playerShoot: "boss_player_shoot",
  playerAway: "boss_player_away",
  playerReturned: "boss_player_returned",
  leaveRoom: "boss_leave_room",
  getPlayers: "boss_get_players",
} as const;

/** Server → client. */
export const BossOut = {
  lobbyState: "boss_lobby_state",
  lobbyMembers: "boss_lobby_members",
  lobbyPlayerCount: "boss_lobby_player_count",
  chatMessage: "boss_chat_message",
  roomState: "boss_room_state",
  playerJoined: "boss_player_joined",
  playerPosition: "boss_player_position",
  selfPosition: "boss_self_position",
  playerBullet: "boss_player_bullet",
  powerupSpawned: "boss_powerup_spawned",
  powerupCollected: "boss_powerup_collected",
  powerupExpired: "boss_powerup_expired",
  healthUpdate: "boss_health_update",
  playerDamaged: "boss_player_damaged",
  playerDied: "boss_player_died",
  playerLeft: "boss_player_left",
  playerAway: "boss_player_away",
  playerReturned: "boss_player_returned",
  roomPlayers: "boss_room_players",
  defeated: "boss_defeated",
} as const;

// ------------------------------------------------------------------------------------------------
// Inbound payloads. Unknown keys are dropped (the original client sends extras such as username or
// weapon_type; a forged `damage` does nothing). zod 4 numbers are finite: NaN and ±Infinity fail.
// ------------------------------------------------------------------------------------------------

export const MAX_ROOM_ID_LENGTH = 64;
/** Coordinates and directions far outside any arena are malformed, not merely out of bounds. */
export const MAX_COORDINATE = 100_000;

const roomId = z.string().max(MAX_ROOM_ID_LENGTH);
const coordinate = z.number().min(-MAX_COORDINATE).max(MAX_COORDINATE);
export const characterSchema = z.enum(CHARACTERS);

/** For messages that carry at most the room id (away, returned, leave, join, get players). */
export const roomRefSchema = z.object({ room_id: roomId.optional() }).optional();

export const joinLobbySchema = z.object({ character: characterSchema.optional() }).optional();
export const leaveLobbySchema = z.object({}).optional();

export const chatSendSchema = z.object({
  content: z.string().min(1).max(CHAT_MAX_LENGTH),
  room_id: roomId.optional(),
});

export const playerMoveSchema = z.object({
  room_id: roomId.optional(),
  x: coordinate,
  y: coordinate,
});

export const playerShootSchema = z
  .object({
    room_id: roomId.optional(),
    /** Where the client drew the bullet; ignored: bullets start at the player's server position. */
    bulletX: coordinate.optional(),
    bulletY: coordinate.optional(),
    dx: coordinate,
    dy: coordinate,
    character: z.string().max(32).optional(),
    weapon_type: z.string().max(32).optional(),
  })
  .refine((s) => s.dx !== 0 || s.dy !== 0, { message: "dx and dy must not both be zero", path: ["dx"] });

/** Options of `joinOrCreate/joinById("boss", options)`. Health, lives and position are never taken. */
export const bossJoinOptionsSchema = z
  .object({
    username: z.string().max(64).optional(),
    character: characterSchema.optional(),
    /** Guests only: the bullets their browser-side progress claims (capped). Accounts: ignored. */
    bullets: z.number().int().min(0).max(1_000_000).optional(),
  })
  .optional();
export type BossJoinOptions = z.infer<typeof bossJoinOptionsSchema>;

/** Options of `joinOrCreate("boss_lobby", options)`. */
export const lobbyJoinOptionsSchema = z
  .object({ username: z.string().max(64).optional(), character: characterSchema.optional() })
  .optional();

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
