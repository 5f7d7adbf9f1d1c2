// The revoked_sessions table: sessions ended one by one (a logout) before their token expires.
// A row is only needed until the token it names expires; expired rows are dropped as new ones come.
import type { Prisma, PrismaClient } from "../db/generated/client.js";

export async function recordRevokedSession(prisma: PrismaClient, subject: string, sid: string, expiresAt: Date): Promise<void> {
  await prisma.$transaction([
    prisma.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    prisma.revokedSession.createMany({ data: [{ sid, subject, expiresAt }], skipDuplicates: true }),
  ]);
}

/** The subject's revoked sessions whose tokens have not expired yet. */
export async function liveRevokedSessions(prisma: PrismaClient, subject: string): Promise<string[]> {
  const rows = await prisma.revokedSession.findMany({ where: { subject, expiresAt: { gt: new Date() } }, select: { sid: true } });
  return rows.map((r) => r.sid);
}

/** The live revoked sessions of several subjects in one query: subject → its sids. */
export async function liveRevokedSessionsOf(prisma: PrismaClient, subjects: string[]): Promise<Map<string, string[]>> {
  const rows = await prisma.revokedSession.findMany({ where: { subject: { in: subjects }, expiresAt: { gt: new Date() } }, select: { subject: true, sid: true } });
  const bySubject = new Map<string, string[]>();
  for (const { subject, sid } of rows) bySubject.set(subject, [...(bySubject.get(subject) ?? []), sid]);
  return bySubject;
}

/** An erasure: the subject's revoked sessions go (its tokens name an account that no longer exists). */
export async function forgetRevokedSessionsOf(db: PrismaClient | Prisma.TransactionClient, subject: string): Promise<void> {
  await db.revokedSession.deleteMany({ where: { subject } });
}
