// npm run db:migrate — applies pending migrations to the configured database (DATA_DIR's embedded
// PGlite, or DATABASE_URL) exactly as `prisma migrate deploy` would. The server does the same at
// start-up; this is for deployments that migrate as a separate step.
import { ConfigError, embeddedDatabaseDir, loadConfig, loadDotEnv } from "../src/config.js";
import { openDatabase } from "../src/db/client.js";
import { applyPendingMigrations } from "../src/db/migrate.js";

try {
  loadDotEnv();
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDataDir: embeddedDatabaseDir(config) });
  try {
    const applied = await applyPendingMigrations(db);
    console.log(applied.length ? `applied to ${db.describe}:\n  ${applied.join("\n  ")}` : `${db.describe} is up to date`);
  } finally {
    await db.close();
  }
} catch (err) {
  console.error(err instanceof ConfigError || err instanceof Error ? err.message : err);
  process.exit(1);
}
