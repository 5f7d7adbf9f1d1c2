// One account's data as one JSON document (issue 42: a parent's or a student's request for access;
// docs/data-protection.md). Every table that holds a row about a game account is read here, keyed by
// its table name (test/integration/accountHelp.test.ts fails when a table with a user column is not).
// The password hash is never exported.
import type { PrismaClient } from "../db/generated/client.js";

/** The format of the export document; bumped when its shape changes. */
export const ACCOUNT_EXPORT_FORMAT = "snakes-account-export/1";

/**
 * The tables the export reads, with what ties their rows to the account. Tables that name a user
 * yet hold nothing about a live account: `erasures` (only erased accounts) and `revoked_sessions`
 * (token ids, no personal data; `subject` is "u:<id>").
 */
export const EXPORTED_TABLES = {
  users: "the account itself (without its password hash)",
  game_progress: "user_id",
  square_completions: "progress_id of the account's game_progress",
  boss_players: "user_id",
  boss_battle_stats: "user_id",
  pvp_results: "user_id",
  slitherrush_stats: "user_id",
  class_members: "user_id (the classes it is in)",
  classes: "teacher_id (the classes it teaches)",
  audit_log: "actor_id or target_id",
  revoked_sessions: "subject u:<id>",
  erasures: "user_id (none for a live account)",
} as const;

export async function exportAccount(prisma: PrismaClient, userId: number): Promise<Record<string, unknown> | undefined> {
  const user = await prisma.user.findUnique({ where: { id: userId }, omit: { passwordHash: true } });
  if (!user) return undefined;
  const progress = await prisma.gameProgress.findUnique({ where: { userId } });
  const [squareCompletions, bossPlayers, bossStats, pvpResults, slitherRush, memberships, taught, audit, revoked, erasures] = await Promise.all([
    progress ? prisma.squareCompletion.findMany({ where: { progressId: progress.id }, orderBy: { id: "asc" } }) : [],
    prisma.bossPlayer.findMany({ where: { userId }, orderBy: { id: "asc" }, include: { room: { select: { roomId: true, createdAt: true, completedAt: true, isCompleted: true } } } }),
    prisma.bossBattleStats.findUnique({ where: { userId } }),
    prisma.pvpResult.findMany({ where: { userId }, orderBy: { id: "asc" } }),
    prisma.slitherRushStats.findUnique({ where: { userId } }),
    prisma.classMember.findMany({ where: { userId }, include: { schoolClass: { select: { id: true, name: true, teacherId: true } } } }),
    prisma.schoolClass.findMany({ where: { teacherId: userId }, include: { members: { select: { userId: true, joinedAt: true } } } }),
    prisma.auditEntry.findMany({ where: { OR: [{ actorId: userId }, { targetId: userId }] }, orderBy: { id: "asc" } }),
    prisma.revokedSession.findMany({ where: { subject: `u:${userId}` }, select: { expiresAt: true } }),
    prisma.erasure.findMany({ where: { userId } }),
  ]);
  const tables: Record<keyof typeof EXPORTED_TABLES, unknown> = {
    users: user,
    game_progress: progress ? [progress] : [],
    square_completions: squareCompletions,
    boss_players: bossPlayers,
    boss_battle_stats: bossStats ? [bossStats] : [],
    pvp_results: pvpResults,
    slitherrush_stats: slitherRush ? [slitherRush] : [],
    class_members: memberships,
    classes: taught,
    audit_log: audit,
    revoked_sessions: revoked,
    erasures,
  };
  return { format: ACCOUNT_EXPORT_FORMAT, exported_at: new Date().toISOString(), account_id: userId, tables };
}

export interface AccountSummary {
  id: number;
  username: string;
  role: string;
  displayName: string | null;
  createdAt: string;
  locked: boolean;
  muted: boolean;
}

/** Most accounts a search answers with. */
export const MAX_FOUND_ACCOUNTS = 50;

/** Accounts whose username or display name contains `query` (any letter case), by username. */
export async function findAccounts(prisma: PrismaClient, query: string, limit = MAX_FOUND_ACCOUNTS): Promise<AccountSummary[]> {
  const q = query.trim();
  const rows = await prisma.user.findMany({
    where: q ? { OR: [{ username: { contains: q, mode: "insensitive" } }, { displayName: { contains: q, mode: "insensitive" } }] } : {},
    orderBy: [{ username: "asc" }, { id: "asc" }],
    take: Math.min(limit, MAX_FOUND_ACCOUNTS),
    select: { id: true, username: true, role: true, displayName: true, createdAt: true, lockedAt: true, mutedAt: true },
  });
  return rows.map((u) => ({ id: u.id, username: u.username, role: u.role, displayName: u.displayName, createdAt: u.createdAt.toISOString(), locked: u.lockedAt !== null, muted: u.mutedAt !== null }));
}
