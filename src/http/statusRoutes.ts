// GET /health (the process is up) and GET /ready (the database answers and has room for writes, Redis
// answers and this process has republished what it owns there, the process is not stopping).
import { Router } from "express";
import { matchMaker } from "@colyseus/core";
import type { AppContext } from "../context.js";
import { probeDatabase } from "../db/health.js";
import { activeRedisRecovery } from "../shared/redisRecovery.js";

/** Scaled out: Redis answers but this process has not yet republished what it owns there (src/shared/redisRecovery.ts). */
function redisNotReady(): "redis"[] {
  const recovery = activeRedisRecovery();
  return recovery && !recovery.isDown() && !recovery.matchmakingOpen() ? ["redis"] : [];
}

export function statusRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get("/health", (_req, res) => {
    res.json({ status: "ok", uptime_s: Math.round(process.uptime()) });
  });
  router.get("/ready", async (_req, res) => {
    // A stopping process takes no new rooms (its /matchmake answers 503): a load balancer sends new players elsewhere.
    if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN) {
      res.status(503).json({ error: { code: "draining", message: "The server is stopping: its running matches finish, new ones go elsewhere" } });
      return;
    }
    if (!ctx.storage.writable()) {
      res.status(503).json({ error: { code: "storage_full", message: "The database's storage is full: writes are refused until space is freed" } });
      return;
    }
    // SELECT 1 within 1 s (a frozen server does not hang /ready); its outcome marks the database down or back up.
    const answered = await probeDatabase(ctx.db, ctx.dependencies);
    const down = [...ctx.dependencies.down(), ...redisNotReady()];
    if (down.length > 0) {
      res.setHeader("Retry-After", "5");
      res.status(503).json({ error: { code: "not_ready", message: `Not reachable: ${down.join(", ")}`, details: { down } } });
      return;
    }
    if (!answered) {
      res.setHeader("Retry-After", "5");
      res.status(503).json({ error: { code: "not_ready", message: "Not reachable: database", details: { down: ["database"] } } });
      return;
    }
    res.json({ status: "ready", database: ctx.db.kind });
  });
  return router;
}
