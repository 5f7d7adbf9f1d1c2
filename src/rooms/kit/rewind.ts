// Lag compensation for a room, on Colyseus' own Rewind (docs/netcode.md): the room enables it with
// `allowRewindState`, attaches what shots are judged against, and hands the simulation a
// PastPositions read from the recorded history. A shot's lag is the age of the render-time stamp
// the SDK puts on each input (shotLag, clamped by the game's cap); a projectile keeps that duration
// for its whole flight and reads the history at `now − lag` each step, which is why it goes
// through `rewind.at` rather than `rewind.lastSeenBy` (the view of one instant).
import type { Rewind } from "@colyseus/core";
import { MAX_REWIND_MS, type PastPositions } from "../../game/lagCompensation.js";

/**
 * History the Rewind keeps beyond the cap: it records at the patch rate, so a view at the cap
 * still has a sample on each side of it to interpolate between.
 */
export const REWIND_HISTORY_MS = MAX_REWIND_MS + 100;

export interface Positioned {
  x: number;
  y: number;
}

/** The simulation's PastPositions over the Rewind: `entityOf(id)` is the synchronized (and attached) entity. */
export function rewoundPositions(rewind: Rewind, now: () => number, entityOf: (id: string) => Positioned | undefined): PastPositions {
  return {
    at(id, lagMs) {
      const entity = entityOf(id);
      if (!entity) return undefined;
      const seen = rewind.at(now() - lagMs);
      return { x: seen.value(entity, "x"), y: seen.value(entity, "y") };
    },
  };
}
