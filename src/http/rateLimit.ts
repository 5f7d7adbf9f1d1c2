// Fixed-window rate limits. The counters live where the deployment keeps its shared state (see
// src/shared/counters.ts): in Redis when scaled out, so a limit holds across every process, and in
// process memory otherwise.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../errors.js";
import type { AppContext } from "../context.js";
import { countRateLimited } from "../ops/metrics.js";
import type { WindowCounters } from "../shared/counters.js";

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
    if (w.count <= this.limit) return 0;
    countRateLimited(this.name);
    return w.resetInMs;
  }

  /** How long (ms) the key stays over the limit without counting a hit; 0 when it is not. */
  async blockedFor(key: string): Promise<number> {
    const w = await this.counters.peek(`${this.name}:${key}`);
    if (w.count <= this.limit) return 0;
    countRateLimited(this.name);
    return w.resetInMs;
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
