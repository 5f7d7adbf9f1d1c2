// Safe spawn allocation (original allocate_boss_spawn): random samples first, then a grid scan,
// then a clamped fallback. The RNG is injected so tests replay exactly.
import type { Rng } from "../rng.js";
import { randomBetween } from "../rng.js";
import {
  BOSS_BOUNDS,
  BOSS_HOME,
  PLAYER_RADIUS,
  SPAWN_ATTEMPTS,
  SPAWN_CLEAR_OF_BOSS,
  SPAWN_CLEAR_OF_PLAYERS,
  SPAWN_FALLBACK,
  SPAWN_GRID_STEP,
  SPAWN_MIN_Y,
  SPAWN_PADDING,
  type Bounds,
  type Point,
} from "./constants.js";

export interface SpawnArea {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** x ∈ [R + 24, width − R − 24], y ∈ [max(top + R, 260), height − R − 24]. */
export function spawnArea(bounds: Bounds = BOSS_BOUNDS): SpawnArea {
  return {
    minX: PLAYER_RADIUS + SPAWN_PADDING,
    maxX: bounds.width - PLAYER_RADIUS - SPAWN_PADDING,
    minY: Math.max(bounds.top + PLAYER_RADIUS, SPAWN_MIN_Y),
    maxY: bounds.height - PLAYER_RADIUS - SPAWN_PADDING,
  };
}

/** ≥ 76 px from every player and ≥ 117 px from the boss centre. */
export function isClearSpawn(p: Point, players: readonly Point[], boss: Point): boolean {
  if (Math.hypot(p.x - boss.x, p.y - boss.y) < SPAWN_CLEAR_OF_BOSS) return false;
  return players.every((o) => Math.hypot(p.x - o.x, p.y - o.y) >= SPAWN_CLEAR_OF_PLAYERS);
}

export interface SpawnResult extends Point {
  method: "sample" | "grid" | "fallback";
}

export function allocateSpawn(
  players: readonly Point[],
  rng: Rng,
  options: { bounds?: Bounds; boss?: Point; fallback?: Point } = {},
): SpawnResult {
  const area = spawnArea(options.bounds);
  const boss = options.boss ?? BOSS_HOME;
  for (let i = 0; i < SPAWN_ATTEMPTS; i++) {
    const p = { x: randomBetween(rng, area.minX, area.maxX), y: randomBetween(rng, area.minY, area.maxY) };
    if (isClearSpawn(p, players, boss)) return { ...p, method: "sample" };
  }
  for (let y = area.minY; y <= area.maxY; y += SPAWN_GRID_STEP) {
    for (let x = area.minX; x <= area.maxX; x += SPAWN_GRID_STEP) {
      if (isClearSpawn({ x, y }, players, boss)) return { x, y, method: "grid" };
    }
  }
  const fallback = options.fallback ?? SPAWN_FALLBACK;
  return {
    x: Math.min(area.maxX, Math.max(area.minX, fallback.x)),
    y: Math.min(area.maxY, Math.max(area.minY, fallback.y)),
    method: "fallback",
  };
}
