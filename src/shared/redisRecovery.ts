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
// and every other process has done it too: until then an account seated on another process may
// have no lease in Redis, and a new match placed here could seat it twice (the one-live-match rule).
//
// How a process knows the others have republished (issue 35: with a fixed 2 s wait, matchmaking
// never opened while Redis flapped with up-windows shorter than ~2.5 s): after its republish, and
// then on every probe while it stays republished, each process writes a confirmation key naming
// this Redis' incarnation (its run_id, new at every restart, failover or restore, so a confirmation
// from before, even one in a reloaded snapshot, never counts) with a TTL of a few probes. A process
// opens as soon as every process it must wait for has confirmed this incarnation: those it saw
// alive before the outage, those subscribed to their IPC channel now and those Colyseus' room count
// lists. One that never confirms (gone during the outage, a ghost of older data, stalled) is waited
// for at most REDIS_SETTLE_MS after this process's republish, the bound of before. Without a way to
// ask (`confirmReturnsWith` not called) the full REDIS_SETTLE_MS is waited.
//
// Redis may also come back with OLDER data (a restart from its snapshot, a promoted replica, a
// restored backup): listings, room counts and party codes of processes and rooms that are gone
// since. Once the others have confirmed or the settle has passed (every live process has subscribed
// again), what registered through `sweepOnRedisReturn` drops what names a process or room that is
// not alive, and only then does matchmaking open: no joiner is routed to a ghost, mode status
// counts only live rooms. Ghosts of older data never confirm, so that return still waits the 2 s.
import type { Dependencies } from "../dependencies.js";
import { dependencyUnavailable, shortCause } from "../dependencies.js";
import type { Logger } from "../ops/logger.js";
import { isRedisUnreachable, type RedisLink } from "./redisLink.js";

export const REDIS_PROBE_MS = 500;
/** While matchmaking is closed (Redis away, or waiting for the others' confirmations), probes run this often. */
export const REDIS_FAST_PROBE_MS = 100;
/** After its republish, a process waits at most this long for the others' confirmations (see above). */
export const REDIS_SETTLE_MS = 2000;
/** A confirmation outlives its last write by this long (it is written on every probe). */
export const REDIS_CONFIRM_TTL_MS = 4 * REDIS_PROBE_MS;

type Republish = () => Promise<unknown>;

/** How the processes of a deployment tell one another they have republished (scaled out: ./redisColyseus.ts). Each rejects when Redis does not answer. */
export interface ReturnPeers {
  /** This Redis' incarnation: another after a restart, a failover or a restore. */
  epoch(): Promise<string>;
  /** The other processes that may hold seats in this Redis: alive now (subscribed) or counted by Colyseus. */
  present(): Promise<Set<string>>;
  /** Says this process has republished into incarnation `epoch`, for `ttlMs`. */
  confirm(epoch: string, ttlMs: number): Promise<void>;
  /** Of `processes`, those that have confirmed incarnation `epoch`. */
  confirmed(processes: string[], epoch: string): Promise<Set<string>>;
}

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
 * Registers a clean-up run once per return, once every live process has subscribed and republished
 * (confirmed, or the settle passed) and before matchmaking opens: dropping what Redis holds of
 * processes and rooms that are not alive (it may have come back with older data). Resolves to what
 * it dropped (logged); rejects when Redis does not answer (retried). Returns the unregister function.
 */
export function sweepOnRedisReturn(name: string, sweep: Republish): () => void {
  sweeps.set(name, sweep);
  return () => {
    if (sweeps.get(name) === sweep) sweeps.delete(name);
  };
}

export class RedisRecovery {
  private republished = true;
  /** Every process waited for has confirmed (or there was nobody to wait for). */
  private settled = true;
  private swept = true;
  private fastTimer: NodeJS.Timeout | undefined;
  private offDrop: () => void = () => {};
  /** The end of the settle: matchmaking opens then at the latest. */
  private openAt = 0;
  private backAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private peers: ReturnPeers | undefined;
  /** The incarnation of Redis this process republished into (and confirms). */
  private epoch: string | undefined;
  /** The other processes seen while matchmaking was open: after an outage each is waited for. */
  private known = new Set<string>();
  /** Those still unconfirmed at the last look (logged when the settle ends without them). */
  private unconfirmed: string[] = [];

  constructor(
    private readonly link: RedisLink,
    private readonly deps: Dependencies,
    private readonly log: Logger,
    /** One cheap round trip to Redis (PING); rejects when it does not answer. */
    private readonly ping: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens matchmaking after a return as soon as every other process has confirmed its republish (see above). */
  confirmReturnsWith(peers: ReturnPeers): this {
    this.peers = peers;
    return this;
  }

  start(everyMs = REDIS_PROBE_MS, fastMs = REDIS_FAST_PROBE_MS): this {
    // Connections that closed before this (a start that waited for Redis) left nothing to republish.
    this.link.takeDropped();
    // A closed connection closes matchmaking at once: Redis may be restarting with other data.
    this.offDrop = this.link.onDrop(() => (this.republished = false));
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
    // While closed, a return (and the others' confirmations) is noticed within `fastMs`; while Redis
    // is down with its connections still closed, the probe every `everyMs` is enough.
    this.fastTimer = setInterval(() => {
      if (!this.matchmakingOpen() && (!this.deps.isDown("redis") || this.link.allReady())) void this.tick();
    }, fastMs);
    this.fastTimer.unref();
    return this;
  }

  stop(): void {
    this.offDrop();
    clearInterval(this.timer);
    clearInterval(this.fastTimer);
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
      else if (!this.settled) await this.settle();
      else if (!this.swept && this.now() >= this.openAt) await this.sweep();
      else await this.heartbeat();
    } finally {
      this.probing = false;
    }
  }

  private down(err: unknown): void {
    this.republished = false;
    this.link.failed(err);
  }

  /** A failure of a call to Redis: Redis away (down, retried) or logged. */
  private failedCall(err: unknown, what: string): void {
    if (isRedisUnreachable(err)) return this.down(err);
    this.log.warn({ what, cause: shortCause(err) }, "could not confirm this process's republish to the others");
  }

  private async republish(): Promise<void> {
    const started = this.now();
    const done: string[] = [];
    let epoch: string | undefined;
    try {
      // Read first: if Redis restarts during the republish, the confirmation names the old one.
      epoch = this.peers ? await this.peers.epoch() : undefined;
    } catch (err) {
      if (isRedisUnreachable(err)) return this.down(err);
      // A Redis that will not tell its incarnation (INFO renamed away): the full settle, every time.
      this.log.warn({ cause: shortCause(err) }, `Redis does not tell its run_id: after each of its returns matchmaking waits ${REDIS_SETTLE_MS} ms`);
      this.peers = undefined;
    }
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
    this.epoch = epoch;
    this.republished = true;
    this.settled = !this.peers; // without peers the settle is the time below
    this.unconfirmed = [];
    this.swept = sweeps.size === 0;
    this.openAt = this.now() + REDIS_SETTLE_MS;
    // Without peers the sweep runs as soon as the settle is over, not at the next probe.
    if (!this.peers && !this.swept) setTimeout(() => void this.tick(), REDIS_SETTLE_MS).unref();
    this.log.info(
      { dependency: "redis", republished: done, republish_ms: this.now() - started, since_back_ms: this.now() - this.backAt, matchmaking_in_ms: this.peers ? `once the others confirmed, at most ${REDIS_SETTLE_MS}` : REDIS_SETTLE_MS },
      "republished this process's rooms, seats and registrations to Redis",
    );
    if (this.peers) await this.settle();
  }

  /** Confirms this process's republish, and settles once every process waited for has confirmed its own (or the settle is over). */
  private async settle(): Promise<void> {
    if (!(await this.heartbeat())) return;
    const peers = this.peers!;
    try {
      const waitFor = [...new Set([...this.known, ...(await peers.present())])];
      const confirmed = await peers.confirmed(waitFor, this.epoch!);
      this.unconfirmed = waitFor.filter((p) => !confirmed.has(p));
    } catch (err) {
      return this.failedCall(err, "confirmations");
    }
    if (this.unconfirmed.length > 0 && this.now() < this.openAt) return;
    this.settled = true;
    this.log.info(
      { dependency: "redis", since_back_ms: this.now() - this.backAt, unconfirmed: this.unconfirmed },
      this.unconfirmed.length ? "not every process confirmed its republish within the settle time: going on without them" : "every process has confirmed its republish",
    );
    if (!this.swept) await this.sweep();
  }

  /** Writes this process's confirmation again (and, while open, notes the processes alive); false when Redis did not answer. */
  private async heartbeat(): Promise<boolean> {
    if (!this.peers) return true;
    try {
      this.epoch ??= await this.peers.epoch(); // a process that started on this Redis
      await this.peers.confirm(this.epoch, REDIS_CONFIRM_TTL_MS);
      if (this.matchmakingOpen()) this.known = await this.peers.present();
      return true;
    } catch (err) {
      this.failedCall(err, "confirmation");
      return false;
    }
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

  /** Whether this process may place new matches (Redis up, republished, every other process confirmed or the settle over, swept). */
  matchmakingOpen(): boolean {
    return !this.deps.isDown("redis") && this.republished && this.swept && (this.peers ? this.settled : this.now() >= this.openAt);
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
