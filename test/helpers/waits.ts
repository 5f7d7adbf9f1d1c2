// Waiting on a room's own events instead of the wall clock, with @colyseus/testing's extensions
// (loaded by ./app.ts): the server room's simulation steps, the client's state patches, and the
// server room's disposal.
import type { Room } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";

/** Lets the server room simulate, step by step, until `check` holds (budgets refill, bullets fly). */
export async function ticksUntil(server: Room, check: () => unknown, what: string, maxTicks = 300): Promise<void> {
  for (let tick = 0; !check(); tick++) {
    if (tick >= maxTicks) throw new Error(`${what}: still not after ${maxTicks} simulation steps`);
    await server.waitForNextSimulationTick();
  }
}

/** Waits, patch by patch, until the client's synchronized state satisfies `check`. */
export async function patchedUntil(room: SdkRoom, check: () => unknown, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no patch made it true within ${timeoutMs} ms`)), Math.max(0, left));
    });
    try {
      await Promise.race([room.waitForNextPatch(), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves once the server room is fully gone: its onDispose (and every write in it) finished. */
export function disposed(server: Room): Promise<void> {
  // Colyseus emits "disconnect" on the room's internal events after its async onDispose settled.
  return new Promise((resolve) => (server as unknown as { _events: NodeJS.EventEmitter })._events.once("disconnect", () => resolve()));
}
