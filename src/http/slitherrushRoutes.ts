// /api/slitherrush: the caller's results and the all-time best scores. Both need the session
// cookie, like the other game routes. The arenas themselves are the Colyseus "slitherrush" room.
import { Router } from "express";
import type { AppContext } from "../context.js";
import { currentUser, requireAuth } from "../auth/middleware.js";
import { SlitherRushStore } from "../stores/slitherrush.js";
import { leaderboardQuery, toLeaderboardEntry, toStats } from "./slitherrushWire.js";
import { parseWith } from "./validate.js";

export function slitherrushRoutes(ctx: AppContext): Router {
  const router = Router();
  const store = new SlitherRushStore(ctx.prisma);
  router.use(requireAuth(ctx));

  router.get("/stats", async (req, res) => {
    const user = currentUser(req);
    res.json(toStats(user, await store.stats(user.id)));
  });

  router.get("/leaderboard", async (req, res) => {
    const { limit } = parseWith(leaderboardQuery, { limit: req.query.limit }, "query");
    const rows = await store.leaderboard(limit);
    res.json({ leaderboard: rows.map(toLeaderboardEntry), count: rows.length, limit });
  });

  return router;
}
