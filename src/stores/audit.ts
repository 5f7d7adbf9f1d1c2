// The audit_log table: every teacher and admin action, appended and never changed. This module is its
// only writer, and it only inserts: no route, command or restore updates or deletes an entry. The one
// exception is an erasure (src/accounts/erasure.ts), which forgets the erased account's name in the
// entries about it and by it: they keep its id only.
import type { Prisma, PrismaClient } from "../db/generated/client.js";

export type AuditActorRole = "teacher" | "admin" | "operator";

export interface AuditEntryInput {
  actor: { id: number | null; name: string | null; role: AuditActorRole };
  /** What was done, e.g. "class.create", "student.lock", "account.erase". */
  action: string;
  target?: { id: number; name: string | null } | undefined;
  classId?: number | undefined;
  /** The client's address as the edge resolved it (TRUST_PROXY); null for the operator's command. */
  address: string | null;
  /** "ok", or the error code the action ended with. */
  result: string;
  /** Facts without personal data (counts, the new role, ...). */
  detail?: Prisma.InputJsonValue | undefined;
}

export async function appendAudit(db: PrismaClient | Prisma.TransactionClient, entry: AuditEntryInput): Promise<void> {
  await db.auditEntry.create({
    data: {
      actorId: entry.actor.id,
      actorName: entry.actor.name,
      actorRole: entry.actor.role,
      action: entry.action,
      targetId: entry.target?.id ?? null,
      targetName: entry.target?.name ?? null,
      classId: entry.classId ?? null,
      address: entry.address,
      result: entry.result,
      ...(entry.detail === undefined ? {} : { detail: entry.detail }),
    },
  });
}

export interface AuditFilter {
  actorId?: number | undefined;
  targetId?: number | undefined;
  action?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Entries with an id below this one (paging backwards from the newest). */
  beforeId?: number | undefined;
  limit: number;
}

/** Newest first. */
export async function listAudit(db: PrismaClient, filter: AuditFilter) {
  return db.auditEntry.findMany({
    where: {
      ...(filter.actorId === undefined ? {} : { actorId: filter.actorId }),
      ...(filter.targetId === undefined ? {} : { targetId: filter.targetId }),
      ...(filter.action === undefined ? {} : { action: filter.action }),
      ...(filter.since || filter.until ? { at: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } } : {}),
      ...(filter.beforeId === undefined ? {} : { id: { lt: filter.beforeId } }),
    },
    orderBy: { id: "desc" },
    take: filter.limit,
  });
}

/** An erasure: the entries naming the account (as actor or target) keep its id, not its name. */
export async function forgetAuditNames(db: PrismaClient | Prisma.TransactionClient, userId: number): Promise<void> {
  await db.auditEntry.updateMany({ where: { targetId: userId }, data: { targetName: null } });
  await db.auditEntry.updateMany({ where: { actorId: userId }, data: { actorName: null } });
}
