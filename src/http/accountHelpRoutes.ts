// /api/students/{id}/* (a teacher for the students of its classes, an admin for any account) and
// /api/admin/* (admins only): thin shells over src/accounts/. Every action is audited there or here;
// limits are keyed on the acting account, not the address (a school's teachers share one address).
import { Router, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { requireAuth } from "../auth/middleware.js";
import { currentActor, requireRole } from "../auth/roles.js";
import { helpStudent, HELP_ACTIONS, type HelpAction } from "../accounts/help.js";
import { eraseAccount } from "../accounts/erasure.js";
import { exportAccount, findAccounts } from "../accounts/export.js";
import { appendAudit, listAudit } from "../stores/audit.js";
import { FixedWindowLimiter, rateLimit } from "./rateLimit.js";
import { parseWith } from "./validate.js";
import { accountsQuery, auditEntryOf, auditQuery, studentPath } from "./accountHelpWire.js";

/** One key space per acting account for every teacher and admin route. */
function actorLimiter(ctx: AppContext): FixedWindowLimiter {
  const { limit, windowMs } = ctx.config.rateLimits.accountWrites;
  return new FixedWindowLimiter(ctx.counters, "helper-actions", limit, windowMs);
}

const actorLimit = (limiter: FixedWindowLimiter) => rateLimit(limiter, (req) => (req.user ? `u:${req.user.id}` : undefined));

const addressOf = (req: Request) => req.ip ?? null;

export function studentRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(requireAuth(ctx), actorLimit(actorLimiter(ctx)), requireRole(ctx, "teacher", "admin"));
  for (const action of HELP_ACTIONS) {
    router.post(`/:id/${action}`, async (req: Request, res: Response) => {
      const { id } = parseWith(studentPath, req.params, "path");
      const result = await helpStudent(ctx, { kind: "account", actor: currentActor(req), address: addressOf(req) }, action as HelpAction, id);
      res.json(result);
    });
  }
  return router;
}

export function adminAccountRoutes(ctx: AppContext): Router {
  const router = Router();
  router.use(requireAuth(ctx), actorLimit(actorLimiter(ctx)), requireRole(ctx, "admin"));
  const auditBy = (req: Request, action: string, target: { id: number; name: string | null } | undefined, result: string, detail?: Record<string, number | string>) => {
    const actor = currentActor(req);
    return appendAudit(ctx.prisma, { actor: { id: actor.id, name: actor.username, role: "admin" }, action, target, address: addressOf(req), result, detail });
  };

  router.get("/accounts", async (req: Request, res: Response) => {
    const { q, limit } = parseWith(accountsQuery, req.query, "query");
    const found = await findAccounts(ctx.prisma, q, limit + 1);
    const accounts = found.slice(0, limit);
    await auditBy(req, "account.search", undefined, "ok", { results: accounts.length });
    res.json({ accounts, truncated: found.length > limit });
  });

  router.get("/accounts/:id/export", async (req: Request, res: Response) => {
    const { id } = parseWith(studentPath, req.params, "path");
    const document = await exportAccount(ctx.prisma, id);
    const name = (document?.tables as { users?: { username?: string } } | undefined)?.users?.username ?? null;
    await auditBy(req, "account.export", { id, name }, document ? "ok" : "not_found");
    if (!document) throw new AppError(404, "not_found", `No account has id ${id}`);
    res.setHeader("Content-Disposition", `attachment; filename="account-${id}-export.json"`);
    res.json(document);
  });

  router.delete("/accounts/:id", async (req: Request, res: Response) => {
    const { id } = parseWith(studentPath, req.params, "path");
    const actor = currentActor(req);
    if (actor.id === id) {
      await auditBy(req, "account.erase", { id, name: null }, "own_account");
      throw new AppError(400, "own_account", "An admin cannot erase its own account: another admin, or the operator's erase-account, can");
    }
    const erased = await eraseAccount(ctx.prisma, id, (tx) =>
      // In the erasure's transaction: the record and the erasure commit together. No name: it is erased.
      appendAudit(tx, { actor: { id: actor.id, name: actor.username, role: "admin" }, action: "account.erase", target: { id, name: null }, address: addressOf(req), result: "ok" }),
    );
    if (!erased) {
      await auditBy(req, "account.erase", { id, name: null }, "not_found");
      throw new AppError(404, "not_found", `No account has id ${id}`);
    }
    // Its sessions name an account that no longer exists: they end, and its room connections close.
    ctx.sessions.invalidate({ kind: "account", id });
    res.json({ erased: { id, erased_at: erased.erasedAt.toISOString() } });
  });

  router.get("/audit", async (req: Request, res: Response) => {
    const query = parseWith(auditQuery, req.query, "query");
    const rows = await listAudit(ctx.prisma, {
      actorId: query.actor,
      targetId: query.target,
      action: query.action,
      since: query.since,
      until: query.until,
      beforeId: query.before,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    res.json({ entries: page.map(auditEntryOf), next_before: rows.length > query.limit ? page.at(-1)!.id : null });
  });
  return router;
}
