// POST /admin/commands: operator commands run inside this server, for `npm run admin` while this
// process holds the embedded database (src/admin/endpoint.ts). Served only on the admin listener
// (./adminServer.ts: loopback, a port of its own), never on the public port. Only bearers of the
// token the server wrote to DATA_DIR/admin.json (owner-only) get in, only over a direct
// connection: a request carrying any forwarding header (X-Forwarded-For, Forwarded, X-Real-IP …)
// is answered as if the route did not exist.
import { createHash, timingSafeEqual } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { checkArguments, execute, preparedCommandSchema, UsageError, type PreparedCommand } from "../admin/commands.js";
import { ADMIN_COMMANDS_PATH } from "../admin/endpoint.js";
import { parseWith } from "./validate.js";
import { FORWARDING_HEADERS } from "./edge.js";

/** What an authenticated `npm run admin` may send. */
export const ADMIN_BODY_LIMIT = 16 * 1024 * 1024;

const digest = (text: string) => createHash("sha256").update(text).digest();

export function adminRoutes(ctx: AppContext, token: string): Router {
  const router = Router();
  const expected = digest(token);
  // The caller is checked before a byte of the body is read: only the token's bearer gets to send one.
  const authenticate = (req: Request, res: Response, next: NextFunction) => {
    if (FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined)) {
      res.setHeader("Connection", "close");
      return next(new AppError(404, "not_found", `No route for ${req.method} ${req.path}`));
    }
    const presented = /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      res.setHeader("Connection", "close"); // the body it may still be sending is not read
      return next(new AppError(401, "unauthenticated", "Admin token missing or wrong"));
    }
    next();
  };
  // A registry import carries up to 10,000 loaded entries (src/admin/commands.ts): the operator's own body may be large.
  router.post(ADMIN_COMMANDS_PATH, authenticate, express.json({ limit: ADMIN_BODY_LIMIT }), async (req: Request, res: Response) => {
    const command = parseWith(preparedCommandSchema, req.body) as PreparedCommand;
    try {
      checkArguments(command);
    } catch (e) {
      if (e instanceof UsageError) throw new AppError(400, "bad_usage", e.message);
      throw e;
    }
    ctx.logger.info({ command: command.command }, "admin command from npm run admin");
    res.json(await execute(command, { prisma: ctx.prisma, sessions: ctx.sessions, db: ctx.db, logger: ctx.logger }));
  });
  return router;
}
