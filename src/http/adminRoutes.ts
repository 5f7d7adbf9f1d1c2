// POST /admin/commands: operator commands run inside this server, for `npm run admin` while this
// process holds the embedded database (src/admin/endpoint.ts). Only bearers of the token the
// server wrote to DATA_DIR/admin.json (owner-only) get in, only over a direct connection: a request
// a proxy relays (X-Forwarded-For / Forwarded) is answered as if the route did not exist.
import { createHash, timingSafeEqual } from "node:crypto";
import express, { Router, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { checkArguments, execute, preparedCommandSchema, UsageError, type PreparedCommand } from "../admin/commands.js";
import { ADMIN_COMMANDS_PATH } from "../admin/endpoint.js";
import { parseWith } from "./validate.js";

const digest = (text: string) => createHash("sha256").update(text).digest();

export function adminRoutes(ctx: AppContext, token: string): Router {
  const router = Router();
  const expected = digest(token);
  router.post(ADMIN_COMMANDS_PATH, express.json({ limit: "16mb" }), async (req: Request, res: Response) => {
    if (req.headers["x-forwarded-for"] !== undefined || req.headers.forwarded !== undefined) {
      throw new AppError(404, "not_found", `No route for ${req.method} ${req.path}`);
    }
    const presented = /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];
    if (!presented || !timingSafeEqual(digest(presented), expected)) throw new AppError(401, "unauthenticated", "Admin token missing or wrong");
    const command = parseWith(preparedCommandSchema, req.body) as PreparedCommand;
    try {
      checkArguments(command);
    } catch (e) {
      if (e instanceof UsageError) throw new AppError(400, "bad_usage", e.message);
      throw e;
    }
    ctx.logger.info({ command: command.command }, "admin command from npm run admin");
    res.json(await execute(command, { prisma: ctx.prisma, sessions: ctx.sessions }));
  });
  return router;
}
