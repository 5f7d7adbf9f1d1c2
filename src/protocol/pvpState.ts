// The synchronized state of the PvP room (@colyseus/schema v5): the classes a client decodes
// `room.state` with. The server fills it from the simulation (src/rooms/pvp/state.ts).
// Each type's name (schema()'s second argument) is the name of its constant, for `schema-codegen`
// (see bossState.ts).
import { schema, t, type SchemaType } from "@colyseus/schema";
import { BULLET_RADIUS, BULLET_SPEED, PLAYER_RADIUS, PVP_BOUNDS, WALL_LEFT, WALL_RIGHT } from "../game/pvp/constants.js";

export const PvpPlayerState = schema(
  {
    username: t.string(),
    character: t.string(),
    player_number: t.uint8(),
    x: t.number(),
    y: t.number(),
    lives: t.uint8(),
    ready: t.boolean().default(false),
    bullets: t.uint32(),
    /** This battle's shots and hits. */
    shots: t.uint16(),
    hits: t.uint16(),
    connected: t.boolean().default(true),
    away: t.boolean().default(false),
    guest: t.boolean().default(false),
  },
  "PvpPlayerState",
);
export type PvpPlayerState = SchemaType<typeof PvpPlayerState>;

/** A bullet in flight: its owner's sid, position and velocity (px/s), for clients to draw and extrapolate. */
export const PvpBulletState = schema({ owner: t.string(), x: t.number(), y: t.number(), vx: t.number(), vy: t.number() }, "PvpBulletState");
export type PvpBulletState = SchemaType<typeof PvpBulletState>;

/** The arena's fixed numbers. */
export const PvpArenaState = schema(
  {
    width: t.uint16().default(PVP_BOUNDS.width),
    height: t.uint16().default(PVP_BOUNDS.height),
    player_radius: t.uint8().default(PLAYER_RADIUS),
    wall_left: t.uint16().default(WALL_LEFT),
    wall_right: t.uint16().default(WALL_RIGHT),
    bullet_radius: t.uint8().default(BULLET_RADIUS),
    bullet_speed: t.uint16().default(BULLET_SPEED),
  },
  "PvpArenaState",
);

export const PvpRoomState = schema(
  {
    room_id: t.string(),
    /** "waiting" | "ready_check" | "battle" | "finished". */
    phase: t.string().default("waiting"),
    /** The running (or last) battle's id; empty before the first. */
    match_id: t.string(),
    arena: PvpArenaState,
    players: t.map(PvpPlayerState),
    bullets: t.map(PvpBulletState),
  },
  "PvpRoomState",
);
export type PvpRoomState = SchemaType<typeof PvpRoomState>;

