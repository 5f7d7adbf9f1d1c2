// What SlitherRush writes to the database: each account's results over all its sessions
// (slitherrush_stats). The room writes a seat's changes when it leaves and checkpoints them while it
// plays; every write adds deltas atomically and raises bests with GREATEST, so two writes (two
// processes, a checkpoint racing a leave) never lose each other's counts. Guests never get here.
import type { PrismaClient } from "../db/client.js";

/** One account seat's changes since its previous write. */
export interface SlitherRushResultWrite {
  userId: number;
  /** 1 on the first write of a session (a join), else 0. */
  sessions: number;
  /** Increases since the previous write. */
  kills: number;
  deaths: number;
  timePlayedSeconds: number;
  /** Highest score and length of the session so far (bests only ever go up). */
  bestScore: number;
  bestLength: number;
  at: Date;
}

export interface SlitherRushStatsRow {
  userId: number;
  username: string;
  sessions: number;
  kills: number;
  deaths: number;
  bestScore: number;
  bestLength: number;
  timePlayedSeconds: number;
  lastPlayedAt: Date | null;
}

export class SlitherRushStore {
  constructor(private readonly prisma: PrismaClient) {}

  /** Adds the writes in one transaction (an account missing its row gets one). */
  async record(writes: readonly SlitherRushResultWrite[]): Promise<void> {
    const ops = writes.map(
      (w) => this.prisma.$executeRaw`
        INSERT INTO slitherrush_stats (user_id, sessions, kills, deaths, best_score, best_length, time_played_seconds, last_played_at, updated_at)
        VALUES (${w.userId}, ${w.sessions}, ${w.kills}, ${w.deaths}, ${w.bestScore}, ${w.bestLength}, ${w.timePlayedSeconds}, ${w.at}, ${w.at})
        ON CONFLICT (user_id) DO UPDATE SET
          sessions = slitherrush_stats.sessions + EXCLUDED.sessions,
          kills = slitherrush_stats.kills + EXCLUDED.kills,
          deaths = slitherrush_stats.deaths + EXCLUDED.deaths,
          best_score = GREATEST(slitherrush_stats.best_score, EXCLUDED.best_score),
          best_length = GREATEST(slitherrush_stats.best_length, EXCLUDED.best_length),
          time_played_seconds = slitherrush_stats.time_played_seconds + EXCLUDED.time_played_seconds,
          last_played_at = GREATEST(slitherrush_stats.last_played_at, EXCLUDED.last_played_at),
          updated_at = EXCLUDED.updated_at`,
    );
    if (ops.length) await this.prisma.$transaction(ops);
  }

  /** The account's results, or null before its first session. */
  async stats(userId: number): Promise<SlitherRushStatsRow | null> {
    const row = await this.prisma.slitherRushStats.findUnique({ where: { userId }, include: { user: { select: { username: true } } } });
    return row ? toRow(row) : null;
  }

  /** All-time best scores: best score, then best length, then kills, descending; earlier accounts first on a tie. */
  async leaderboard(limit: number): Promise<SlitherRushStatsRow[]> {
    const rows = await this.prisma.slitherRushStats.findMany({
      orderBy: [{ bestScore: "desc" }, { bestLength: "desc" }, { kills: "desc" }, { userId: "asc" }],
      take: limit,
      include: { user: { select: { username: true } } },
    });
    return rows.map(toRow);
  }
}

function toRow(r: {
  userId: number;
  sessions: number;
  kills: number;
  deaths: number;
  bestScore: number;
  bestLength: number;
  timePlayedSeconds: number;
  lastPlayedAt: Date | null;
  user: { username: string };
}): SlitherRushStatsRow {
  return {
    userId: r.userId,
    username: r.user.username,
    sessions: r.sessions,
    kills: r.kills,
    deaths: r.deaths,
    bestScore: r.bestScore,
    bestLength: r.bestLength,
    timePlayedSeconds: r.timePlayedSeconds,
    lastPlayedAt: r.lastPlayedAt,
  };
}
