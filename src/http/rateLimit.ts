// Fixed-window rate limits. The counters live where the deployment keeps its shared state (see
// src/sharedState.ts): in Redis when scaled out, so a limit holds across every process, and in
// process memory otherwise.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { AppError } from "../errors.js";
import type { AppContext } from "../context.js";

export interface WindowCount {
  /** Hits in the current window (0 when there is none). */
  count: number;
  /** ms until the current window ends. */
  resetInMs: number;
}

/** Hit counters by key, one fixed window each; every operation on one key is atomic. */
export interface WindowCounters {
  /** Counts one hit; a key without a live window starts one of `windowMs`. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  peek(key: string): Promise<WindowCount>;
}

/** Expired windows are dropped at most this often. */
const SWEEP_INTERVAL_MS = 1000;

export class MemoryWindowCounters implements WindowCounters {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetInMs: w.resetAt - now };
  }

  async peek(key: string): Promise<WindowCount> {
    const now = this.now();
    const w = this.windows.get(key);
    return w && w.resetAt > now ? { count: w.count, resetInMs: w.resetAt - now } : { count: 0, resetInMs: 0 };
  }

  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

// INCR, and start the window on the first hit (or if a window somehow lost its expiry).
const HIT = `
local count = redis.call("INCR", KEYS[1])
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

export class RedisWindowCounters implements WindowCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = "ratelimit:",
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, this.prefix + key, windowMs)) as [number, number];
    return { count, resetInMs: ttl };
  }

  async peek(key: string): Promise<WindowCount> {
    const [[, count], [, ttl]] = (await this.redis.multi().get(this.prefix + key).pttl(this.prefix + key).exec()) as [[null, string | null], [null, number]];
    return count === null || ttl <= 0 ? { count: 0, resetInMs: 0 } : { count: Number(count), resetInMs: ttl };
  }
}

/** `limit` hits per key and window; the key space is named so limiters can share one store. */
export class FixedWindowLimiter {
  constructor(
    private readonly counters: WindowCounters,
    readonly name: string,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts one hit; returns how long to wait (ms) when over the limit, else 0. */
  async hit(key: string): Promise<number> {
    const w = await this.counters.hit(`${this.name}:${key}`, this.windowMs);
    return w.count > this.limit ? w.resetInMs : 0;
  }

  /** How long (ms) the key stays over the limit without counting a hit; 0 when it is not. */
  async blockedFor(key: string): Promise<number> {
    const w = await this.counters.peek(`${this.name}:${key}`);
    return w.count > this.limit ? w.resetInMs : 0;
  }
}

export function retryAfter(res: Response, waitMs: number): number {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  res.setHeader("Retry-After", String(seconds));
  return seconds;
}

export function rateLimit(limiter: FixedWindowLimiter, keyOf: (req: Request) => string | undefined): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = keyOf(req);
    if (key === undefined) return next();
    const waitMs = await limiter.hit(key);
    if (waitMs > 0) return next(new AppError(429, "rate_limited", `Too many requests; try again in ${retryAfter(res, waitMs)} s`));
    next();
  };
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** One key space for an account's writes, shared by the progress and boss routes. */
export function accountWriteLimiter(ctx: Pick<AppContext, "counters" | "config">): FixedWindowLimiter {
  const { limit, windowMs } = ctx.config.rateLimits.accountWrites;
  return new FixedWindowLimiter(ctx.counters, "account-writes", limit, windowMs);
}

/** Limits an authenticated account's writes (mount after requireAuth); reads pass. */
export function accountWriteLimit(limiter: FixedWindowLimiter): RequestHandler {
  return rateLimit(limiter, (req) => (WRITE_METHODS.has(req.method) && req.user ? `u:${req.user.id}` : undefined));
}
