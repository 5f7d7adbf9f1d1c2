// Every number of SlitherRush in one place. (original) marks the original system's values
// (shared/notes/original-system.md §8, design.md); the rest are our choices, explained in
// docs/slitherrush.md.

// Arena and timing
/** (original) Simulation steps per second; the room steps with an accumulator at exactly this rate. */
export const TICK_RATE = 30;
export const TICK_SECONDS = 1 / TICK_RATE;
/** Snapshots go out every second tick: 15 per second. */
export const TICKS_PER_SNAPSHOT = 2;
/** (original) LEADERBOARD_INTERVAL. */
export const LEADERBOARD_INTERVAL_MS = 450;
/** (original) */
export const ARENA_WIDTH = 4400;
export const ARENA_HEIGHT = 2800;
/** (original) MAX_PLAYERS_PER_ARENA. */
export const MAX_PLAYERS = 32;

// Snakes
/** (original) px/s. */
export const PLAYER_SPEED = 225;
export const HEAD_RADIUS = 11;
/** (original) Body lengths in segments. */
export const START_LENGTH = 14;
export const MIN_LENGTH = 10;
export const MAX_LENGTH = 40;
/** (original) Spacing of a freshly built body; afterwards one segment per tick (7.5 px apart). */
export const SEGMENT_SPACING = 10;
export const MAX_HP = 3;
/** (original) */
export const SPAWN_PROTECT_SECONDS = 0.6;
export const SPAWN_PROTECT_TICKS = Math.round(SPAWN_PROTECT_SECONDS * TICK_RATE);

// Shooting
/** (original) px/s. */
export const BULLET_SPEED = 640;
export const BULLET_RADIUS = 4;
/** (original) A bullet hits a head when their squared distance is at most (11 + 4)² = 225. */
export const HIT_RADIUS = HEAD_RADIUS + BULLET_RADIUS;
export const HIT_RADIUS_SQ = HIT_RADIUS * HIT_RADIUS;
/** (original) 1.35 s, flown in whole ticks: 41 ticks (1.367 s). */
export const BULLET_LIFETIME_SECONDS = 1.35;
export const BULLET_LIFETIME_TICKS = Math.ceil(BULLET_LIFETIME_SECONDS * TICK_RATE - 1e-9);
/** (original) 0.22 s between shots of one snake: 7 ticks (0.233 s). */
export const FIRE_COOLDOWN_SECONDS = 0.22;
export const FIRE_COOLDOWN_TICKS = Math.ceil(FIRE_COOLDOWN_SECONDS * TICK_RATE - 1e-9);
/** (original) Bullets in flight per arena; a shot beyond it is not fired. */
export const MAX_BULLETS = 240;
/** (original) A bullet starts this far ahead of the head. */
export const MUZZLE_OFFSET = 17;

// Scoring (original)
export const KILL_SCORE = 1;
export const KILL_GROWTH = 2;
export const DEATH_SCORE = 1;
export const DEATH_SHRINK = 2;
/** Entries of the live leaderboard. */
export const LEADERBOARD_SIZE = 5;

// Spawning (original)
export const SPAWN_MARGIN = 120;
/** A spawn keeps at least this distance from every other head … */
export const SPAWN_CLEARANCE = 140;
/** … found in at most this many random tries, else the arena centre. */
export const SPAWN_TRIES = 90;

/** (original) Snake colours: the first one unused in the arena, else a random one. */
export const COLORS = ["#56d8ff", "#ffb457", "#94f88f", "#ff7e9f", "#bfa7ff", "#ffd86f", "#67f0d2", "#8ec5ff", "#ff9d6e", "#d2ff7a"] as const;

// Input
/** Direction components beyond this are refused (any finite vector within it is normalised). */
export const MAX_DIRECTION_COMPONENT = 1e6;
/** Shorter direction vectors keep the current heading. */
export const MIN_DIRECTION_LENGTH = 1e-6;
