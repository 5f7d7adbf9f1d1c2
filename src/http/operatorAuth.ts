// The operator surfaces' basic auth (the monitor, /metrics' basic branch): wrong credentials are
// limited per client address as sign-ins are, counting failures only, so an operator's own page
// never runs into the limit and a guesser gets 429 after OPERATOR_AUTH_FAILURES.limit tries. While an
// address is over the limit, even the right password is answered 429: the guesser learns nothing.
import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { FixedWindowLimiter, retryAfter } from "./rateLimit.js";

/** Failed operator sign-ins per client address and window (a person mistyping gets many tries). */
export const OPERATOR_AUTH_FAILURES = { limit: 20, windowMs: 10 * 60_000 } as const;

const digest = (text: string) => createHash("sha256").update(text).digest();

/** One key space for the monitor and /metrics: a guesser cannot double its tries by switching. */
export function operatorAuthLimiter(ctx: Pick<AppContext, "counters">): FixedWindowLimiter {
  return new FixedWindowLimiter(ctx.counters, "operator-auth-ip", OPERATOR_AUTH_FAILURES.limit, OPERATOR_AUTH_FAILURES.windowMs);
}

/** Whether `Authorization: Basic …` carries exactly `user:password` (compared in constant time). */
export function basicMatcher(user: string, password: string): (header: string | undefined) => boolean {
  const expected = digest(`${user}:${password}`);
  return (header) => {
    const m = /^basic\s+(\S+)$/i.exec(header ?? "");
    return m !== null && timingSafeEqual(digest(Buffer.from(m[1], "base64").toString("utf8")), expected);
  };
}

const addressOf = (req: Request) => req.ip ?? "unknown";

/** 429 while the caller's address is over the failure limit (checked before its credentials are). */
export async function refuseWhileLimited(limiter: FixedWindowLimiter, req: Request, res: Response): Promise<void> {
  const waitMs = await limiter.blockedFor(addressOf(req));
  if (waitMs > 0) throw new AppError(429, "rate_limited", `Too many failed sign-ins from this address; try again in ${retryAfter(res, waitMs)} s`);
}

/**
 * Counts a failed attempt: credentials presented and wrong. A request with no Authorization at all
 * (a browser's first, before it asks for the password) is not a guess and is not counted.
 */
export async function countFailure(limiter: FixedWindowLimiter, req: Request, res: Response): Promise<void> {
  if (req.get("authorization") === undefined) return;
  const waitMs = await limiter.hit(addressOf(req));
  if (waitMs > 0) throw new AppError(429, "rate_limited", `Too many failed sign-ins from this address; try again in ${retryAfter(res, waitMs)} s`);
}

/** Basic auth for the monitor: 401 with a challenge, 429 past the failure limit. */
export function monitorAuth(limiter: FixedWindowLimiter, user: string, password: string): RequestHandler {
  const matches = basicMatcher(user, password);
  return async (req: Request, res: Response, next: NextFunction) => {
    await refuseWhileLimited(limiter, req, res);
    if (matches(req.get("authorization"))) return next();
    await countFailure(limiter, req, res);
    res.setHeader("WWW-Authenticate", 'Basic realm="monitor", charset="UTF-8"');
    throw new AppError(401, "unauthenticated", "The monitor needs MONITOR_USER and MONITOR_PASSWORD");
  };
}
