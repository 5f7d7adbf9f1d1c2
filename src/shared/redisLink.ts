// Every Redis connection of a scaled-out process, ours and the ones Colyseus' presence and driver
// use, made and watched in one place (issue 29):
// - they reconnect forever (a Redis outage of any length ends without a restart);
// - a command never waits for a connection that is not there (no offline queue) and never waits
//   more than REDIS_COMMAND_TIMEOUT_MS for an answer, so a route that needs Redis answers 503
//   `dependency_unavailable` within 2 s instead of hanging or answering 500;
// - each connection has one `error` listener, which reports to src/dependencies.ts (one JSON line
//   per interval, /ready 503): nothing reaches stderr;
// - at start, the process waits for Redis (one line per interval naming REDIS_URL and the address).
import type { Redis, RedisOptions } from "ioredis";
import { dependencyUnavailable, isDependencyUnavailable, shortCause, type Dependencies } from "../dependencies.js";
import type { Logger } from "../ops/logger.js";

/** No Redis command waits longer than this for its answer (a stalled Redis answers nothing). */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/** Reconnection attempts back off to this delay and go on forever. */
export const REDIS_RECONNECT_MAX_MS = 500;
/** While waiting for Redis at start, one line this often. */
export const REDIS_WAIT_LOG_MS = 10_000;

/** Options of every connection: reconnect forever, fail fast while disconnected, bounded answers. */
export function redisOptions(extra: RedisOptions = {}): RedisOptions {
  return {
    retryStrategy: (times) => Math.min(50 * times, REDIS_RECONNECT_MAX_MS),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    ...extra,
  };
}

/** host:port of a Redis URL, without credentials (for log lines). */
export function redisAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "6379"}`;
  } catch {
    return "(unparsable REDIS_URL)";
  }
}

/** An error that means "Redis did not answer" (as opposed to a script or a type error). */
export function isRedisUnreachable(err: unknown): boolean {
  if (isDependencyUnavailable(err)) return true;
  const e = err as { name?: string; message?: string; code?: string } | null;
  if (!e) return false;
  if (e.name === "MaxRetriesPerRequestError") return true;
  return /Connection is closed|Stream isn't writeable|Command timed out|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|connect ETIMEDOUT|LOADING|Socket closed unexpectedly/i.test(String(e.message ?? ""));
}

export class RedisLink {
  private deps: Dependencies | undefined;
  private readonly clients = new Map<string, Redis>();
  private lastCause: string | undefined;
  private dropped = false;
  private readonly dropListeners = new Set<() => void>();

  constructor(
    readonly url: string,
    private readonly logger: Logger,
  ) {}

  get address(): string {
    return redisAddress(this.url);
  }

  /** From now on failures mark Redis down in `deps` (503s, /ready) and are logged there. */
  bind(deps: Dependencies): void {
    this.deps = deps;
    deps.describe("redis", { variable: "REDIS_URL", address: this.address });
  }

  /** A new connection with our options, watched under `name`. */
  async create(name: string, extra: RedisOptions = {}): Promise<Redis> {
    const { Redis } = await import("ioredis");
    return this.watch(name, new Redis(this.url, redisOptions(extra)));
  }

  /**
   * Takes charge of a connection (ours, or one Colyseus made): its error listeners are replaced by
   * ours, which reports each failure to the dependency gate instead of printing it.
   */
  watch<T extends Redis>(name: string, client: T): T {
    client.removeAllListeners("error");
    client.on("error", (err: unknown) => this.failed(err));
    // A connection that closed and came back between two probes: Redis may have restarted (from
    // older data, or empty) faster than a probe could see it down.
    client.on("close", () => {
      this.dropped = true;
      for (const listener of this.dropListeners) listener();
    });
    this.clients.set(name, client);
    return client;
  }

  /** One cheap round trip on our own connection (the health probe). */
  async ping(): Promise<void> {
    const client = this.clients.get("shared") ?? [...this.clients.values()][0];
    if (!client) throw new Error("no Redis connection");
    await client.ping();
  }

  /** Calls `listener` whenever a watched connection closes; returns the unsubscribe. */
  onDrop(listener: () => void): () => void {
    this.dropListeners.add(listener);
    return () => this.dropListeners.delete(listener);
  }

  /** Whether a watched connection closed since the last call (then Redis may have restarted). */
  takeDropped(): boolean {
    const dropped = this.dropped;
    this.dropped = false;
    return dropped;
  }

  /** Every watched connection is connected (and ready for commands). */
  allReady(): boolean {
    return [...this.clients.values()].every((c) => c.status === "ready");
  }

  /** The watched connections that are not ready, for the operator. */
  notReady(): string[] {
    return [...this.clients].filter(([, c]) => c.status !== "ready").map(([name, c]) => `${name}:${c.status}`);
  }

  /** Redis did not answer: marks it down (one line per interval, in src/dependencies.ts). */
  failed(err: unknown): void {
    this.lastCause = shortCause(err) ?? this.lastCause;
    this.deps?.failed("redis", err);
  }

  isDown(): boolean {
    return this.deps?.isDown("redis") ?? false;
  }

  /**
   * Runs a Redis call: refused at once (503) while Redis is known down, and a failure to reach it
   * becomes the 503 too (other errors pass unchanged).
   */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.isDown()) throw dependencyUnavailable("redis");
    try {
      return await fn();
    } catch (err) {
      if (!isRedisUnreachable(err)) throw err;
      this.failed(err);
      throw dependencyUnavailable("redis");
    }
  }

  /**
   * Waits until every watched connection is ready, logging one line per REDIS_WAIT_LOG_MS that
   * names REDIS_URL and the address. Waits as long as it takes (the start-up choice of issue 29:
   * wait, never exit); `onFirstLine` runs once if it has to wait at all.
   */
  async waitUntilReady(onFirstLine: () => unknown = () => {}): Promise<void> {
    const started = Date.now();
    // The first line after a second (a reachable Redis answers well before), then one per interval.
    let lastLine = started - REDIS_WAIT_LOG_MS + 1000;
    let logged = false;
    while (!this.allReady()) {
      if (Date.now() - lastLine >= REDIS_WAIT_LOG_MS) {
        lastLine = Date.now();
        if (!logged) await onFirstLine();
        logged = true;
        this.logger.error(
          { dependency: "redis", variable: "REDIS_URL", address: this.address, waited_s: Math.round((lastLine - started) / 1000), cause: this.lastCause, connections: this.notReady() },
          `waiting for Redis at ${this.address} (REDIS_URL): the server starts serving as soon as it answers`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (logged) this.logger.info({ dependency: "redis", address: this.address, waited_s: Math.round((Date.now() - started) / 1000) }, "Redis reachable: starting");
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.quit().catch(() => c.disconnect())));
    this.clients.clear();
  }
}

let active: RedisLink | undefined;

/** The process's Redis link (undefined without REDIS_URL). */
export function activeRedisLink(): RedisLink | undefined {
  return active;
}

export function setActiveRedisLink(link: RedisLink | undefined): void {
  active = link;
}
