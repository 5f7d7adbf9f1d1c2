// GET /api/modes/status (no auth): players, active rooms and open seats of every real-time mode,
// across every process.
import { Router } from "express";
import { liveStatus } from "../shared/modeStatus.js";

export function modesRoutes(): Router {
  const router = Router();
  router.get("/status", async (_req, res) => {
    res.json((await liveStatus()).modes);
  });
  return router;
}
