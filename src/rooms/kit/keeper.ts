// An account seat's whole life in one place, so no room re-derives it: lease → read what the
// account brings → checkpoints while it plays → its last write (leave, drop-out after the
// reconnection window, dispose, shutdown) → lease released. A room declares what it counts
// (`counted`, `counts`) and which store writes it (`write`); guests are seated but never written.
//
// The rules, kept here once:
// - lease before read: `admit` runs the room's entry (reading the account's bullets, …) only once
//   the lease is taken, so it sees what the account's previous room wrote; a failed entry frees it.
// - write before release: a leaving seat's last write is attempted before its lease is freed.
// - one write at a time per room, each carrying only what its ledger has not written yet; a
//   failed write rolls its ledgers back and puts its records back, so the next write (the next
//   checkpoint at the latest) retries it and nothing is written twice.
// - disposal waits for every write in flight before the room (and the database) goes away.
import type { Client, Room } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import type { Logger } from "../../ops/logger.js";
import { SEAT_CLAIM_RENEW_MS, type MatchSeats } from "../../shared/matchSeats.js";
import { Ledger, type Counts } from "./ledger.js";
import { SeatBook, type Seat } from "./seats.js";
import { joinRefusal } from "./join.js";
import { logStoreFailure } from "./errors.js";
import { isDatabaseUnreachable } from "../../db/unreachable.js";

/** Live account seats are checkpointed this often, so a crashed process loses at most that much. */
export const SEAT_CHECKPOINT_MS = SEAT_CLAIM_RENEW_MS;
/** A closing room whose last write cannot reach the database retries it this often, this long. */
export const DISPOSE_RETRY_MS = 1000;
export const DISPOSE_RETRY_FOR_MS = 15_000;

/** One account seat's part of a write. */
export interface SeatEntry<K extends string, D, P> {
  userId: number;
  seat: Seat<D>;
  /** The game's object of this seat (e.g. its player), as it stood when the seat left. */
  player: P;
  /** Increases since this seat's previous write. */
  delta: Counts<K>;
  /** This entry carries the seat's once-only final record (asked for by `finish`, `leave` or `dispose`). */
  final: boolean;
  /** The seat has left the room: its last write. */
  leaving: boolean;
}

/** What a room declares about its seats. */
export interface SeatRules<K extends string, D, P, R> {
  /** The counters an account seat accumulates (each write carries their increase). */
  counted: readonly K[];
  /** The game's object of a seat, while the game has it. */
  player(seat: Seat<D>): P | undefined;
  /** A seat's counters now (cumulative over its time in the room). */
  counts(player: P, seat: Seat<D>): Counts<K>;
  /** Writes account seats' entries and the room's queued records, all or nothing (one transaction). */
  write(entries: SeatEntry<K, D, P>[], records: R[]): Promise<void>;
}

export interface KeeperOptions<K extends string, D, P, R> extends SeatRules<K, D, P, R> {
  leases: MatchSeats;
  log: Logger;
  /** How long a dropped connection keeps its seat. */
  reconnectSeconds: number;
}

/** The part of a room the keeper uses (a fake in unit tests). */
export type KeeperRoom = Pick<Room<any>, "roomName" | "roomId" | "allowReconnection"> & {
  clock: { setInterval(cb: () => void, ms: number): unknown };
};

interface Departed<K extends string, D, P> {
  seat: Seat<D>;
  player: P;
  counts: Counts<K>;
}

/** Which of the seats still here a write includes. */
type Scope = "changed" | "final" | "none";

export class SeatKeeper<K extends string, D, P, R = never> {
  private readonly book: SeatBook<D>;
  private readonly ledgers = new Map<Seat<D>, Ledger<K>>();
  /** Seats gone from the room whose last write has not succeeded yet. */
  private readonly departed: Departed<K, D, P>[] = [];
  private readonly records: R[] = [];
  private queue: Promise<void> = Promise.resolve();
  /** The latest write's failure, until a write succeeds. */
  private lastFailure: unknown;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    room: KeeperRoom,
    private readonly rules: KeeperOptions<K, D, P, R>,
  ) {
    this.book = new SeatBook(room, rules.leases, rules.log, rules.reconnectSeconds);
    room.clock.setInterval(() => void this.checkpoint(), SEAT_CHECKPOINT_MS);
  }

  /**
   * Seats a player: an account first takes its live-match lease (409 when it plays elsewhere),
   * then `enter` runs (read what the account brings, put it into the game). When `enter` throws,
   * the seat is abandoned and its lease freed; an unreachable database is refused as 503
   * `database_unavailable` (./join.ts), never with the driver's text.
   */
  async admit<T>(sid: string, identity: Identity, data: D, enter: (seat: Seat<D>) => T | Promise<T>): Promise<T> {
    const seat = await this.book.take(sid, identity, data);
    try {
      return await enter(seat);
    } catch (err) {
      await this.book.abandon(sid);
      throw joinRefusal(err);
    }
  }

  get(sid: string): Seat<D> | undefined {
    return this.book.get(sid);
  }

  /** Every seat, connected or waiting for its client to come back. */
  all(): Seat<D>[] {
    return this.book.all();
  }

  ofAccount(userId: number): Seat<D> | undefined {
    return this.book.ofAccount(userId);
  }

  get size(): number {
    return this.book.size;
  }

  /** A client dropped: keeps its seat for the reconnection window (false: no window, onLeave follows). */
  hold(client: Client, code?: number): boolean {
    return this.book.hold(client, code);
  }

  /** The seat's session ended: its reconnection window ends now, or its coming drop opens none. */
  endSession(sid: string): void {
    this.book.endSession(sid);
  }

  /** The client came back within its window. */
  returned(sid: string): Seat<D> | undefined {
    return this.book.returned(sid);
  }

  /**
   * Takes a seat out (idempotent). Synchronously: the seat leaves the book and its counters are
   * taken as they stand (call it before the room drops the player from its game, or pass the
   * dropped `player`). Then its last write, then its lease is freed. Disposal waits for it.
   */
  leave(sid: string, reason = "seat released", player?: P): Promise<void> {
    const seat = this.book.detach(sid, reason);
    if (!seat) return Promise.resolve();
    this.depart(seat, player);
    return this.track(this.flush("none").then(() => this.book.freeLease(seat)));
  }

  /** Every SEAT_CHECKPOINT_MS: renews the leases and writes what changed since the last write. */
  async checkpoint(): Promise<void> {
    await this.book.renewLeases();
    await this.flush("changed");
  }

  /** The match is over: every account seat here gets its final record written (seats stay). */
  finish(record?: R): Promise<void> {
    if (record !== undefined) this.records.push(record);
    return this.flush("final");
  }

  /** Writes a record of the room's own (e.g. a finished duel), with what changed since the last write. */
  record(record: R): Promise<void> {
    this.records.push(record);
    return this.flush("changed");
  }

  /**
   * The room goes away (also at shutdown): every seat still here, away ones included, leaves with
   * its last write; the writes in flight are awaited; then the leases are freed.
   */
  async dispose(reason = "room closed"): Promise<void> {
    const seats = this.book.all();
    for (const seat of seats) {
      this.book.detach(seat.sid, reason);
      this.depart(seat);
    }
    await this.flush("none");
    // No later checkpoint will retry: one more attempt for a write that just failed, and while the
    // database cannot be reached, more for a while (a short outage loses nothing).
    if (this.unwritten()) await this.flush("none");
    for (const until = Date.now() + DISPOSE_RETRY_FOR_MS; this.unwritten() && isDatabaseUnreachable(this.lastFailure) && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, DISPOSE_RETRY_MS));
      await this.flush("none");
    }
    if (this.unwritten()) {
      this.rules.log.error(
        { seats: this.departed.map((d) => d.seat.identity.userId), records: this.records.length, reason },
        "could not write the seats before the room closed: their changes since the last checkpoint are lost",
      );
    }
    while (this.inFlight.size) await Promise.all(this.inFlight);
    await Promise.all(seats.map((seat) => this.book.freeLease(seat)));
  }

  private unwritten(): boolean {
    return this.departed.length > 0 || this.records.length > 0;
  }

  /** Writes in flight (tests and disposal wait for them). */
  settled(): Promise<void> {
    return Promise.all(this.inFlight).then(() => undefined);
  }

  private depart(seat: Seat<D>, dropped?: P): void {
    const player = seat.identity.userId === null ? undefined : (dropped ?? this.rules.player(seat));
    if (player === undefined) return void this.ledgers.delete(seat);
    this.departed.push({ seat, player, counts: this.rules.counts(player, seat) });
  }

  /** Queues one write after those already queued; it picks up whatever is due when its turn comes. */
  private flush(scope: Scope): Promise<void> {
    // A store failure is handled in writeNow; anything else (a bug in the room's rules) is logged
    // here, so no caller (a timer, a `void` call) is left with a rejected promise.
    const next = this.queue.then(() => this.writeNow(scope)).catch((err: unknown) => this.rules.log.error({ err }, "seat write failed"));
    this.queue = next;
    return this.track(next);
  }

  private async writeNow(scope: Scope): Promise<void> {
    const taken: Array<[Ledger<K>, SeatEntry<K, D, P>]> = [];
    const add = (seat: Seat<D>, player: P, counts: Counts<K>, leaving: boolean) => {
      const ledger = this.ledgerOf(seat);
      if (!leaving && scope !== "final" && !ledger.hasUnsaved(counts)) return;
      const { delta, final } = ledger.take(counts, { final: leaving || scope === "final" });
      taken.push([ledger, { userId: seat.identity.userId!, seat, player, delta, final, leaving }]);
    };
    const departed = this.departed.splice(0);
    for (const d of departed) add(d.seat, d.player, d.counts, true);
    if (scope !== "none") {
      for (const seat of this.book.accounts()) {
        const player = this.rules.player(seat);
        if (player !== undefined) add(seat, player, this.rules.counts(player, seat), false);
      }
    }
    const records = this.records.splice(0);
    if (!taken.length && !records.length) return;
    try {
      await this.rules.write(
        taken.map(([, entry]) => entry),
        records,
      );
      for (const d of departed) this.ledgers.delete(d.seat);
      this.lastFailure = undefined;
    } catch (err) {
      this.lastFailure = err;
      logStoreFailure(this.rules.log, err, { seats: taken.map(([, e]) => e.userId), records: records.length }, "could not write the seats: the next write retries");
      for (const [ledger, entry] of taken) ledger.rollback(entry);
      this.departed.unshift(...departed);
      this.records.unshift(...records);
    }
  }

  private ledgerOf(seat: Seat<D>): Ledger<K> {
    let ledger = this.ledgers.get(seat);
    if (!ledger) this.ledgers.set(seat, (ledger = new Ledger(this.rules.counted)));
    return ledger;
  }

  private track(write: Promise<void>): Promise<void> {
    this.inFlight.add(write);
    return write.finally(() => this.inFlight.delete(write));
  }
}
