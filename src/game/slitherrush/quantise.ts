// Numbers as they travel on the wire, shared by the simulation (which flies bullets along the
// quantised direction, so clients fly them identically) and the snapshot codec.

/** Positions travel in tenths of a pixel (an unsigned 16-bit value covers 0..6553.5 px). */
export const POSITION_SCALE = 10;
/** Directions travel as 16-bit angles: a full turn is 65536 steps. */
export const ANGLE_STEPS = 65536;

/** The 16-bit angle of the direction (dx, dy). */
export function angleOf(dx: number, dy: number): number {
  const a = Math.round((Math.atan2(dy, dx) / (2 * Math.PI)) * ANGLE_STEPS);
  return ((a % ANGLE_STEPS) + ANGLE_STEPS) % ANGLE_STEPS;
}

/** The unit vector of a 16-bit angle. */
export function unitOfAngle(angle: number): { x: number; y: number } {
  const radians = (angle / ANGLE_STEPS) * 2 * Math.PI;
  return { x: Math.cos(radians), y: Math.sin(radians) };
}

/** A coordinate in tenths of a pixel, clamped to 0..65535. */
export function quantisePosition(v: number): number {
  const q = Math.round(v * POSITION_SCALE);
  return q < 0 ? 0 : q > 65535 ? 65535 : q;
}
