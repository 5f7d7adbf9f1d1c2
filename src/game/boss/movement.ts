// A player's move request, server-side: speed cap, then the spec's rules 2–3 (clamp to the arena,
// resolve collisions against every other player in order), then a final clamp so a push never
// leaves a player outside the arena (as the original server did), and a last check that the clamp
// did not put the player back onto another one.
import { limitStep, pushApart, type CollisionResult } from "../geometry.js";
export { limitStep };
import { BOSS_BOUNDS, MOVE_BURST_SECONDS, PLAYER_MAX_SPEED, PLAYER_MIN_DISTANCE, PLAYER_RADIUS, type Bounds, type Point } from "./constants.js";

/** Rule 2: x ∈ [R, width − R], y ∈ [top + R, height − R]. */
export function clampToArena(x: number, y: number, bounds: Bounds = BOSS_BOUNDS, radius = PLAYER_RADIUS): Point {
  return {
    x: Math.min(bounds.width - radius, Math.max(radius, x)),
    y: Math.min(bounds.height - radius, Math.max(bounds.top + radius, y)),
  };
}

/** px/s a player may move at, given its speed multiplier. */
export function maxSpeed(multiplier = 1): number {
  return PLAYER_MAX_SPEED * multiplier;
}

/** How much unused movement (px) a player may bank. */
export function moveBudgetCap(multiplier = 1): number {
  return maxSpeed(multiplier) * MOVE_BURST_SECONDS;
}

export interface MoveRequest {
  from: Point;
  to: Point;
  /** Movement (px) the player may still spend; see PlayerMotion. */
  budget: number;
  /** The other players, in room order. */
  others: readonly Point[];
  bounds?: Bounds;
}

export interface MoveOutcome extends Point {
  /** The request was shortened by the speed cap. */
  limited: boolean;
  /** Some other player pushed the point away. */
  collided: boolean;
  /** Budget spent by this move. */
  spent: number;
}

const pushed: CollisionResult = { x: 0, y: 0, collided: false };

export function resolveMove(req: MoveRequest): MoveOutcome {
  const bounds = req.bounds ?? BOSS_BOUNDS;
  const step = limitStep(req.from, req.to, req.budget);
  const start = clampToArena(step.x, step.y, bounds);
  // Pushed by every other player in turn, in one reused result (a move meets up to 9 others).
  const r = pushed;
  r.x = start.x;
  r.y = start.y;
  let collided = false;
  for (const other of req.others) collided = pushApart(r.x, r.y, other.x, other.y, PLAYER_MIN_DISTANCE, r).collided || collided;
  const p = clampToArena(r.x, r.y, bounds);
  // The final clamp can undo a push (a player pushed into a wall or corner lands back on the one it
  // was pushed away from): then the player stays where it was, if that spot was clear.
  if (crowds(p, req.others) && !crowds(req.from, req.others)) return { x: req.from.x, y: req.from.y, limited: step.limited, collided: true, spent: 0 };
  return { x: p.x, y: p.y, limited: step.limited, collided, spent: step.distance };
}

/** Rounding slack: a push puts a point exactly 2R away, give or take the last bit. */
const DISTANCE_SLACK = 1e-6;

/** Whether `p` is closer than 2R to any of `others`. */
function crowds(p: Point, others: readonly Point[]): boolean {
  for (const o of others) if (Math.hypot(p.x - o.x, p.y - o.y) < PLAYER_MIN_DISTANCE - DISTANCE_SLACK) return true;
  return false;
}
