// Migrated database templates, built once per test run: a PGlite data-dir tarball (cached on disk,
// keyed by the migrations and the PGlite version) and, with TEST_DATABASE_URL, a PostgreSQL
// template database that each test server clones.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { openDatabase } from "../../src/db/client.js";
import { applyMigrations, listMigrations, migrationsDir } from "../../src/db/migrate.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export async function migrationsFingerprint(): Promise<string> {
  const list = await listMigrations();
  const pgliteVersion = JSON.parse(readFileSync(join(root, "node_modules/@electric-sql/pglite/package.json"), "utf8")).version;
  const h = createHash("sha256").update(pgliteVersion);
  for (const m of list.migrationDirectories) {
    h.update(m.path).update(m.migrationFile.content.tag === "ok" ? m.migrationFile.content.value : "");
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * The tarball of a database with every migration applied; with `olderBy`, one made by an older
 * version: all but the last `olderBy` migrations applied (an upgrade has those pending).
 */
export async function buildPgliteTemplate(olderBy = 0): Promise<string> {
  const dir = join(root, "node_modules", ".cache", "snakes-test");
  const file = join(dir, `pglite-${await migrationsFingerprint()}${olderBy ? `-older-by-${olderBy}` : ""}.tar.gz`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const db = await openDatabase({ pgliteDataDir: "memory://" });
  try {
    await applyMigrations(db.adapterFactory, olderBy ? olderMigrations(olderBy) : undefined);
    const dump = await db.pglite!.dumpDataDir("gzip");
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, file);
  } finally {
    await db.close();
  }
  return file;
}

/** A migrations folder without the last `olderBy` migrations (a temporary copy). */
function olderMigrations(olderBy: number): string {
  const dir = mkdtempSync(join(tmpdir(), "snakes-older-migrations-"));
  const names = readdirSync(migrationsDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const name of names.slice(0, names.length - olderBy)) cpSync(join(migrationsDir, name), join(dir, name), { recursive: true });
  cpSync(join(migrationsDir, "migration_lock.toml"), join(dir, "migration_lock.toml"));
  return dir;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates (or reuses) a migrated template database on the server of TEST_DATABASE_URL. */
export async function buildPostgresTemplate(url: string): Promise<string> {
  const name = `snakes_tmpl_${await migrationsFingerprint()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount) return name;
    const building = `${name}_building_${process.pid}`;
    await admin.query(`CREATE DATABASE "${building}"`);
    const factory = new PrismaPg({ connectionString: withDatabase(url, building), max: 2 });
    await applyMigrations(factory);
    // Let the pool's connections go so the database can serve as a template.
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [building]);
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    return name;
  } finally {
    await admin.end();
  }
}
