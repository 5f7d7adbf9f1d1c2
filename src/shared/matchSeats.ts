// One live match per account, across every mode and every process of a deployment: an account in
// a boss battle cannot also sit in a duel or an arena. A seat is a lease: a key (the account)
// holding "<room name>/<room id>" with a TTL. The room renews it while the seat lives and deletes
// it when the seat ends, so a process that crashes holding seats frees them when the TTL runs out
// instead of locking those accounts out for good. Scaled out, the leases live in Redis (SET NX EX,
// and compare-then-act scripts so a room only ever renews or deletes its own lease); a single
// process keeps them in memory (src/sharedState.ts picks one).
import type { Redis } from "ioredis";

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
}

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

/** Leases in Redis, shared by every process of the deployment. */
export class RedisLeaseStore implements LeaseStore {
  constructor(private readonly redis: Redis) {}

  async acquire(key: string, holder: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(key, holder, "EX", ttlSeconds, "NX")) === "OK";
  }

  async holder(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async renew(key: string, holder: string, ttlSeconds: number): Promise<void> {
    await this.redis.eval(RENEW_IF_HOLDER, 1, key, holder, ttlSeconds);
  }

  async release(key: string, holder: string): Promise<void> {
    await this.redis.eval(RELEASE_IF_HOLDER, 1, key, holder);
  }

  async releaseHeldBy(prefix: string, holders: ReadonlySet<string>): Promise<number> {
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

/** Live-match seats by account: which room (if any) an account plays in right now. */
export class MatchSeats {
  constructor(
    private readonly store: LeaseStore,
    private readonly prefix = "match:seat:",
    private readonly ttlSeconds = SEAT_CLAIM_TTL_SECONDS,
  ) {}

  /** Takes the account's seat for `holder`, or says which room holds it (null: it just ended). */
  async claim(userId: number, holder: SeatHolder): Promise<ClaimResult> {
    const key = this.key(userId);
    if (await this.store.acquire(key, holderValue(holder), this.ttlSeconds)) return { ok: true };
    return { ok: false, holder: parseHolder(await this.store.holder(key)) };
  }

  /** The room holding the account's seat, if any. */
  async holderOf(userId: number): Promise<SeatHolder | null> {
    return parseHolder(await this.store.holder(this.key(userId)));
  }

  /** Keeps the accounts' leases held by `holder` alive for another TTL. */
  async renew(userIds: Iterable<number>, holder: SeatHolder): Promise<void> {
    const value = holderValue(holder);
    await Promise.all([...userIds].map((id) => this.store.renew(this.key(id), value, this.ttlSeconds)));
  }

  /** Ends the account's seat if `holder` holds it (a lease that expired and was taken elsewhere stays). */
  async release(userId: number, holder: SeatHolder): Promise<void> {
    await this.store.release(this.key(userId), holderValue(holder));
  }

  /**
   * Ends every seat held by these rooms, e.g. the rooms of a process that died without ending its
   * seats (src/shared/deadProcesses.ts). Returns how many seats it ended.
   */
  async releaseRooms(holders: SeatHolder[]): Promise<number> {
    if (holders.length === 0) return 0;
    return this.store.releaseHeldBy(this.prefix, new Set(holders.map(holderValue)));
  }

  private key(userId: number): string {
    return `${this.prefix}${userId}`;
  }
}
