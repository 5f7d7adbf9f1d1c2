// A PvP move request, server-side: the speed cap, then clamp into the player's own half of the
// arena (the centre wall is never crossed), then the collision with the opponent at 56 px through
// the shared collision function, then the clamp again: the wall wins over a push.
import { clamp, limitStep, resolveCollision, type Point } from "../geometry.js";
import { MOVE_BURST_SECONDS, PLAYER_MAX_SPEED, PLAYER_MIN_DISTANCE, PLAYER_RADIUS, PVP_BOUNDS, WALL_LEFT, WALL_RIGHT, type PlayerNumber } from "./constants.js";

export interface Lane {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** Where a player's centre may be: P1 left of the wall (x ≤ 366), P2 right of it (x ≥ 434). */
export function laneOf(number: PlayerNumber): Lane {
  const minY = PVP_BOUNDS.top + PLAYER_RADIUS;
  const maxY = PVP_BOUNDS.height - PLAYER_RADIUS;
  return number === 1
    ? { minX: PLAYER_RADIUS, maxX: WALL_LEFT - PLAYER_RADIUS, minY, maxY }
    : { minX: WALL_RIGHT + PLAYER_RADIUS, maxX: PVP_BOUNDS.width - PLAYER_RADIUS, minY, maxY };
}

export function clampToLane(p: Point, number: PlayerNumber): Point {
  const lane = laneOf(number);
  return { x: clamp(p.x, lane.minX, lane.maxX), y: clamp(p.y, lane.minY, lane.maxY) };
}

/** How much unused movement (px) a player may bank. */
export const MOVE_BUDGET_CAP = PLAYER_MAX_SPEED * MOVE_BURST_SECONDS;

export interface MoveRequest {
  number: PlayerNumber;
  from: Point;
  to: Point;
  /** Movement (px) the player may still spend. */
  budget: number;
  /** The opponent's centre, when there is one. */
  opponent?: Point;
}

export interface MoveOutcome extends Point {
  /** The request was shortened by the speed cap. */
  limited: boolean;
  /** The opponent pushed the point away. */
  collided: boolean;
  /** Budget spent by this move. */
  spent: number;
}

export function resolveMove(req: MoveRequest): MoveOutcome {
  const step = limitStep(req.from, req.to, req.budget);
  let p = clampToLane(step, req.number);
  let collided = false;
  if (req.opponent) {
    const r = resolveCollision(p.x, p.y, req.opponent.x, req.opponent.y, PLAYER_MIN_DISTANCE);
    p = clampToLane(r, req.number);
    collided = r.collided;
  }
  return { x: p.x, y: p.y, limited: step.limited, collided, spent: step.distance };
}
