// npm run db:migrate — applies pending migrations to the configured database (DATA_DIR's embedded
// PGlite, or DATABASE_URL) exactly as `prisma migrate deploy` would. The server does the same at
// start-up; this is for deployments that migrate as a separate step. The embedded database is
// migrated as the server does it: on a copy swapped in when complete, and a migration an older
// version left unfinished (Prisma's P3009) is settled first.
import { ConfigError, embeddedDatabaseDir, loadConfig, loadDotEnv } from "../src/config.js";
import { openDatabase } from "../src/db/client.js";
import { applyPendingMigrations } from "../src/db/migrate.js";
import { openPreparedEmbeddedDatabase } from "../src/db/prepareEmbedded.js";
import { DataDirError } from "../src/dataDir.js";

try {
  loadDotEnv();
  const config = loadConfig();
  const { db, applied } = config.databaseUrl ? await migrateServer(config.databaseUrl) : await openPreparedEmbeddedDatabase(embeddedDatabaseDir(config));
  await db.close();
  console.log(applied.length ? `applied to ${db.describe}:\n  ${applied.join("\n  ")}` : `${db.describe} is up to date`);
} catch (err) {
  console.error(err instanceof ConfigError || err instanceof Error ? err.message : err);
  process.exit(err instanceof ConfigError || err instanceof DataDirError ? 2 : 1);
}

/** PostgreSQL: applies what is pending; the database is closed again if that fails. */
async function migrateServer(databaseUrl: string) {
  const db = await openDatabase({ databaseUrl });
  try {
    return { db, applied: await applyPendingMigrations(db) };
  } catch (err) {
    await db.close();
    throw err;
  }
}
