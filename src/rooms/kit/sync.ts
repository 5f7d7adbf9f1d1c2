// Copying a simulation into synchronized schema state: the rooms' sync functions assign a field only
// when its value differs, so unchanged fields never enter a patch, and round positions to what
// clients need.

/** One decimal: positions on the wire. */
export const round1 = (n: number) => Math.round(n * 10) / 10;
