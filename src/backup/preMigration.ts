// The automatic backup before a migration changes an existing database (issue 34): an upgrade that
// goes wrong, or a version that turns out bad, can be undone with `admin restore` of this file. It
// goes to BACKUP_DIR/pre-migration/, apart from the scheduled rotation, and is never removed by us.
// A new database (nothing applied yet) has nothing to lose and gets none. If the backup cannot be
// written the migration does not run: the start stops with one line saying why.
import { join } from "node:path";
import type { Database } from "../db/client.js";
import { listMigrations } from "../db/migrate.js";
import type { Logger } from "../ops/logger.js";
import { recordBackup } from "../ops/metrics.js";
import { PRE_MIGRATION_SUBDIR } from "./schedule.js";
import { takeBackup, type BackupSummary } from "./take.js";

export class PreMigrationBackupError extends Error {
  override name = "PreMigrationBackupError";
}

/** The migrations this build has that `db` has not applied, and how many it has applied. */
export async function migrationState(db: Database): Promise<{ applied: number; pending: string[] }> {
  const [{ present }] = await db.prisma.$queryRaw<{ present: boolean }[]>`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`;
  const rows = present
    ? await db.prisma.$queryRaw<{ migration_name: string }[]>`
        SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`
    : [];
  const applied = new Set(rows.map((r) => r.migration_name));
  const pending = (await listMigrations()).migrationDirectories.map((m) => m.path).filter((name) => !applied.has(name));
  return { applied: applied.size, pending };
}

/**
 * Backs `db` up into `<backupDir>/pre-migration/` when migrations are pending on a database that
 * already has some applied; returns the backup, or undefined when none was needed.
 */
export async function backupBeforeMigrating(db: Database, backupDir: string, logger?: Logger): Promise<BackupSummary | undefined> {
  const { applied, pending } = await migrationState(db);
  if (applied === 0 || pending.length === 0) return undefined;
  let summary: BackupSummary;
  try {
    // Before the start serves: nothing waits for the database, so it is read in this process (streaming).
    // A new name in the folder (…-before-<migration>.jsonl.gz); a failure leaves no partial file (./take.ts).
    summary = recordBackup(await takeBackup(db, { folder: join(backupDir, PRE_MIGRATION_SUBDIR), suffix: `-before-${pending[0]}` }, { serving: false }));
  } catch (err) {
    throw new PreMigrationBackupError(
      `BACKUP_DIR (${backupDir}): could not back up the database before migrating it (${(err as Error).message}); nothing was migrated: make room there or point BACKUP_DIR at a writable folder, then start again`,
    );
  }
  logger?.info({ file: summary.file, bytes: summary.bytes, ms: summary.ms, pending }, "backup before migrating written");
  return summary;
}
