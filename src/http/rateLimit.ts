// A fixed-window counter per key, in process memory. Scaled out, each process limits on its own,
// which bounds abuse per process; a shared limiter would go through Redis.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../errors.js";

export class FixedWindowLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(readonly limit: number, readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Counts one hit; returns how long to wait (ms) when over the limit, else 0. */
  hit(key: string): number {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count > this.limit ? w.resetAt - now : 0;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

export function rateLimit(limiter: FixedWindowLimiter, keyOf: (req: Request) => string | undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const key = keyOf(req);
    if (key === undefined) return next();
    const waitMs = limiter.hit(key);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      res.setHeader("Retry-After", String(seconds));
      return next(new AppError(429, "rate_limited", `Too many requests; try again in ${seconds} s`));
    }
    next();
  };
}
