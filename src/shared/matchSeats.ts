// One live match per account, across every mode and every process of a deployment: an account in
// a boss battle cannot also sit in a duel or an arena. A seat is a lease: a key (the account)
// holding "<room name>/<room id>" with a TTL. The room renews it while the seat lives and deletes
// it when the seat ends, so a process that crashes holding seats frees them when the TTL runs out
// instead of locking those accounts out for good. Scaled out, the leases live in Redis (SET NX EX,
// and compare-then-act scripts so a room only ever renews or deletes its own lease); a single
// process keeps them in memory (src/sharedState.ts picks one).
//
// Redis may come back with older data (a restart from its snapshot, a promoted replica, a restored
// backup): a lease may then name a room that ended since, or be missing although its seat lives.
// So the live room wins: when a room republishes or renews a lease and finds it held by a room that
// is not alive (`RoomLiveness`: no IPC subscription, so its process is gone or it closed), it takes
// the lease back; and the renewal writes a missing lease again instead of only extending one.
import type { Redis } from "ioredis";
import { isDependencyUnavailable } from "../dependencies.js";
import type { RedisLink } from "./redisLink.js";

/** How a store runs its Redis calls: through the link (fail fast, 503 while Redis is down) or directly. */
export type RedisCalls = Pick<RedisLink, "call">;
export const DIRECT_CALLS: RedisCalls = { call: (fn) => fn() };

/** A lease outlives its last renewal by this long; it must exceed the reconnection window. */
export const SEAT_CLAIM_TTL_SECONDS = 45;
/** Rooms renew their leases this often (well inside the TTL). */
export const SEAT_CLAIM_RENEW_MS = 15_000;

/** Where leases are kept. Every operation on one key is atomic. */
export interface LeaseStore {
  /** Sets key → holder for ttl unless the key is held; true when this call took it. */
  acquire(key: string, holder: string, ttlSeconds: number): Promise<boolean>;
  holder(key: string): Promise<string | null>;
  /** Extends the lease if `holder` still holds it. */
  renew(key: string, holder: string, ttlSeconds: number): Promise<void>;
  /** Deletes the lease if `holder` still holds it. */
  release(key: string, holder: string): Promise<void>;
  /** Deletes every lease under `prefix` held by one of `holders`; returns how many. */
  releaseHeldBy(prefix: string, holders: ReadonlySet<string>): Promise<number>;
  /**
   * Republishes a lease this process holds (Redis came back, possibly empty): takes it again unless
   * another holder has it, extends it if it is still ours. Returns the holder it found instead, if any.
   */
  restore(key: string, holder: string, ttlSeconds: number): Promise<string | null>;
  /** Sets key → `to` for ttl if `from` still holds it; true when it did. */
  replace(key: string, from: string, to: string, ttlSeconds: number): Promise<boolean>;
}

/** Whether the room a lease names is alive now (scaled out: it has its IPC subscription on Redis). */
export type RoomLiveness = (holder: SeatHolder) => Promise<boolean>;

/** In-process leases (one process: nothing else can hold a seat). Expiry is checked on read. */
export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  async acquire(key: string, holder: string, ttlSeconds: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.leases.set(key, { holder, expiresAt: this.now() + ttlSeconds * 1000 });
    return true;
  }

  async holder(key: string): Promise<string | null> {
    return this.live(key)?.holder ?? null;
  }

  async renew(key: string, holder: string, ttlSeconds: number): Promise<void> {
    const lease = this.live(key);
    if (lease?.holder === holder) lease.expiresAt = this.now() + ttlSeconds * 1000;
  }

  async release(key: string, holder: string): Promise<void> {
    if (this.live(key)?.holder === holder) this.leases.delete(key);
  }

  async releaseHeldBy(prefix: string, holders: ReadonlySet<string>): Promise<number> {
    let n = 0;
    for (const [key, lease] of this.leases) {
      if (key.startsWith(prefix) && holders.has(lease.holder)) {
        this.leases.delete(key);
        n++;
      }
    }
    return n;
  }

  async restore(key: string, holder: string, ttlSeconds: number): Promise<string | null> {
    if (await this.acquire(key, holder, ttlSeconds)) return null;
    const other = this.live(key)!;
    if (other.holder !== holder) return other.holder;
    other.expiresAt = this.now() + ttlSeconds * 1000;
    return null;
  }

  async replace(key: string, from: string, to: string, ttlSeconds: number): Promise<boolean> {
    if (this.live(key)?.holder !== from) return false;
    this.leases.set(key, { holder: to, expiresAt: this.now() + ttlSeconds * 1000 });
    return true;
  }

  private live(key: string) {
    const lease = this.leases.get(key);
    if (lease && lease.expiresAt <= this.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }
}

const RENEW_IF_HOLDER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("EXPIRE", KEYS[1], ARGV[2]) end return 0`;
const RELEASE_IF_HOLDER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;
// Take the lease if free, extend it if ours; answer the other holder otherwise (nil: ours now).
const RESTORE = `local h = redis.call("GET", KEYS[1])
if h == false or h == ARGV[1] then redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2]) return false end
return h`;
const REPLACE_IF_HOLDER = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[1], ARGV[2], "EX", ARGV[3]) return 1 end return 0`;

/** Leases in Redis, shared by every process of the deployment. */
export class RedisLeaseStore implements LeaseStore {
  constructor(
    private readonly redis: Redis,
    private readonly link: RedisCalls = DIRECT_CALLS,
  ) {}

  async acquire(key: string, holder: string, ttlSeconds: number): Promise<boolean> {
    return (await this.link.call(() => this.redis.set(key, holder, "EX", ttlSeconds, "NX"))) === "OK";
  }

  async holder(key: string): Promise<string | null> {
    return this.link.call(() => this.redis.get(key));
  }

  async renew(key: string, holder: string, ttlSeconds: number): Promise<void> {
    await this.link.call(() => this.redis.eval(RENEW_IF_HOLDER, 1, key, holder, ttlSeconds));
  }

  async release(key: string, holder: string): Promise<void> {
    await this.link.call(() => this.redis.eval(RELEASE_IF_HOLDER, 1, key, holder));
  }

  async restore(key: string, holder: string, ttlSeconds: number): Promise<string | null> {
    return (await this.link.call(() => this.redis.eval(RESTORE, 1, key, holder, ttlSeconds))) as string | null;
  }

  async replace(key: string, from: string, to: string, ttlSeconds: number): Promise<boolean> {
    return Number(await this.link.call(() => this.redis.eval(REPLACE_IF_HOLDER, 1, key, from, to, ttlSeconds))) === 1;
  }

  async releaseHeldBy(prefix: string, holders: ReadonlySet<string>): Promise<number> {
    return this.link.call(async () => {
      let n = 0;
      let cursor = "0";
      do {
        const [next, keys] = await this.redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
        cursor = next;
        if (keys.length === 0) continue;
        const values = await this.redis.mget(...keys);
        for (let i = 0; i < keys.length; i++) {
          const value = values[i];
          if (value !== null && holders.has(value)) n += Number(await this.redis.eval(RELEASE_IF_HOLDER, 1, keys[i], value));
        }
      } while (cursor !== "0");
      return n;
    });
  }
}

/** The room a seat belongs to: its Colyseus room name (the mode) and id. */
export interface SeatHolder {
  roomName: string;
  roomId: string;
}

export type ClaimResult = { ok: true } | { ok: false; holder: SeatHolder | null };

function holderValue(h: SeatHolder): string {
  return `${h.roomName}/${h.roomId}`;
}

function parseHolder(value: string | null): SeatHolder | null {
  if (!value) return null;
  const slash = value.indexOf("/");
  return slash < 0 ? { roomName: "", roomId: value } : { roomName: value.slice(0, slash), roomId: value.slice(slash + 1) };
}

/** A conflict found while republishing or renewing: a live room of another holder has the account's lease. */
export interface RestoreConflict {
  userId: number;
  ours: SeatHolder;
  theirs: SeatHolder | null;
}

/** What a republish or renewal found: leases taken back from rooms that are not alive, and conflicts with live ones. */
export interface LeaseRepair {
  /** Accounts whose lease named a room that is not alive (stale Redis data): the live room took it back. */
  takenBack: Array<{ userId: number; ours: SeatHolder; stale: SeatHolder | null }>;
  /** Accounts whose lease another live room holds: both matches go on. */
  conflicts: RestoreConflict[];
  /** Accounts whose missing lease was written again by the renewal. */
  rewritten: number[];
}

/**
 * Live-match seats by account: which room (if any) an account plays in right now. It also remembers
 * the leases this process holds, so that when Redis returns (empty, perhaps) it can write them again
 * (`republish`) before any new match is placed; and the releases Redis missed while it was away.
 */
export class MatchSeats {
  /** userId → holder value, for every lease this process's rooms hold. */
  private readonly held = new Map<number, string>();
  /** Releases that failed (Redis away): done on its return. */
  private readonly unreleased = new Map<number, string>();

  /** Without one (a single process, or before Colyseus is on Redis), every other holder counts as alive. */
  private liveness: RoomLiveness | undefined;

  constructor(
    private readonly store: LeaseStore,
    private readonly prefix = "match:seat:",
    private readonly ttlSeconds = SEAT_CLAIM_TTL_SECONDS,
  ) {}

  /** How to tell whether a room a lease names is alive (scaled out: src/shared/redisColyseus.ts). */
  judgeLivenessBy(liveness: RoomLiveness | undefined): void {
    this.liveness = liveness;
  }

  /** Takes the account's seat for `holder`, or says which room holds it (null: it just ended). */
  async claim(userId: number, holder: SeatHolder): Promise<ClaimResult> {
    const key = this.key(userId);
    const value = holderValue(holder);
    if (await this.store.acquire(key, value, this.ttlSeconds)) {
      this.held.set(userId, value);
      this.unreleased.delete(userId);
      return { ok: true };
    }
    return { ok: false, holder: parseHolder(await this.store.holder(key)) };
  }

  /** The room holding the account's seat, if any. */
  async holderOf(userId: number): Promise<SeatHolder | null> {
    return parseHolder(await this.store.holder(this.key(userId)));
  }

  /**
   * Keeps the accounts' leases held by `holder` alive for another TTL; a missing lease (expired, or
   * Redis came back with older data) is written again, and one naming a room that is not alive is
   * taken back. While Redis is away this does nothing (Redis' failure is reported by the link; the
   * leases are republished on its return).
   */
  async renew(userIds: Iterable<number>, holder: SeatHolder): Promise<LeaseRepair> {
    const value = holderValue(holder);
    const repair: LeaseRepair = { takenBack: [], conflicts: [], rewritten: [] };
    await quietWhileAway(Promise.all([...userIds].map((id) => this.reassert(id, value, repair, true))));
    return repair;
  }

  /**
   * Ends the account's seat if `holder` holds it (a lease that expired and was taken elsewhere stays).
   * While Redis is away the release is remembered and done on its return.
   */
  async release(userId: number, holder: SeatHolder): Promise<void> {
    const value = holderValue(holder);
    if (this.held.get(userId) === value) this.held.delete(userId);
    try {
      await this.store.release(this.key(userId), value);
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err;
      this.unreleased.set(userId, value);
    }
  }

  /**
   * Ends every seat held by these rooms, e.g. the rooms of a process that died without ending its
   * seats (src/shared/deadProcesses.ts). Returns how many seats it ended.
   */
  async releaseRooms(holders: SeatHolder[]): Promise<number> {
    if (holders.length === 0) return 0;
    return this.store.releaseHeldBy(this.prefix, new Set(holders.map(holderValue)));
  }

  /** How many leases this process's rooms hold now. */
  get heldCount(): number {
    return this.held.size;
  }

  /**
   * Writes again every lease this process holds and does the releases Redis missed (Redis returned,
   * perhaps empty). Rejects when Redis does not answer (the caller retries); returns the accounts
   * another room took meanwhile.
   */
  async republish(): Promise<LeaseRepair> {
    for (const [userId, value] of [...this.unreleased]) {
      await this.store.release(this.key(userId), value);
      this.unreleased.delete(userId);
    }
    const repair: LeaseRepair = { takenBack: [], conflicts: [], rewritten: [] };
    for (const [userId, value] of [...this.held]) await this.reassert(userId, value, repair, false);
    return repair;
  }

  /**
   * Holds the account's lease for `value` again: taken if missing, extended if ours, taken back from
   * a room that is not alive. A seat that ended meanwhile (released while this ran) gives it up again.
   */
  private async reassert(userId: number, value: string, repair: LeaseRepair, noteRewrites: boolean): Promise<void> {
    const key = this.key(userId);
    const wasOurs = noteRewrites ? (await this.store.holder(key)) === value : true;
    let other = await this.store.restore(key, value, this.ttlSeconds);
    if (other !== null) {
      const stale = parseHolder(other);
      if (stale && !(await this.isAlive(stale)) && (await this.store.replace(key, other, value, this.ttlSeconds))) {
        repair.takenBack.push({ userId, ours: parseHolder(value)!, stale });
        other = null;
      } else if (this.held.get(userId) === value) {
        repair.conflicts.push({ userId, ours: parseHolder(value)!, theirs: stale });
      }
    } else if (!wasOurs && this.held.get(userId) === value) {
      repair.rewritten.push(userId);
    }
    // The seat ended while this ran (its release found no lease of ours, or ran before the write).
    if (other === null && this.held.get(userId) !== value) await this.store.release(key, value);
  }

  private async isAlive(holder: SeatHolder): Promise<boolean> {
    return this.liveness ? this.liveness(holder) : true;
  }

  private key(userId: number): string {
    return `${this.prefix}${userId}`;
  }
}

/** Swallows the 503 of Redis being away (already reported); anything else still throws. */
async function quietWhileAway(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isDependencyUnavailable(err)) throw err;
  }
}
