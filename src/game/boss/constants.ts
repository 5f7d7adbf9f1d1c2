// Every number of the boss battle in one place. Values marked (spec) come from the service spec,
// (original) from the original system's server, the rest are our choices (docs/boss-battle.md).

import type { Bounds, Point } from "../geometry.js";
export type { Bounds, Point };

// Room and arena
/** (spec) Players per boss room. */
export const MAX_PLAYERS = 10;
/** (spec) The arena: players live in x ∈ [R, width − R], y ∈ [top + R, height − R]. */
export const BOSS_BOUNDS: Readonly<Bounds> = Object.freeze({ width: 1100, height: 600, top: 200 });
/** (original) BOSS_PLAYER_RADIUS. Players keep 2R = 70 px apart. */
export const PLAYER_RADIUS = 35;
export const PLAYER_MIN_DISTANCE = 2 * PLAYER_RADIUS;
/** (original) The boss circle that player bullets hit. */
export const BOSS_RADIUS = 70;

// Joining
/** (spec) Bullets needed to join. */
export const MIN_BULLETS_TO_JOIN = 10;
/** A guest's claimed bullets (never verifiable) are capped to this. */
export const GUEST_MAX_BULLETS = 30;
// Characters and lives are the board game's (one definition, in the progress rules).
import { MAX_LIVES } from "../progress.js";
export { CHARACTERS, DEFAULT_CHARACTER, MAX_LIVES, type Character } from "../progress.js";
/** (spec) Lives at the start, and the most a heal can bring. */
export const START_LIVES = MAX_LIVES;

// Spawn allocation (original)
export const SPAWN_ATTEMPTS = 80;
export const SPAWN_PADDING = 24;
export const SPAWN_GRID_STEP = 70;
export const SPAWN_MIN_Y = 260;
/** A spawn is clear at ≥ 2R + 6 px from every player … */
export const SPAWN_CLEAR_OF_PLAYERS = 76;
/** … and ≥ boss radius + R + 12 px from the boss centre. */
export const SPAWN_CLEAR_OF_BOSS = 117;
/** Where a player goes (clamped) when no clear spot exists. */
export const SPAWN_FALLBACK: Readonly<Point> = Object.freeze({ x: 400, y: 500 });

// Movement
/** Top player speed in px/s; a client cannot move faster, whatever it sends. */
export const PLAYER_MAX_SPEED = 420;
/** Unused movement accumulates up to this many seconds' worth, to absorb network jitter. */
export const MOVE_BURST_SECONDS = 0.25;

// Shooting
/** (spec) Bullets spent per shot; damage per hit (design: 10, ×2 under the damage powerup). */
export const SHOT_DAMAGE = 10;
/** Sustained shots per second of one player … */
export const FIRE_RATE_PER_SECOND = 5;
/** … with up to this many shots banked, so network jitter does not eat legitimate shots. */
export const FIRE_BURST = 2;
export const BULLET_SPEED = 720;
export const BULLET_RADIUS = 6;
export const BULLET_LIFETIME_MS = 1500;

// The boss (spec: health 2000; patterns from the original client)
export const BOSS_MAX_HEALTH = 2000;
/** The boss's resting point above the player area (the original's assumed boss centre). */
export const BOSS_HOME: Readonly<Point> = Object.freeze({ x: 550, y: 110 });
/** The boss centre stays inside x ∈ [70, 1030], y ∈ [70, 530]. */
export const BOSS_AREA = Object.freeze({ minX: BOSS_RADIUS, maxX: 1100 - BOSS_RADIUS, minY: BOSS_RADIUS, maxY: 600 - BOSS_RADIUS });
export const BOSS_PATTERN_MIN_MS = 4000;
export const BOSS_PATTERN_MAX_MS = 7000;
/** Boss speeds per pattern, px/s. */
export const BOSS_SPEED = Object.freeze({ normal: 140, zigzag: 220, chase: 110, dash: 620, circle: 240, recover: 200 });
export const BOSS_ZIGZAG_Y = 150;
export const BOSS_ZIGZAG_AMPLITUDE = 60;
export const BOSS_ZIGZAG_PERIOD_MS = 1200;
export const BOSS_CIRCLE_CENTER: Readonly<Point> = Object.freeze({ x: 550, y: 300 });
export const BOSS_CIRCLE_RADIUS = Object.freeze({ x: 300, y: 150 });
/** rad/s */
export const BOSS_CIRCLE_ANGULAR_SPEED = 1.1;
export const BOSS_DASH_WINDUP_MS = 500;
export const BOSS_DASH_MAX_MS = 1200;

// Boss attacks on players
export const BOSS_ATTACK_INTERVAL_MS = 1600;
/** Below this share of health the boss attacks faster. */
export const BOSS_ENRAGE_HEALTH_RATIO = 0.3;
export const BOSS_ENRAGED_ATTACK_INTERVAL_MS = 1000;
export const BOSS_PROJECTILE_SPEED = 260;
export const BOSS_PROJECTILE_RADIUS = 14;
export const BOSS_PROJECTILE_LIFETIME_MS = 4000;
/** After losing a life a player cannot lose another for this long. */
export const INVULNERABLE_MS = 1000;

// Powerups (spec: types, effects, one spawn per room every 5 s; original: area and ids)
export const POWERUP_TYPES = ["damage", "speed", "rapidfire", "heal"] as const;
export type PowerupType = (typeof POWERUP_TYPES)[number];
export const POWERUP_SPAWN_INTERVAL_MS = 5000;
export const POWERUP_AREA = Object.freeze({ minX: 100, maxX: 700, minY: 300, maxY: 550 });
export const POWERUP_ID_LENGTH = 8;
export const POWERUP_RADIUS = 20;
/** A player collects a powerup when their centres are this close. */
export const POWERUP_PICKUP_DISTANCE = PLAYER_RADIUS + POWERUP_RADIUS;
/** Uncollected powerups disappear after this long (the original kept them forever). */
export const POWERUP_LIFETIME_MS = 20_000;
export const MAX_ACTIVE_POWERUPS = 4;
export const DAMAGE_BOOST_MULTIPLIER = 2;
export const DAMAGE_BOOST_MS = 8000;
export const SPEED_BOOST_MULTIPLIER = 1.5;
export const SPEED_BOOST_MS = 10_000;
export const RAPIDFIRE_BULLETS = 15;
export const HEAL_LIVES = 1;
export const HEAL_BULLETS_AT_FULL_LIVES = 10;

// Simulation
/** The room steps the simulation at this rate. */
export const SIMULATION_HZ = 30;
/** A step longer than this (event-loop stall) is split into sub-steps of at most … */
export const MAX_SUBSTEP_MS = 50;
/** … and time beyond this per call is dropped rather than simulated in one burst. */
export const MAX_STEP_MS = 250;
