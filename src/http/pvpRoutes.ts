// /api/pvp: the caller's PvP statistics and latest results. Needs the session cookie. Battles run
// in the Colyseus "pvp" room, which writes the results this route reads.
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { currentUser, requireAuth } from "../auth/middleware.js";
import { PvpStore } from "../stores/pvp.js";
import { parseWith } from "./validate.js";

export const PVP_RECENT_DEFAULT = 10;
export const PVP_RECENT_MAX = 50;

const statsQuery = z.object({
  recent: z.coerce
    .number({ message: "recent must be a number" })
    .int("recent must be a whole number")
    .min(0, "recent must be at least 0")
    .max(PVP_RECENT_MAX, `recent must be at most ${PVP_RECENT_MAX}`)
    .default(PVP_RECENT_DEFAULT),
});

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

export function pvpRoutes(ctx: AppContext): Router {
  const router = Router();
  const store = new PvpStore(ctx.prisma);
  router.use(requireAuth(ctx));

  router.get("/stats", async (req: Request, res: Response) => {
    const { recent } = parseWith(statsQuery, req.query, "query");
    const user = currentUser(req);
    const [stats, rows] = await Promise.all([store.stats(user.id), recent > 0 ? store.recentResults(user.id, recent) : []]);
    res.json({
      user_id: user.id,
      username: user.username,
      matches: stats.matches,
      wins: stats.wins,
      losses: stats.losses,
      draws: stats.draws,
      forfeits: stats.forfeits,
      shots: stats.shots,
      hits: stats.hits,
      win_rate: percent(stats.wins, stats.matches),
      accuracy: percent(stats.hits, stats.shots),
      recent: rows.map((r) => ({
        match_id: r.matchId,
        room_id: r.roomId,
        player_number: r.playerNumber,
        outcome: r.outcome,
        reason: r.reason,
        shots: r.shots,
        hits: r.hits,
        lives_left: r.livesLeft,
        opponent: { username: r.opponentName, user_id: r.opponentUserId },
        duration_ms: r.durationMs,
        ended_at: r.endedAt.toISOString(),
      })),
    });
  });

  return router;
}
