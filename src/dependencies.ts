// The services this process depends on (Redis when scaled out, the database) and whether each
// answers now. A failed call marks its dependency down: the request is answered 503 with
// Retry-After (`dependency_unavailable` for Redis, `database_unavailable` for the database), /ready
// answers 503 naming it, and the log gets one error line per dependency per interval with the count
// of refused calls, never one per request. The first success after an outage logs one info line and
// runs what was registered for the return (republishing what Redis lost, for instance).
import { AppError } from "./errors.js";
import type { Logger } from "./ops/logger.js";

export type DependencyName = "redis" | "database";

/** At most one error line per dependency per this interval while it is down. */
export const DEPENDENCY_LOG_INTERVAL_MS = 10_000;
/** What a refused request is told to wait (body and Retry-After). */
export const DEPENDENCY_RETRY_AFTER_S = 5;

const CODES: Record<DependencyName, { code: string; message: string }> = {
  redis: { code: "dependency_unavailable", message: "A service the server needs is not answering: nothing was changed. Retry shortly" },
  database: { code: "database_unavailable", message: "The database is not answering: nothing was saved. Retry shortly" },
};

/** The 503 a request gets while `name` is down: a plain message, never driver text, host or port. */
export function dependencyUnavailable(name: DependencyName): AppError {
  const { code, message } = CODES[name];
  return new AppError(503, code, message, { retry_after_s: DEPENDENCY_RETRY_AFTER_S });
}

/** Whether `error` is the 503 of an unavailable dependency (so edges set Retry-After and log no stack). */
export function isDependencyUnavailable(error: unknown): error is AppError {
  return error instanceof AppError && error.status === 503 && (error.code === CODES.redis.code || error.code === CODES.database.code);
}

/** Where a dependency is configured, for the operator's log lines (never sent to a client). */
export interface DependencyWhere {
  /** The environment variable that sets it (`REDIS_URL`, `DATABASE_URL`). */
  variable?: string;
  /** host:port, without credentials. */
  address?: string;
}

interface State {
  downSince: number | undefined;
  lastLineAt: number;
  unreported: number;
  refusedSinceDown: number;
  lastCause: string | undefined;
  where: DependencyWhere;
  recovered: Set<() => unknown>;
}

/** The first line of an error's message, shortened: enough for an operator, no stack. */
export function shortCause(err: unknown): string | undefined {
  const message = (err as { message?: unknown } | null)?.message;
  if (typeof message !== "string") return err === undefined ? undefined : String(err).slice(0, 200);
  return message.split("\n").map((l) => l.trim()).filter(Boolean).at(-1)?.slice(0, 300);
}

export class Dependencies {
  private readonly states = new Map<DependencyName, State>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private state(name: DependencyName): State {
    let s = this.states.get(name);
    if (!s) {
      s = { downSince: undefined, lastLineAt: -Infinity, unreported: 0, refusedSinceDown: 0, lastCause: undefined, where: {}, recovered: new Set() };
      this.states.set(name, s);
    }
    return s;
  }

  /** Says where a dependency is configured (named in its log lines). */
  describe(name: DependencyName, where: DependencyWhere): void {
    this.state(name).where = where;
  }

  /** A call to `name` failed because it could not be reached: marks it down, logs at most once per interval. */
  failed(name: DependencyName, err?: unknown): void {
    const s = this.state(name);
    const now = this.now();
    if (s.downSince === undefined) s.downSince = now;
    s.unreported++;
    s.refusedSinceDown++;
    s.lastCause = shortCause(err) ?? s.lastCause;
    if (now - s.lastLineAt < DEPENDENCY_LOG_INTERVAL_MS) return;
    s.lastLineAt = now;
    this.logger.error(
      {
        dependency: name,
        ...s.where,
        failures: s.unreported,
        down_s: Math.round((now - s.downSince) / 1000),
        interval_s: DEPENDENCY_LOG_INTERVAL_MS / 1000,
        cause: s.lastCause,
      },
      `${name} unreachable: requests that need it are answered 503 until it is back; no restart needed`,
    );
    s.unreported = 0;
  }

  /** A call to `name` succeeded: if it was down, one info line and the return's listeners. */
  ok(name: DependencyName): void {
    const s = this.state(name);
    if (s.downSince === undefined) return;
    const downMs = this.now() - s.downSince;
    this.logger.info({ dependency: name, ...s.where, down_s: Math.round(downMs / 1000), failures: s.refusedSinceDown }, `${name} reachable again`);
    s.downSince = undefined;
    s.lastLineAt = -Infinity;
    s.unreported = 0;
    s.refusedSinceDown = 0;
    for (const listener of s.recovered) {
      Promise.resolve()
        .then(listener)
        .catch((err) => this.logger.warn({ dependency: name, cause: shortCause(err) }, "a task run on a dependency's return failed"));
    }
  }

  isDown(name: DependencyName): boolean {
    return this.state(name).downSince !== undefined;
  }

  /** The dependencies that are down now, for /ready. */
  down(): DependencyName[] {
    return [...this.states].filter(([, s]) => s.downSince !== undefined).map(([name]) => name);
  }

  /** Runs `listener` each time `name` comes back after an outage; returns the unsubscribe. */
  onRecovered(name: DependencyName, listener: () => unknown): () => void {
    const s = this.state(name);
    s.recovered.add(listener);
    return () => s.recovered.delete(listener);
  }

  /** Throws the 503 for `name` if it is down (a route that needs it answers at once instead of waiting). */
  require(name: DependencyName): void {
    if (this.isDown(name)) throw dependencyUnavailable(name);
  }
}
