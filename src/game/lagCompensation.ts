// "What you see is what you hit", as a game rule: a shot is judged against its target where the
// shooter's screen showed it, not where the target has moved to since. Pure: the simulations ask a
// `PastPositions` for a target's position `lagMs` ago and the room fills it from Colyseus' Rewind
// (docs/netcode.md); these functions only decide how far back a shot may look.
import type { Point } from "./geometry.js";

/**
 * The rewind cap: no shot is judged against a past older than this. A client's view is about one
 * round trip plus its interpolation delay behind the server when its input is applied (plus up
 * to a tick of waiting): 450 ms covers a 250 ms round trip with /play's 100 ms interpolation; a
 * slower connection is judged at this age (it must lead its shots by the rest). It is also the
 * most a victim can be hit "late": a target moving at full speed is at most cap × speed from
 * where the shooter saw it (PvP: 0.45 s × 450 px/s ≈ 200 px).
 */
export const MAX_REWIND_MS = 450;

/** Where targets were in the past, as the room recorded what it sent to its clients. */
export interface PastPositions {
  /** The target's centre `lagMs` before now; undefined when nothing is known (it is then judged live). */
  at(targetId: string, lagMs: number): Point | undefined;
}

/**
 * How far back a shot may look: the shooter's view age (`nowMs − seenAtMs`, both on the room's
 * clock) limited to [0, capMs]. A stamp that is missing (≤ 0), not a number, or in the future
 * judges live (0); one further back than the cap is judged at the cap, never beyond it.
 */
export function shotLag(nowMs: number, seenAtMs: number, capMs = MAX_REWIND_MS): number {
  if (!Number.isFinite(nowMs) || !Number.isFinite(seenAtMs) || seenAtMs <= 0) return 0;
  return clampLag(nowMs - seenAtMs, capMs);
}

/** A lag (ms) the simulation accepts: a non-number or a negative one is 0, more than the cap is the cap. */
export function clampLag(lagMs: number, capMs = MAX_REWIND_MS): number {
  if (!Number.isFinite(lagMs) || lagMs <= 0) return 0;
  return Math.min(lagMs, Math.max(0, capMs));
}

/** Target `id` as the shooter saw it `lagMs` ago, or `live` (where it is now) when that is not known or lag is 0. */
export function seenPosition(past: PastPositions | undefined, id: string, live: Point, lagMs: number): Point {
  if (lagMs <= 0 || !past) return live;
  return past.at(id, lagMs) ?? live;
}
