// Powerups: spawning, pickup by proximity and the spec's effects, applied and expired by the
// server's clock (timestamps in simulation milliseconds).
import { pick, randomHex, randomInt, type Rng } from "../rng.js";
import {
  DAMAGE_BOOST_MS,
  DAMAGE_BOOST_MULTIPLIER,
  HEAL_BULLETS_AT_FULL_LIVES,
  HEAL_LIVES,
  MAX_LIVES,
  POWERUP_AREA,
  POWERUP_ID_LENGTH,
  POWERUP_LIFETIME_MS,
  POWERUP_PICKUP_DISTANCE,
  POWERUP_TYPES,
  RAPIDFIRE_BULLETS,
  SPEED_BOOST_MS,
  SPEED_BOOST_MULTIPLIER,
  type Point,
  type PowerupType,
} from "./constants.js";

export interface Powerup extends Point {
  id: string;
  type: PowerupType;
  spawnedAt: number;
  expiresAt: number;
}

/** What a powerup changes on a player. */
export interface PowerupHolder {
  lives: number;
  bullets: number;
  /** Bullets picked up in this battle (spent first, never credited to an account). */
  bonusBullets: number;
  damageBoostUntil: number;
  speedBoostUntil: number;
}

export interface PowerupEffect {
  type: PowerupType;
  livesGained: number;
  bulletsGained: number;
  /** Simulation time the boost lasts until, for damage and speed. */
  until?: number;
  multiplier?: number;
}

export function createPowerup(rng: Rng, now: number, takenIds: ReadonlySet<string> | Map<string, unknown> = new Set()): Powerup {
  let id = randomHex(rng, POWERUP_ID_LENGTH);
  while (takenIds.has(id)) id = randomHex(rng, POWERUP_ID_LENGTH);
  return {
    id,
    type: pick(rng, POWERUP_TYPES),
    x: randomInt(rng, POWERUP_AREA.minX, POWERUP_AREA.maxX),
    y: randomInt(rng, POWERUP_AREA.minY, POWERUP_AREA.maxY),
    spawnedAt: now,
    expiresAt: now + POWERUP_LIFETIME_MS,
  };
}

export function inPickupReach(player: Point, powerup: Point): boolean {
  return Math.hypot(player.x - powerup.x, player.y - powerup.y) <= POWERUP_PICKUP_DISTANCE;
}

/**
 * damage: 2× damage for 8 s; speed: 1.5× speed for 10 s; rapidfire: +15 bullets;
 * heal: +1 life, or +10 bullets when lives are full (5). Collecting a running boost again restarts
 * its timer. Mutates the holder.
 */
export function applyPowerup(holder: PowerupHolder, type: PowerupType, now: number): PowerupEffect {
  switch (type) {
    case "damage":
      holder.damageBoostUntil = now + DAMAGE_BOOST_MS;
      return { type, livesGained: 0, bulletsGained: 0, until: holder.damageBoostUntil, multiplier: DAMAGE_BOOST_MULTIPLIER };
    case "speed":
      holder.speedBoostUntil = now + SPEED_BOOST_MS;
      return { type, livesGained: 0, bulletsGained: 0, until: holder.speedBoostUntil, multiplier: SPEED_BOOST_MULTIPLIER };
    case "rapidfire":
      addBonusBullets(holder, RAPIDFIRE_BULLETS);
      return { type, livesGained: 0, bulletsGained: RAPIDFIRE_BULLETS };
    case "heal":
      if (holder.lives < MAX_LIVES) {
        holder.lives = Math.min(MAX_LIVES, holder.lives + HEAL_LIVES);
        return { type, livesGained: HEAL_LIVES, bulletsGained: 0 };
      }
      addBonusBullets(holder, HEAL_BULLETS_AT_FULL_LIVES);
      return { type, livesGained: 0, bulletsGained: HEAL_BULLETS_AT_FULL_LIVES };
  }
}

function addBonusBullets(holder: PowerupHolder, n: number): void {
  holder.bullets += n;
  holder.bonusBullets += n;
}

export function damageMultiplier(holder: Pick<PowerupHolder, "damageBoostUntil">, now: number): number {
  return now < holder.damageBoostUntil ? DAMAGE_BOOST_MULTIPLIER : 1;
}

export function speedMultiplier(holder: Pick<PowerupHolder, "speedBoostUntil">, now: number): number {
  return now < holder.speedBoostUntil ? SPEED_BOOST_MULTIPLIER : 1;
}
