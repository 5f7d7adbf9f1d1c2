// The fire-rate rule (shots per second with a few banked), judged at the time a shot was FIRED on
// the player's screen rather than when it reached the server. Shots of the input channel carry
// their own stamp (its age on arrival, `ageMs`); a retransmission after a lost packet delivers
// shots fired 255 ms apart in one bunch, and judged on arrival the later ones found no charge.
// A claimed time is bounded by the server's clock, so a client cannot fire faster by lying:
// - a shot's time is `now − age`, the age clamped to [0, MAX_SHOT_AGE_MS]: never ahead of the
//   server's clock, never further back than a retransmission plausibly delays it;
// - times only move forward (a shot claiming to be older than the last one is judged at the last);
// so over any window a player fires at most burst + rate × (window + MAX_SHOT_AGE_MS) shots.
// `charge` is kept as of the server's clock (refilled each step, for whoever asks whether a shot
// is ready); the charge at the last shot's time is kept beside it to judge a shot fired earlier.

/** How far back a shot's own stamp may date it: a retransmission (RTO ≥ 200 ms) after a 250 ms round trip, with margin. */
export const MAX_SHOT_AGE_MS = 1000;

/** Rounding allowed when a charge is compared with one shot. */
const CHARGE_EPSILON = 1e-9;

export interface FireRate {
  ratePerSecond: number;
  burst: number;
}

/** A player's fire-rate state (the simulations keep these fields on their players). */
export interface FireGauge {
  /** Shots available now (at the simulation's clock). */
  fireCharge: number;
  /** The simulation time of the last shot taken, and the charge left just after it. */
  lastShotAt: number;
  chargeAfterShot: number;
}

/** A full gauge (a new player, a new battle). */
export function fullGauge(rule: FireRate): FireGauge {
  return { fireCharge: rule.burst, lastShotAt: -Infinity, chargeAfterShot: rule.burst };
}

/** Refills the charge as the simulation's clock moves by `dtMs`. */
export function refillGauge(gauge: FireGauge, rule: FireRate, dtMs: number): void {
  gauge.fireCharge = Math.min(rule.burst, gauge.fireCharge + (rule.ratePerSecond * dtMs) / 1000);
}

/**
 * When a shot fired `ageMs` before `nowMs` (the simulation's clock) is judged to have been fired,
 * if the rule allows it at that time; NaN when it does not. An age that is missing, not a number or
 * negative is 0. Changes nothing: `spendShot` takes the shot.
 */
export function shotTime(gauge: FireGauge, rule: FireRate, nowMs: number, ageMs = 0): number {
  const age = Number.isFinite(ageMs) && ageMs > 0 ? Math.min(ageMs, MAX_SHOT_AGE_MS) : 0;
  const at = Math.min(nowMs, Math.max(gauge.lastShotAt, nowMs - age));
  // A shot of now is judged on the charge the steps refilled, the one the players are shown: the
  // same sum taken in one go differs in its last bits (0.9999999999999998 refused a ready shot).
  const charge = at >= nowMs ? gauge.fireCharge : chargeAt(gauge, rule, at);
  return charge >= 1 - CHARGE_EPSILON ? at : Number.NaN;
}

/** Takes the shot `shotTime` allowed at `at`. */
export function spendShot(gauge: FireGauge, rule: FireRate, nowMs: number, at: number): void {
  gauge.chargeAfterShot = Math.max(0, (at >= nowMs ? gauge.fireCharge : chargeAt(gauge, rule, at)) - 1);
  gauge.lastShotAt = at;
  gauge.fireCharge = Math.min(rule.burst, gauge.chargeAfterShot + (rule.ratePerSecond * (nowMs - at)) / 1000);
}

/** The charge at time `at` (not before the last shot), from the charge left after the last shot. */
function chargeAt(gauge: FireGauge, rule: FireRate, at: number): number {
  return Math.min(rule.burst, gauge.chargeAfterShot + (rule.ratePerSecond * (at - gauge.lastShotAt)) / 1000);
}
