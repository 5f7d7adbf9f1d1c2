// Noticing Redis' outages and returns on every process, and republishing on its return what this
// process owns there (issue 29).
//
// Every REDIS_PROBE_MS each process checks that its Redis connections are connected and that Redis
// answers a PING (within the link's command timeout): a process with no traffic notices an outage
// too, so /ready answers 503 naming `redis` on every process. When Redis answers again, after 5 s or
// 5 minutes, with its data or empty, the process republishes what it owns there, in order:
// its subscriptions (the IPC channels other processes reach it by), the seat leases of its seated
// accounts, the listings of its rooms and its room count, then whatever else registered through
// `republishOnRedisReturn` (party codes, for instance). /matchmake answers 503 until that is done
// and REDIS_SETTLE_MS more have passed: every process probes twice a second, so by then every
// process has republished its leases, and the one-live-match rule holds again before any new match
// is placed. A republish that fails (Redis gone again) is retried on the next probe.
//
// Redis may also come back with OLDER data (a restart from its snapshot, a promoted replica, a
// restored backup): listings, room counts and party codes of processes and rooms that are gone
// since. Once the settle has passed (every live process has subscribed again), what registered
// through `sweepOnRedisReturn` drops what names a process or room that is not alive, and only then
// does matchmaking open: no joiner is routed to a ghost, mode status counts only live rooms.
import type { Dependencies } from "../dependencies.js";
import { dependencyUnavailable, shortCause } from "../dependencies.js";
import type { Logger } from "../ops/logger.js";
import { isRedisUnreachable, type RedisLink } from "./redisLink.js";

export const REDIS_PROBE_MS = 500;
/** After its republish, a process waits this long before placing new matches (see above). */
export const REDIS_SETTLE_MS = 2000;

type Republish = () => Promise<unknown>;

const owned = new Map<string, Republish>();
const sweeps = new Map<string, Republish>();

/**
 * Registers what this process owns on Redis and must write again when Redis returns (it may come
 * back empty). `republish` must be idempotent; it runs before /matchmake serves again, and rejects
 * when Redis does not answer (it is then retried). Returns the unregister function. Without Redis
 * (one process) it is never called.
 */
export function republishOnRedisReturn(name: string, republish: Republish): () => void {
  owned.set(name, republish);
  return () => {
    if (owned.get(name) === republish) owned.delete(name);
  };
}

/**
 * Registers a clean-up run once per return, after the settle (every live process has subscribed
 * and republished by then) and before matchmaking opens: dropping what Redis holds of processes
 * and rooms that are not alive (it may have come back with older data). Resolves to what it
 * dropped (logged); rejects when Redis does not answer (retried). Returns the unregister function.
 */
export function sweepOnRedisReturn(name: string, sweep: Republish): () => void {
  sweeps.set(name, sweep);
  return () => {
    if (sweeps.get(name) === sweep) sweeps.delete(name);
  };
}

export class RedisRecovery {
  private republished = true;
  private swept = true;
  private sweepTimer: NodeJS.Timeout | undefined;
  private offDrop: () => void = () => {};
  private openAt = 0;
  private backAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly link: RedisLink,
    private readonly deps: Dependencies,
    private readonly log: Logger,
    /** One cheap round trip to Redis (PING); rejects when it does not answer. */
    private readonly ping: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  start(everyMs = REDIS_PROBE_MS): this {
    // Connections that closed before this (a start that waited for Redis) left nothing to republish.
    this.link.takeDropped();
    // A closed connection closes matchmaking at once: Redis may be restarting with other data.
    this.offDrop = this.link.onDrop(() => (this.republished = false));
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    this.offDrop();
    clearInterval(this.timer);
    clearTimeout(this.sweepTimer);
  }

  /** One probe (and the republish after an outage). */
  async tick(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      if (!this.link.allReady()) return this.down(new Error(`not connected (${this.link.notReady().join(", ")})`));
      try {
        await this.ping();
      } catch (err) {
        return this.down(err);
      }
      // Down, or a connection closed since the last probe (a restart quicker than a probe interval).
      const dropped = this.link.takeDropped();
      if (this.deps.isDown("redis") || dropped) {
        this.republished = false;
        this.backAt = this.now();
        if (this.deps.isDown("redis")) this.deps.ok("redis");
      }
      if (!this.republished) await this.republish();
      else if (!this.swept && this.now() >= this.openAt) await this.sweep();
    } finally {
      this.probing = false;
    }
  }

  private down(err: unknown): void {
    this.republished = false;
    this.link.failed(err);
  }

  private async republish(): Promise<void> {
    const started = this.now();
    const done: string[] = [];
    for (const [name, republish] of owned) {
      try {
        await republish();
        done.push(name);
      } catch (err) {
        if (isRedisUnreachable(err)) return this.down(err);
        // Not Redis' fault: logged, and the rest is still republished.
        this.log.warn({ what: name, cause: shortCause(err) }, "could not republish to Redis");
      }
    }
    this.republished = true;
    this.swept = sweeps.size === 0;
    this.openAt = this.now() + REDIS_SETTLE_MS;
    // The sweep runs as soon as the settle is over, not at the next probe.
    clearTimeout(this.sweepTimer);
    this.sweepTimer = setTimeout(() => void this.tick(), REDIS_SETTLE_MS);
    this.sweepTimer.unref();
    this.log.info(
      { dependency: "redis", republished: done, republish_ms: this.now() - started, since_back_ms: this.now() - this.backAt, matchmaking_in_ms: REDIS_SETTLE_MS },
      "republished this process's rooms, seats and registrations to Redis",
    );
  }

  private async sweep(): Promise<void> {
    const started = this.now();
    const dropped: Record<string, unknown> = {};
    for (const [name, sweep] of sweeps) {
      try {
        dropped[name] = await sweep();
      } catch (err) {
        if (isRedisUnreachable(err)) return this.down(err);
        this.log.warn({ what: name, cause: shortCause(err) }, "could not drop what Redis holds of processes and rooms that are gone");
      }
    }
    this.swept = true;
    this.log.info({ dependency: "redis", dropped, sweep_ms: this.now() - started, since_back_ms: this.now() - this.backAt }, "dropped what Redis held of processes and rooms that are not alive: matchmaking open");
  }

  isDown(): boolean {
    return this.deps.isDown("redis");
  }

  /** Whether this process may place new matches (Redis up, republished, settled). */
  matchmakingOpen(): boolean {
    return !this.deps.isDown("redis") && this.republished && this.swept && this.now() >= this.openAt;
  }

  /** Throws the 503 while new matches may not be placed. */
  requireMatchmaking(): void {
    if (!this.matchmakingOpen()) throw dependencyUnavailable("redis");
  }

  /**
   * Settles as `work` does, or with the 503 as soon as Redis is found down meanwhile: a call into
   * Colyseus' matchmaker may chain several Redis round trips and IPC waits, and is not left hanging.
   */
  async whileUp<T>(work: Promise<T>, checkEveryMs = 100): Promise<T> {
    work.catch(() => {}); // it may settle after the 503 was answered
    let timer: NodeJS.Timeout | undefined;
    const down = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        if (this.deps.isDown("redis")) reject(dependencyUnavailable("redis"));
      }, checkEveryMs);
    });
    try {
      return await Promise.race([work, down]);
    } finally {
      clearInterval(timer);
    }
  }

  /** Redis has answered, republished, for at least `ms` (dead-process sweeps wait for every process to have republished). */
  stableFor(ms: number): boolean {
    return this.matchmakingOpen() && this.now() - this.openAt + REDIS_SETTLE_MS >= ms;
  }
}

let active: RedisRecovery | undefined;

export function activeRedisRecovery(): RedisRecovery | undefined {
  return active;
}

export function setActiveRedisRecovery(recovery: RedisRecovery | undefined): void {
  active?.stop();
  active = recovery;
}
