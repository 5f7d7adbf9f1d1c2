// A process that is stopping drains its rooms (docs/operations.md#stopping-and-deploying). On
// SIGTERM/SIGINT Colyseus' graceful shutdown takes the process out of matchmaking, locks every room
// and calls its onBeforeShutdown: rooms whose players can simply go elsewhere (lobby, mode status,
// SlitherRush arenas) tell them to (`server_draining`) and close; a running duel or boss battle
// plays on to its end, at most until the drain limit. The process exits when its rooms are gone.
import { CloseCode, type Client } from "@colyseus/core";
import type { DrainingOutbound, ServerDrainingPayload } from "../../protocol/common.js";

/** How long a told client waits before matchmaking again: the process has left matchmaking by then. */
export const RETRY_AFTER_MS = 1000;

let drainLimitMs = 0;

/** How long running matches may play on once the process is stopping (SHUTDOWN_DRAIN_SECONDS). */
export function setDrainLimit(ms: number): void {
  drainLimitMs = ms;
}

export const drainLimit = (): number => drainLimitMs;

/** A room as the drain sees it: clients whose protocol has `server_draining`, and Colyseus' disconnect. */
export interface DrainableRoom {
  clients: Iterable<Client<{ messages: DrainingOutbound }>>;
  disconnect(closeCode?: number): Promise<unknown>;
}

/** Tells every client to matchmake again (`server_draining`), then closes the room (4001); seats are written on the way out. */
export function moveAlong(room: DrainableRoom, reason: ServerDrainingPayload["reason"] = "shutdown"): Promise<unknown> {
  const payload: ServerDrainingPayload = { reason, retry_after_ms: RETRY_AFTER_MS };
  for (const client of room.clients) client.send("server_draining", payload);
  return room.disconnect(CloseCode.SERVER_SHUTDOWN);
}

/**
 * A match room's drain: while `running()` the match plays on; it ends (the room calls `check()`
 * after each step) or the drain limit comes, and the players are told to move along.
 */
export class MatchDrain {
  private draining = false;
  private done = false;

  constructor(
    private readonly room: DrainableRoom & { clock: { setTimeout(fn: () => void, ms: number): unknown } },
    private readonly running: () => boolean,
    /** Called once, before the players are told: the match is over for this process. */
    private readonly closing: (reason: ServerDrainingPayload["reason"]) => void,
  ) {}

  /** onBeforeShutdown: close now unless a match is running; else close at its end or at the drain limit. */
  begin(): void {
    this.draining = true;
    if (!this.running()) return this.finish("shutdown");
    this.room.clock.setTimeout(() => this.finish("drain_limit"), drainLimit());
  }

  /** After each step: a match that ended during the drain closes its room. */
  check(): void {
    if (this.draining && !this.done && !this.running()) this.finish("shutdown");
  }

  get active(): boolean {
    return this.draining;
  }

  private finish(reason: ServerDrainingPayload["reason"]): void {
    if (this.done) return;
    this.done = true;
    this.closing(reason);
    void moveAlong(this.room, reason);
  }
}
