// The spec's collision resolution function, shared by the boss battle and PvP.
// Pure: no state, no I/O.

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
  const dx = desiredX - otherX;
  const dy = desiredY - otherY;
  const d = Math.hypot(dx, dy);
  if (d < COINCIDENT_DISTANCE) return { x: otherX + minDist, y: desiredY, collided: true };
  if (d >= minDist) return { x: desiredX, y: desiredY, collided: false };
  const push = minDist - d;
  return { x: desiredX + (dx / d) * push, y: desiredY + (dy / d) * push, collided: true };
}
