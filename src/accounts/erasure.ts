// Erasing a game account (issue 42; docs/data-protection.md): everything the database holds about it
// goes in one transaction — its row and, by ON DELETE CASCADE, every row with its user id (progress,
// square answers, boss rows, PvP results, SlitherRush stats, class memberships, the classes it
// taught) — its revoked sessions, its name in the audit entries about it and by it (they keep the id)
// and in other players' PvP results. What is kept is an erasures row holding no personal data: the
// id and the account's creation time, which `admin restore` re-applies (reapplyErasures), so an
// older backup never brings the account back, and never erases a later account given the same id.
import type { PrismaClient } from "../db/generated/client.js";
import { deleteAccount } from "../stores/accounts.js";
import { forgetAuditNames } from "../stores/audit.js";
import { recordErasure } from "../stores/erasures.js";
import { ERASED_OPPONENT_NAME, forgetOpponent } from "../stores/pvp.js";
import { forgetRevokedSessionsOf } from "../stores/sessions.js";

/** PGlite runs one transaction at a time, so waiting for a turn may take longer than Prisma's 2 s default. */
const INTERACTIVE_TX = { maxWait: 10_000, timeout: 20_000 } as const;

export interface ErasedAccount {
  id: number;
  erasedAt: Date;
}

/**
 * Erases the account; undefined when there is none. `onErased` runs inside the same transaction
 * (the audit entry), so the erasure and its record commit together.
 */
export async function eraseAccount(
  prisma: PrismaClient,
  userId: number,
  onErased?: (tx: Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0]) => Promise<void>,
): Promise<ErasedAccount | undefined> {
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, createdAt: true } });
    if (!user) return undefined;
    const erasedAt = await recordErasure(tx, { userId: user.id, userCreatedAt: user.createdAt });
    await forgetAuditNames(tx, user.id);
    await forgetOpponent(tx, user.id);
    await forgetRevokedSessionsOf(tx, `u:${user.id}`);
    await deleteAccount(tx, user.id);
    await onErased?.(tx);
    return { id: user.id, erasedAt };
  }, INTERACTIVE_TX);
}

/** A connection a restore holds (a PGlite instance or transaction, a pg client): as src/backup/snapshot.ts's Sql. */
export interface Sql {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface CarriedErasure {
  user_id: number;
  user_created_at: string;
  /** When the replaced database erased it (now, when unknown). */
  erased_at?: string;
}

/**
 * The erasures a database holds (the one a restore replaces), or none when it has no such table
 * (a database from before erasures existed).
 */
export async function readErasures(sql: Sql, schema?: string): Promise<CarriedErasure[]> {
  const table = schema ? `"${schema.replace(/"/g, '""')}".erasures` : "erasures";
  try {
    const { rows } = await sql.query<CarriedErasure>(`SELECT user_id, to_char(user_created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') AS user_created_at FROM ${table}`);
    return rows;
  } catch (err) {
    if (/does not exist/.test((err as Error).message)) return [];
    throw err;
  }
}

/**
 * The end of a restore: the erasures of the database replaced (`carried`) are kept beside the
 * backup's own, and every account whose id AND creation time match an erasure is erased again as
 * eraseAccount erases it. Then the users' id sequence is set past every erased id, so a new account
 * never takes an erased one's id (a restore then sets it past the replaced database's too). Raw SQL on the restore's own connection (a PGlite instance or a
 * pg client), as the restore loads every table; returns the ids of the accounts erased again.
 */
export async function reapplyErasures(sql: Sql, carried: readonly CarriedErasure[] = []): Promise<number[]> {
  for (const e of carried) {
    await sql.query(`INSERT INTO erasures (user_id, user_created_at, erased_at) VALUES ($1, $2::timestamp, COALESCE($3::timestamp, now())) ON CONFLICT (user_id) DO NOTHING`, [e.user_id, e.user_created_at, e.erased_at ?? null]);
  }
  const { rows: erased } = await sql.query<{ id: number }>(
    `SELECT u.id FROM users u JOIN erasures e ON e.user_id = u.id AND e.user_created_at = u.created_at`,
  );
  for (const { id } of erased) {
    await sql.query(`UPDATE audit_log SET target_name = NULL WHERE target_id = $1`, [id]);
    await sql.query(`UPDATE audit_log SET actor_name = NULL WHERE actor_id = $1`, [id]);
    await sql.query(`UPDATE pvp_results SET opponent_user_id = NULL, opponent_name = $2 WHERE opponent_user_id = $1`, [id, ERASED_OPPONENT_NAME]);
    await sql.query(`DELETE FROM revoked_sessions WHERE subject = $1`, [`u:${id}`]);
    await sql.query(`DELETE FROM users WHERE id = $1`, [id]);
  }
  // Names the backup still held in entries about accounts erased after it (their rows are gone already).
  await sql.query(`UPDATE audit_log a SET target_name = NULL FROM erasures e WHERE a.target_id = e.user_id AND a.target_name IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.user_id)`);
  await sql.query(`UPDATE audit_log a SET actor_name = NULL FROM erasures e WHERE a.actor_id = e.user_id AND a.actor_name IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.user_id)`);
  await sql.query(
    `SELECT setval(pg_get_serial_sequence('users', 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM users), (SELECT COALESCE(MAX(user_id), 0) FROM erasures)) + 1, false)`,
  );
  return erased.map((e) => e.id).sort((x, y) => x - y);
}
