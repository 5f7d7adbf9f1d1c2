// Express guard for protected routes. No token → 401; expired → 403 (the spec); bad signature,
// wrong algorithm, malformed token, unknown user or ended session → 401; a locked account → 403 account_locked.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../errors.js";
import { readCookie } from "./cookies.js";
import type { SessionCheck } from "./identity.js";

/** What a locked account is told, at sign-in and on every request of a session it still holds. */
export const ACCOUNT_LOCKED_MESSAGE = "This account is locked by a teacher or an admin: ask them to unlock it";

export interface AuthUser {
  id: number;
  username: string;
}

declare module "express-serve-static-core" {
  interface Request {
    user?: AuthUser;
    requestId?: string;
  }
}

export function requireAuth(ctx: SessionCheck): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const token = readCookie(req.headers.cookie, ctx.config.jwtCookieName);
    if (!token) return next(new AppError(401, "unauthenticated", "Authentication token is missing"));
    const check = ctx.tokens.verify(token);
    if (check.status === "expired") return next(new AppError(403, "token_expired", "Authentication token expired"));
    if (check.status === "invalid") return next(new AppError(401, "invalid_token", "Invalid authentication token"));
    // Cached per account for a few seconds: no database read per request (src/auth/sessions.ts).
    const session = await ctx.sessions.check({ kind: "account", id: check.uid }, check);
    if (!session.ok) {
      if (session.reason === "locked") return next(new AppError(403, "account_locked", ACCOUNT_LOCKED_MESSAGE));
      const why = session.reason === "unknown_subject" ? "unknown user" : "the session has ended (logout or password change)";
      return next(new AppError(401, "invalid_token", `Invalid authentication token: ${why}`));
    }
    req.user = { id: check.uid, username: session.subject.username };
    ctx.lastSeen?.touch(check.uid);
    next();
  };
}

/** The authenticated user of a route behind requireAuth. */
export function currentUser(req: Request): AuthUser {
  if (!req.user) throw new AppError(401, "unauthenticated", "Authentication token is missing");
  return req.user;
}
