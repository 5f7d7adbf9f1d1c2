// Every number of the PvP arena in one place. (design) values come from ../shared/design.md,
// (original) from the original client (notes §7: per-frame values at its 60 fps, converted to
// per-second ones here); the rest are our choices, documented in docs/pvp.md.
import type { Bounds, Point } from "../geometry.js";
export type { Bounds, Point };

/** (design) Players per arena. */
export const MAX_PLAYERS = 2;
export const PLAYER_NUMBERS = [1, 2] as const;
export type PlayerNumber = (typeof PLAYER_NUMBERS)[number];

// Arena
/** (design) The arena, 800 × 600 with no band at the top. */
export const PVP_BOUNDS: Readonly<Bounds> = Object.freeze({ width: 800, height: 600, top: 0 });
/** (design) A player's circle; two players keep 2R = 56 px apart. */
export const PLAYER_RADIUS = 28;
export const PLAYER_MIN_DISTANCE = 2 * PLAYER_RADIUS;
/** (design) The centre wall, 12 px wide at x = 400: no player's circle ever overlaps it. */
export const WALL_LEFT = 394;
export const WALL_RIGHT = 406;
/** (design) P1 spawns left, P2 right. */
export const SPAWNS: Readonly<Record<PlayerNumber, Readonly<Point>>> = Object.freeze({
  1: Object.freeze({ x: 100, y: 300 }),
  2: Object.freeze({ x: 700, y: 300 }),
});

// Lives and ammunition
/** (original) DEFAULT_LIVES: lives at the start of every battle. */
export const START_LIVES = 5;
/** A guest's claimed bullets (never verifiable) are capped to this, as in the boss room. */
export const GUEST_MAX_BULLETS = 30;
/** A player needs at least this many bullets to declare ready. */
export const MIN_BULLETS_TO_READY = 1;

// Movement
const ORIGINAL_FPS = 60;
/** (original) 7.5 px/frame: a client cannot move faster, whatever it sends. */
export const PLAYER_MAX_SPEED = 7.5 * ORIGINAL_FPS;
/** Unused movement accumulates up to this many seconds' worth, to absorb network jitter. */
export const MOVE_BURST_SECONDS = 0.25;

// Shooting
/** (original) 12 px/frame. */
export const BULLET_SPEED = 12 * ORIGINAL_FPS;
/** (original) The bullet's radius; a hit is the bullet's circle touching the target's. */
export const BULLET_RADIUS = 8;
/** (original: size + 5) A bullet leaves this far from its shooter's centre, outside its own circle. */
export const MUZZLE_OFFSET = PLAYER_RADIUS + 5;
/** Longer than any straight flight across the arena (1000 px diagonal / 720 px/s ≈ 1.39 s). */
export const BULLET_LIFETIME_MS = 1500;
/** Sustained shots per second of one player … */
export const FIRE_RATE_PER_SECOND = 4;
/** … with up to this many shots banked, so network jitter does not eat legitimate shots. */
export const FIRE_BURST = 2;

// Simulation
/** The room steps the simulation at this rate (a bullet moves 24 px per tick; hits are swept). */
export const SIMULATION_HZ = 30;
/** A step longer than this (event-loop stall) is split into sub-steps of at most … */
export const MAX_SUBSTEP_MS = 50;
/** … and time beyond this per call is dropped rather than simulated in one burst. */
export const MAX_STEP_MS = 250;
/** Hex characters of a battle's match id. */
export const MATCH_ID_LENGTH = 16;
