// Where a snake (re)appears and the body it gets: a random point at least SPAWN_CLEARANCE from
// every other head (SPAWN_TRIES samples, else the arena centre), and a straight body trailing
// behind the head at SEGMENT_SPACING, kept inside the arena.
import { clamp, type Point } from "../geometry.js";
import { randomBetween, type Rng } from "../rng.js";
import { HEAD_RADIUS, SEGMENT_SPACING, SPAWN_CLEARANCE, SPAWN_MARGIN, SPAWN_TRIES } from "./constants.js";

export interface ArenaSize {
  width: number;
  height: number;
}

export function isClearOfHeads(p: Point, heads: readonly Point[]): boolean {
  const min2 = SPAWN_CLEARANCE * SPAWN_CLEARANCE;
  for (const h of heads) {
    const dx = p.x - h.x;
    const dy = p.y - h.y;
    if (dx * dx + dy * dy < min2) return false;
  }
  return true;
}

export function findSpawn(heads: readonly Point[], rng: Rng, size: ArenaSize): Point {
  for (let i = 0; i < SPAWN_TRIES; i++) {
    const p = { x: randomBetween(rng, SPAWN_MARGIN, size.width - SPAWN_MARGIN), y: randomBetween(rng, SPAWN_MARGIN, size.height - SPAWN_MARGIN) };
    if (isClearOfHeads(p, heads)) return p;
  }
  return { x: size.width / 2, y: size.height / 2 };
}

/** `length` points from the head backwards along −direction, clamped to where heads may be. */
export function buildBody(head: Point, dirX: number, dirY: number, length: number, size: ArenaSize): Point[] {
  const body: Point[] = [];
  for (let i = 0; i < length; i++) {
    body.push({
      x: clamp(head.x - dirX * SEGMENT_SPACING * i, HEAD_RADIUS, size.width - HEAD_RADIUS),
      y: clamp(head.y - dirY * SEGMENT_SPACING * i, HEAD_RADIUS, size.height - HEAD_RADIUS),
    });
  }
  return body;
}
