// Copying a simulation into synchronized schema state: assign only what changed, so unchanged
// fields never enter a patch, and round positions to what clients need.

/** Assigns only when the value differs. */
export function set<T extends object, K extends keyof T>(target: T, key: K, value: T[K]): void {
  if (target[key] !== value) target[key] = value;
}

/** One decimal: positions on the wire. */
export const round1 = (n: number) => Math.round(n * 10) / 10;
