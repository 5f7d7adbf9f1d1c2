// Randomness behind an injectable function, so simulations replay exactly in tests.

/** Returns a float in [0, 1), like Math.random. */
export type Rng = () => number;

export const defaultRng: Rng = Math.random;

/** A small deterministic generator (mulberry32) for tests and replays. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max], both included. */
export function randomInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** A uniform float in [min, max). */
export function randomBetween(rng: Rng, min: number, max: number): number {
  return min + rng() * (max - min);
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.min(items.length - 1, Math.floor(rng() * items.length))];
}

/** `length` lowercase hex characters. */
export function randomHex(rng: Rng, length: number): string {
  let out = "";
  while (out.length < length) out += Math.floor(rng() * 16).toString(16);
  return out;
}
