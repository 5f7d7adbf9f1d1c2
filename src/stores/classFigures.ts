// What the game recorded about a class's students, read in a handful of queries for the whole class
// (never one per student): the teacher's dashboard and its CSV. Read only; each table keeps its writer.
import type { PrismaClient } from "../db/generated/client.js";

export interface StudentRecord {
  id: number;
  username: string;
  displayName: string | null;
  lockedAt: Date | null;
  mutedAt: Date | null;
  lastSeenAt: Date | null;
  progress: { completedLessons: number[]; totalBullets: number; timePlayed: number; updatedAt: Date } | null;
  /** Every answer given, by square: right and wrong counts. */
  answers: Array<{ square: number; right: number; wrong: number }>;
  boss: { battlesJoined: number; battlesWon: number; secondsInBattle: number; lastAt: Date | null };
  pvp: { won: number; lost: number; drawn: number; secondsInBattle: number; lastAt: Date | null };
  slitherrush: { bestScore: number; secondsPlayed: number; lastAt: Date | null } | null;
}

/** The records of `ids` (students of one class), in the order of `ids`; ids of no account are skipped. */
export async function studentRecords(prisma: PrismaClient, ids: readonly number[]): Promise<StudentRecord[]> {
  if (ids.length === 0) return [];
  const userIds = [...ids];
  const [users, progress, answers, bossStats, bossTimes, pvp, slither] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, username: true, displayName: true, lockedAt: true, mutedAt: true, lastSeenAt: true } }),
    prisma.gameProgress.findMany({ where: { userId: { in: userIds } }, select: { userId: true, completedLessons: true, totalBullets: true, timePlayed: true, updatedAt: true } }),
    prisma.$queryRaw<Array<{ user_id: number; square: number; right: number; wrong: number }>>`
      SELECT p.user_id, c.square, count(*) FILTER (WHERE c.correct)::int AS right, count(*) FILTER (WHERE NOT c.correct)::int AS wrong
      FROM square_completions c JOIN game_progress p ON p.id = c.progress_id
      WHERE p.user_id = ANY(${userIds}::int[]) GROUP BY p.user_id, c.square`,
    prisma.bossBattleStats.findMany({ where: { userId: { in: userIds } }, select: { userId: true, battlesJoined: true, battlesWon: true } }),
    prisma.$queryRaw<Array<{ user_id: number; seconds: number; last_at: Date | null }>>`
      SELECT user_id, coalesce(sum(extract(epoch FROM (left_at - joined_at))) FILTER (WHERE left_at IS NOT NULL), 0)::float8 AS seconds,
             max(coalesce(left_at, joined_at)) AS last_at
      FROM boss_players WHERE user_id = ANY(${userIds}::int[]) GROUP BY user_id`,
    prisma.$queryRaw<Array<{ user_id: number; won: number; lost: number; drawn: number; seconds: number; last_at: Date | null }>>`
      SELECT user_id, count(*) FILTER (WHERE outcome = 'win')::int AS won, count(*) FILTER (WHERE outcome = 'loss')::int AS lost,
             count(*) FILTER (WHERE outcome = 'draw')::int AS drawn, (coalesce(sum(duration_ms), 0) / 1000.0)::float8 AS seconds, max(ended_at) AS last_at
      FROM pvp_results WHERE user_id = ANY(${userIds}::int[]) GROUP BY user_id`,
    prisma.slitherRushStats.findMany({ where: { userId: { in: userIds } }, select: { userId: true, bestScore: true, timePlayedSeconds: true, lastPlayedAt: true } }),
  ]);
  const by = <T extends { userId?: number; user_id?: number }>(rows: T[]) => new Map(rows.map((r) => [(r.userId ?? r.user_id) as number, r]));
  const progressOf = by(progress);
  const bossOf = by(bossStats);
  const bossTimeOf = by(bossTimes);
  const pvpOf = by(pvp);
  const slitherOf = by(slither);
  const answersOf = new Map<number, StudentRecord["answers"]>();
  for (const a of answers) {
    let list = answersOf.get(a.user_id);
    if (!list) answersOf.set(a.user_id, (list = []));
    list.push({ square: a.square, right: a.right, wrong: a.wrong });
  }
  const userOf = new Map(users.map((u) => [u.id, u]));
  const out: StudentRecord[] = [];
  for (const id of userIds) {
    const u = userOf.get(id);
    if (!u) continue;
    const p = progressOf.get(id);
    const b = bossOf.get(id);
    const bt = bossTimeOf.get(id);
    const v = pvpOf.get(id);
    const s = slitherOf.get(id);
    out.push({
      ...u,
      progress: p ? { completedLessons: p.completedLessons, totalBullets: p.totalBullets, timePlayed: p.timePlayed, updatedAt: p.updatedAt } : null,
      answers: (answersOf.get(id) ?? []).sort((x, y) => x.square - y.square),
      boss: { battlesJoined: b?.battlesJoined ?? 0, battlesWon: b?.battlesWon ?? 0, secondsInBattle: bt?.seconds ?? 0, lastAt: bt?.last_at ?? null },
      pvp: { won: v?.won ?? 0, lost: v?.lost ?? 0, drawn: v?.drawn ?? 0, secondsInBattle: v?.seconds ?? 0, lastAt: v?.last_at ?? null },
      slitherrush: s ? { bestScore: s.bestScore, secondsPlayed: s.timePlayedSeconds, lastAt: s.lastPlayedAt } : null,
    });
  }
  return out;
}
