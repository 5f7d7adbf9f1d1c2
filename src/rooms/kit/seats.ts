// The seats of a room: who plays here (account or guest), each account's live-match lease (one
// live match per account across every mode and process, src/shared/matchSeats.ts), and the
// reconnection window of a dropped connection. A seat stays in the book while its client is away,
// so a room writing "every seat" at dispose or shutdown also writes those still waiting to return.
// The window is timed here on the loop's live clock (./loopClock.ts) rather than by Colyseus' own
// timer: a pause of the server does not eat a player's window.
import { CloseCode, ServerError, type Client, type Room } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import type { Logger } from "../../ops/logger.js";
import type { MatchSeats, SeatHolder } from "../../shared/matchSeats.js";
import { liveTimeout, type LiveTimer } from "./loopClock.js";
import { ACCOUNT_LOCKED, BACKLOG_FULL, SESSION_ENDED } from "../../protocol/closeCodes.js";

export interface Seat<T> {
  sid: string;
  identity: Identity;
  /** The room's own per-seat data (e.g. when its player died). */
  data: T;
  /** True while a dropped connection may still come back. */
  away: boolean;
}

interface Pending {
  reject(reason?: unknown): void;
}

export class SeatBook<T> {
  private readonly seats = new Map<string, Seat<T>>();
  private readonly reconnections = new Map<string, Pending>();
  private readonly windows = new Map<string, LiveTimer>();
  /** Seats whose session ended while connected: the drop that follows opens no window. */
  private readonly sessionEnded = new Set<string>();

  constructor(
    private readonly room: Pick<Room<any>, "roomName" | "roomId" | "allowReconnection">,
    private readonly leases: MatchSeats,
    private readonly log: Logger,
    private readonly reconnectSeconds: number,
  ) {}

  /** This room as a lease holder. */
  get holder(): SeatHolder {
    return { roomName: this.room.roomName, roomId: this.room.roomId };
  }

  /**
   * Seats a player. An account first takes its live-match lease: one that already plays
   * elsewhere (or here) is refused with 409 naming the room.
   */
  async take(sid: string, identity: Identity, data: T): Promise<Seat<T>> {
    if (identity.userId !== null) {
      const claim = await this.leases.claim(identity.userId, this.holder);
      if (!claim.ok) throw new ServerError(409, describeConflict(claim.holder, this.holder));
    }
    const seat: Seat<T> = { sid, identity, data, away: false };
    this.seats.set(sid, seat);
    return seat;
  }

  /** Frees a lease taken by `take` whose join then failed before the seat was used. */
  async abandon(sid: string): Promise<void> {
    const seat = this.seats.get(sid);
    if (!seat) return;
    this.seats.delete(sid);
    await this.freeLease(seat);
  }

  get(sid: string): Seat<T> | undefined {
    return this.seats.get(sid);
  }

  /** Every seat, connected or waiting for its client to come back. */
  all(): Seat<T>[] {
    return [...this.seats.values()];
  }

  accounts(): Array<Seat<T> & { identity: { userId: number } }> {
    return this.all().filter((s): s is Seat<T> & { identity: { userId: number } } => s.identity.userId !== null);
  }

  ofAccount(userId: number): Seat<T> | undefined {
    return this.all().find((s) => s.identity.userId === userId);
  }

  get size(): number {
    return this.seats.size;
  }

  /**
   * A client dropped without leaving: keeps its seat for the reconnection window. Returns false
   * (no window) for a client the server closed itself (flooding, failed join, not reading,
   * shutdown): onLeave follows.
   */
  hold(client: Client, code?: number): boolean {
    const seat = this.seats.get(client.sessionId);
    const sessionEnded = this.sessionEnded.delete(client.sessionId);
    if (!seat || sessionEnded || code === CloseCode.WITH_ERROR || code === CloseCode.SERVER_SHUTDOWN || code === BACKLOG_FULL || code === SESSION_ENDED || code === ACCOUNT_LOCKED) return false;
    // Typed as a Deferred, but a plain rejected promise when Colyseus opens no window (a client
    // that had not finished joining, a room being disposed): then onLeave follows at once.
    // "manual": Colyseus arms no timer; the window's own (on live time) rejects it as Colyseus' would.
    const reconnection = this.room.allowReconnection(client, "manual") as unknown as Promise<unknown> & Partial<Pending>;
    // Rejected when the window runs out or the room shuts down; onLeave handles both.
    reconnection.catch(() => {});
    if (typeof reconnection.reject !== "function") return false;
    seat.away = true;
    const sid = client.sessionId;
    this.reconnections.set(sid, reconnection as Pending);
    this.windows.get(sid)?.clear();
    const window = liveTimeout(() => reconnection.reject!(new Error("reconnection window lapsed")), this.reconnectSeconds * 1000);
    this.windows.set(sid, window);
    const ended = () => {
      window.clear();
      if (this.windows.get(sid) === window) this.windows.delete(sid);
    };
    reconnection.then(ended, ended);
    return true;
  }

  /**
   * The seat's session ended (./sessionSeats.ts): a pending reconnection window ends now (onLeave
   * follows, as when a window runs out); a connected client's coming drop opens none.
   */
  endSession(sid: string): void {
    const pending = this.reconnections.get(sid);
    if (pending) {
      this.reconnections.delete(sid);
      pending.reject(new Error("session ended"));
    } else if (this.seats.has(sid)) {
      this.sessionEnded.add(sid);
    }
  }

  /** The client came back within its window. */
  returned(sid: string): Seat<T> | undefined {
    const seat = this.seats.get(sid);
    this.reconnections.delete(sid);
    if (seat) seat.away = false;
    return seat;
  }

  /**
   * Takes a seat out of the book (idempotent, synchronous) and ends a pending reconnection window.
   * Its lease stays until `freeLease`: the seat's last write goes first (src/rooms/kit/keeper.ts).
   */
  detach(sid: string, reason = "seat released"): Seat<T> | undefined {
    const seat = this.seats.get(sid);
    if (!seat) return undefined;
    this.seats.delete(sid);
    this.sessionEnded.delete(sid);
    const pending = this.reconnections.get(sid);
    this.reconnections.delete(sid);
    pending?.reject(new Error(reason));
    return seat;
  }

  /** Keeps the accounts' leases alive, writing back missing ones (call well inside the lease TTL). */
  async renewLeases(): Promise<void> {
    const ids = this.accounts().map((s) => s.identity.userId);
    if (!ids.length) return;
    try {
      const { takenBack, conflicts, rewritten } = await this.leases.renew(ids, this.holder);
      if (takenBack.length || rewritten.length) this.log.warn({ takenBack, rewritten }, "seat leases were missing or named rooms that are not alive (Redis came back with older data?): this room holds them again");
      if (conflicts.length) this.log.warn({ conflicts }, "another live room holds seat leases of accounts playing here: both matches go on");
    } catch (err) {
      this.log.error({ err }, "could not renew the seat leases");
    }
  }

  /** Ends a detached seat's lease (failures are logged: the lease then expires on its own). */
  async freeLease(seat: Seat<T>): Promise<void> {
    const userId = seat.identity.userId;
    if (userId === null) return;
    try {
      await this.leases.release(userId, this.holder);
    } catch (err) {
      this.log.error({ err, userId }, "could not release the seat lease");
    }
  }
}

/** A cheap early refusal (409) for an account that already plays elsewhere; the lease still decides. */
export async function refuseIfSeated(leases: MatchSeats, identity: Identity, roomName: string): Promise<void> {
  const holder = identity.userId === null ? null : await leases.holderOf(identity.userId);
  if (holder) throw new ServerError(409, describeConflict(holder, { roomName, roomId: "" }));
}

/** "this account is already in pvp room Ab12" — the 409 a second live seat gets. */
export function describeConflict(holder: SeatHolder | null, self: SeatHolder): string {
  if (!holder) return "this account's previous match is just ending: try again";
  if (holder.roomId === self.roomId) return "this account already has a seat in this room";
  return `this account is already in ${holder.roomName || "another"} room ${holder.roomId}`;
}
