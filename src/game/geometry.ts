// Geometry shared by every mode: points, arena bounds, the spec's collision resolution function
// (boss battle and PvP), the speed-capped step and the segment–circle test for projectiles.
// Pure: no state, no I/O.

export interface Point {
  x: number;
  y: number;
}

/** A rectangular arena; `top` is the first usable row (the boss arena keeps a band above it). */
export interface Bounds {
  width: number;
  height: number;
  top: number;
}

export interface CollisionResult {
  x: number;
  y: number;
  collided: boolean;
}

/** Below this distance the two points count as the same point. */
export const COINCIDENT_DISTANCE = 0.001;

/**
 * Keeps a desired point at least `minDist` away from another point:
 * - the points coincide (d < 0.001): (otherX + minDist, desiredY), collided;
 * - far enough (d >= minDist): the desired point unchanged, not collided;
 * - otherwise: the desired point pushed away from the other point along their unit vector by
 *   (minDist - d), which puts it exactly minDist away, collided.
 */
export function resolveCollision(desiredX: number, desiredY: number, otherX: number, otherY: number, minDist: number): CollisionResult {
  return pushApart(desiredX, desiredY, otherX, otherY, minDist, { x: 0, y: 0, collided: false });
}

/** resolveCollision written into `out` (a move checks every other player: no object per check). */
export function pushApart(desiredX: number, desiredY: number, otherX: number, otherY: number, minDist: number, out: CollisionResult): CollisionResult {
  const dx = desiredX - otherX;
  const dy = desiredY - otherY;
  const d = Math.hypot(dx, dy);
  if (d < COINCIDENT_DISTANCE) {
    out.x = otherX + minDist;
    out.y = desiredY;
    out.collided = true;
  } else if (d >= minDist) {
    out.x = desiredX;
    out.y = desiredY;
    out.collided = false;
  } else {
    const push = minDist - d;
    out.x = desiredX + (dx / d) * push;
    out.y = desiredY + (dy / d) * push;
    out.collided = true;
  }
  return out;
}

/** Whether the segment (x0,y0)→(x1,y1) passes within r of (cx,cy): a projectile's path this tick. */
export function segmentHitsCircle(x0: number, y0: number, x1: number, y1: number, cx: number, cy: number, r: number): boolean {
  const dx = x1 - x0;
  const dy = y1 - y0;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((cx - x0) * dx + (cy - y0) * dy) / len2));
  return Math.hypot(x0 + t * dx - cx, y0 + t * dy - cy) <= r;
}

/** `v` limited to [min, max]. */
export function clamp(v: number, min: number, max: number): number {
  return v < min ? min : v > max ? max : v;
}

/** The furthest point towards `to` that is at most `maxDistance` from `from`. */
export function limitStep(from: Point, to: Point, maxDistance: number): Point & { limited: boolean; distance: number } {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const distance = Math.hypot(dx, dy);
  if (distance <= maxDistance) return { x: to.x, y: to.y, limited: false, distance };
  const allowed = Math.max(0, maxDistance);
  return { x: from.x + (dx / distance) * allowed, y: from.y + (dy / distance) * allowed, limited: true, distance: allowed };
}
