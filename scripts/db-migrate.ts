// npm run db:migrate — applies pending migrations to the configured database (DATA_DIR's embedded
// PGlite, or DATABASE_URL) exactly as `prisma migrate deploy` would. The server does the same at
// start-up; this is for deployments that migrate as a separate step. The embedded database is
// migrated as the server does it: on a copy swapped in when complete, and a migration an older
// version left unfinished (Prisma's P3009) is settled first.
import { ConfigError, embeddedDatabaseDir, loadConfig, loadDotEnv } from "../src/config.js";
import { openDatabase, type Database } from "../src/db/client.js";
import { applyPendingMigrations } from "../src/db/migrate.js";
import { openPreparedEmbeddedDatabase } from "../src/db/prepareEmbedded.js";
import { DataDirError } from "../src/process/dataDir.js";
import { defaultBackupDir } from "../src/backup/index.js";
import { backupBeforeMigrating, PreMigrationBackupError } from "../src/backup/preMigration.js";

try {
  loadDotEnv();
  const config = loadConfig();
  // An existing database is backed up first, as the server does (src/backup/preMigration.ts).
  const beforeMigrating = (db: Database) => backupBeforeMigrating(db, defaultBackupDir(config));
  const { db, applied } = config.databaseUrl ? await migrateServer(config.databaseUrl, beforeMigrating) : await openPreparedEmbeddedDatabase(embeddedDatabaseDir(config), { beforeMigrating });
  await db.close();
  console.log(applied.length ? `applied to ${db.describe}:\n  ${applied.join("\n  ")}` : `${db.describe} is up to date`);
} catch (err) {
  console.error(err instanceof ConfigError || err instanceof Error ? err.message : err);
  process.exit(err instanceof ConfigError || err instanceof DataDirError || err instanceof PreMigrationBackupError ? 2 : 1);
}

/** PostgreSQL: applies what is pending; the database is closed again if that fails. */
async function migrateServer(databaseUrl: string, beforeMigrating: (db: Database) => Promise<unknown>) {
  const db = await openDatabase({ databaseUrl });
  try {
    await beforeMigrating(db);
    return { db, applied: await applyPendingMigrations(db) };
  } catch (err) {
    await db.close();
    throw err;
  }
}
