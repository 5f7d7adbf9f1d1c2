// GET /health (the process is up) and GET /ready (the database answers and has room for writes).
import { Router } from "express";
import type { AppContext } from "../context.js";

export function statusRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get("/health", (_req, res) => {
    res.json({ status: "ok", uptime_s: Math.round(process.uptime()) });
  });
  router.get("/ready", async (_req, res) => {
    if (!ctx.storage.writable()) {
      res.status(503).json({ error: { code: "storage_full", message: "The database's storage is full: writes are refused until space is freed" } });
      return;
    }
    try {
      await ctx.prisma.$queryRaw`SELECT 1`;
      res.json({ status: "ready", database: ctx.db.kind });
    } catch (err) {
      ctx.logger.warn({ err }, "readiness check failed");
      res.status(503).json({ error: { code: "not_ready", message: "Database is not reachable" } });
    }
  });
  return router;
}
