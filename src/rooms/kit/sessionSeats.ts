// A session that ends takes its room connections and seats with it (docs/security.md, "Accounts,
// sessions and seats"). Every account connection of this process's rooms is bound here to the
// session it came with (the join's cookie, or the one a reconnection presented). When a subject's
// sessions change (a logout, the admin `logout-user`, a new password, a lock: src/auth/sessions.ts tells
// every process, through Redis when scaled out), its bound connections are checked again, and at
// its token's exp each one is checked on its own. While any connection is bound, every bound
// account is also read again every SESSION_POLL_MS (two queries for all of them): no event reaches
// this process from an operator's `logout-user` run in a process of its own on a PostgreSQL without
// Redis, nor one published while Redis was away. One that is no longer live is ended by its
// room: an open connection is closed with SESSION_ENDED (4007), or ACCOUNT_LOCKED (4008) when the
// account was locked, a reconnection window ends at
// once; either way the seat leaves as on a normal leave (its last write, then its lease).
import type { BoundSession } from "../../auth/identity.js";
import type { SessionRegistry } from "../../auth/sessions.js";
import type { Logger } from "../../ops/logger.js";

/** What a room offers for its bound connections. */
export interface SessionBoundRoom {
  readonly roomId: string;
  /** Ends the connection or reconnection window of `sid` (idempotent). */
  endSession(sid: string, why: SessionEndReason): void;
}

export type SessionEndReason = "session ended" | "session expired" | "account locked";

interface Binding {
  room: SessionBoundRoom;
  sid: string;
  userId: number;
  session: BoundSession;
  expiry?: ReturnType<typeof setTimeout>;
}

/** How often every bound account is read again from the database (see above). */
export const SESSION_POLL_MS = 2000;
/** Accounts per query of that read. */
const POLL_BATCH = 1000;

/** setTimeout's longest delay; a later exp is re-armed on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SessionSeats {
  /** userId → its bindings on this process. */
  private readonly byUser = new Map<number, Set<Binding>>();
  private readonly byConnection = new Map<string, Binding>();
  /** Runs while any connection is bound. */
  private poll?: ReturnType<typeof setInterval>;
  private polling = false;

  constructor(
    private readonly sessions: Pick<SessionRegistry, "check" | "onSubjectChanged" | "refreshAccounts">,
    private readonly log: Pick<Logger, "info" | "warn">,
    private readonly now: () => number = Date.now,
    private readonly pollMs = SESSION_POLL_MS,
  ) {
    sessions.onSubjectChanged((key) => {
      const userId = /^u:(\d+)$/.exec(key)?.[1];
      if (userId !== undefined) void this.recheck(Number(userId));
    });
  }

  /** Binds (or re-binds, after a reconnection) a connection of `room` to the session it presented. */
  bind(room: SessionBoundRoom, sid: string, userId: number, session: BoundSession): void {
    this.unbind(room, sid);
    const binding: Binding = { room, sid, userId, session };
    this.byConnection.set(keyOf(room, sid), binding);
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(binding);
    this.armExpiry(binding);
    if (!this.poll) {
      this.poll = setInterval(() => void this.pollDatabase(), this.pollMs);
      this.poll.unref?.();
    }
  }

  /** The seat left the room: nothing more to end. */
  unbind(room: SessionBoundRoom, sid: string): void {
    const key = keyOf(room, sid);
    const binding = this.byConnection.get(key);
    if (!binding) return;
    this.byConnection.delete(key);
    clearTimeout(binding.expiry);
    const set = this.byUser.get(binding.userId);
    set?.delete(binding);
    if (set?.size === 0) this.byUser.delete(binding.userId);
    if (this.byConnection.size === 0) {
      clearInterval(this.poll);
      this.poll = undefined;
    }
  }

  /** The room closed: its seats are written by its disposal, nothing more to end. */
  unbindRoom(room: SessionBoundRoom): void {
    for (const binding of [...this.byConnection.values()]) if (binding.room === room) this.unbind(room, binding.sid);
  }

  /** Connections bound on this process (tests, metrics). */
  get size(): number {
    return this.byConnection.size;
  }

  /** Checks every binding of the account again (its sessions changed); ends those no longer live. */
  async recheck(userId: number): Promise<void> {
    const bindings = [...(this.byUser.get(userId) ?? [])];
    await Promise.all(bindings.map((binding) => this.checkOne(binding)));
  }

  /** Reads every bound account again and ends the connections whose sessions ended meanwhile. */
  async pollDatabase(): Promise<void> {
    if (this.polling) return; // a slow database: the next round starts after this one
    this.polling = true;
    try {
      const ids = [...this.byUser.keys()];
      for (let i = 0; i < ids.length; i += POLL_BATCH) await this.sessions.refreshAccounts(ids.slice(i, i + POLL_BATCH));
      await Promise.all(ids.map((id) => this.recheck(id)));
    } catch {
      // The database is away: its outage is reported once per interval where it is noticed
      // (src/dependencies.ts); the connections stay until the next round.
    } finally {
      this.polling = false;
    }
  }

  private async checkOne(binding: Binding): Promise<void> {
    const { session } = binding;
    if (this.now() >= session.expiresAtMs) return this.end(binding, "session expired");
    let ended: SessionEndReason | undefined;
    try {
      const check = await this.sessions.check({ kind: "account", id: binding.userId }, { sid: session.sid, epoch: session.epoch, generation: session.generation, expiresAt: new Date(session.expiresAtMs) });
      if (!check.ok) ended = check.reason === "locked" ? "account locked" : "session ended";
    } catch (err) {
      // The database is away: the connection stays until the next change or its exp.
      this.log.warn({ err, userId: binding.userId }, "could not check a room connection's session: it stays for now");
      return;
    }
    if (ended) this.end(binding, ended);
  }

  private end(binding: Binding, why: SessionEndReason): void {
    if (this.byConnection.get(keyOf(binding.room, binding.sid)) !== binding) return;
    this.unbind(binding.room, binding.sid);
    this.log.info({ userId: binding.userId, roomId: binding.room.roomId, sid: binding.sid, why }, "a session ended: its room connection and seat end with it");
    binding.room.endSession(binding.sid, why);
  }

  private armExpiry(binding: Binding): void {
    const delay = Math.max(0, binding.session.expiresAtMs - this.now());
    binding.expiry = setTimeout(() => {
      if (binding.session.expiresAtMs > this.now()) return this.armExpiry(binding);
      void this.checkOne(binding);
    }, Math.min(delay, MAX_TIMER_MS));
    binding.expiry.unref?.();
  }
}

const keyOf = (room: SessionBoundRoom, sid: string) => `${room.roomId} ${sid}`;

const perRegistry = new WeakMap<SessionRegistry, SessionSeats>();

/** The bindings of the application whose session registry this is (one per app, made on first use). */
export function sessionSeatsOf(sessions: SessionRegistry, log: Pick<Logger, "info" | "warn">): SessionSeats {
  let seats = perRegistry.get(sessions);
  if (!seats) perRegistry.set(sessions, (seats = new SessionSeats(sessions, log)));
  return seats;
}
