// The synchronized state of the boss rooms (@colyseus/schema v5): the classes a client decodes
// `room.state` with. The server fills it from the simulation (src/rooms/boss/state.ts).
// Each type's name (schema()'s second argument) is the name of its constant: `schema-codegen`
// names a generated class after the former and refers to it by the latter, so the two must agree
// (docs/clients.md; test/unit/codegen.test.ts). Type names never travel on the wire.
import { schema, t, type SchemaType } from "@colyseus/schema";
import { BOSS_RADIUS, PLAYER_RADIUS } from "../game/boss/constants.js";

export const BossPlayerState = schema(
  {
    username: t.string(),
    character: t.string(),
    x: t.number(),
    y: t.number(),
    lives: t.uint8(),
    bullets: t.uint32(),
    damage_dealt: t.uint32(),
    bullets_fired: t.uint32(),
    bullets_hit: t.uint32(),
    powerups_collected: t.array("string"),
    status: t.string(),
    connected: t.boolean().default(true),
    away: t.boolean().default(false),
    guest: t.boolean().default(false),
    damage_boost: t.boolean().default(false),
    speed_boost: t.boolean().default(false),
  },
  "BossPlayerState",
);
export type BossPlayerState = SchemaType<typeof BossPlayerState>;

export const BossFigureState = schema(
  {
    x: t.number(),
    y: t.number(),
    pattern: t.string(),
    radius: t.uint8().default(BOSS_RADIUS),
  },
  "BossFigureState",
);
export type BossFigureState = SchemaType<typeof BossFigureState>;

export const BossPowerupState = schema({ id: t.string(), type: t.string(), x: t.number(), y: t.number() }, "BossPowerupState");
export type BossPowerupState = SchemaType<typeof BossPowerupState>;

/** A boss projectile: position and velocity (px/s), for clients to draw and extrapolate. */
export const BossProjectileState = schema({ x: t.number(), y: t.number(), vx: t.number(), vy: t.number() }, "BossProjectileState");
export type BossProjectileState = SchemaType<typeof BossProjectileState>;

export const BossBoundsState = schema({ width: t.uint16(), height: t.uint16(), top: t.uint16() }, "BossBoundsState");

export const BossRoomState = schema(
  {
    room_id: t.string(),
    /** "battle", then "defeated" once the boss is down. */
    phase: t.string().default("battle"),
    boss_health: t.uint16(),
    max_health: t.uint16(),
    player_radius: t.uint8().default(PLAYER_RADIUS),
    bounds: BossBoundsState,
    boss: BossFigureState,
    players: t.map(BossPlayerState),
    powerups: t.map(BossPowerupState),
    projectiles: t.map(BossProjectileState),
  },
  "BossRoomState",
);
export type BossRoomState = SchemaType<typeof BossRoomState>;

export const BossLobbyMemberState = schema({ username: t.string(), character: t.string(), guest: t.boolean() }, "BossLobbyMemberState");
export type BossLobbyMemberState = SchemaType<typeof BossLobbyMemberState>;
export const BossLobbyState = schema({ members: t.map(BossLobbyMemberState) }, "BossLobbyState");
export type BossLobbyState = SchemaType<typeof BossLobbyState>;
