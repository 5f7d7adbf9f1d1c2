// A client's steering intent, normalised: a finite direction becomes a unit vector, a (near) zero
// one keeps the current heading. Validation of types and ranges happens at the protocol edge; this
// is the rule the simulation applies.
import { MIN_DIRECTION_LENGTH } from "./constants.js";

export interface Heading {
  x: number;
  y: number;
}

/** The unit vector of (x, y), or `current` when (x, y) is not finite or too short to have a direction. */
export function normaliseDirection(x: number, y: number, current: Heading): Heading {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return current;
  const length = Math.hypot(x, y);
  if (!(length >= MIN_DIRECTION_LENGTH) || !Number.isFinite(length)) return current;
  return { x: x / length, y: y / length };
}
