// The constants of the binary `slitherrush_state` snapshot (docs/slitherrush.md has the layout).
// The encoder (./snapshotEncoder.ts) and the client decoder (src/protocol/slitherrushSnapshot.ts)
// both read them from here.

/** First byte of every snapshot; bumped on any incompatible change of the layout. */
export const SNAPSHOT_VERSION = 1;
/** selfSlot when the receiver has no snake in the arena. */
export const NO_SLOT = 255;

// Snake record flags
export const SNAKE_FULL = 0b0000_0001;
export const SNAKE_HP_SHIFT = 1;
export const SNAKE_HP_MASK = 0b0000_0110;
export const SNAKE_PROTECTED = 0b0000_1000;

// Self block flags
export const SELF_HP_MASK = 0b0000_0011;
export const SELF_PROTECTED = 0b0000_0100;

/** A point delta byte of this value introduces an absolute point (u16 x, u16 y) instead. */
export const ABSOLUTE_POINT = -128;
/** Largest delta (in tenths of a pixel) a point may have and still travel as two int8. */
export const MAX_DELTA = 127;

/** Longest UTF-8 player id and username carried by an identity record. */
export const MAX_ID_BYTES = 64;
export const MAX_NAME_BYTES = 96;
