// Migrations with Prisma's own schema engine: `applyMigrations` is exactly `prisma migrate deploy`
// (it records each one in _prisma_migrations), and `diff` produces new migrations and the drift check.
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type { MigrationList } from "@prisma/schema-engine-wasm";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { openSchemaEngine } from "./schemaEngine.js";
import type { Database, PrismaClient } from "./client.js";

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
export const schemaPath = join(projectRoot, "prisma", "schema.prisma");
export const migrationsDir = join(projectRoot, "prisma", "migrations");
const noFilter = { externalTables: [], externalEnums: [] };

export async function readSchema(): Promise<string> {
  return readFile(schemaPath, "utf8");
}

export async function listMigrations(dir = migrationsDir): Promise<MigrationList> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => {
      const content = await readFile(join(dir, name, "migration.sql"), "utf8").then(
        (value) => ({ tag: "ok" as const, value }),
        (err: Error) => ({ tag: "error" as const, value: err.message }),
      );
      return { path: name, migrationFile: { path: "migration.sql", content } };
    }),
  );
  const lockContent = await readFile(join(dir, "migration_lock.toml"), "utf8").catch(() => null);
  return {
    baseDir: resolve(dir),
    lockfile: { path: "migration_lock.toml", content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}

/** Applies every pending migration (of `dir`: tests pass a folder with fewer); returns the names of those just applied. */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory, dir = migrationsDir): Promise<string[]> {
  const engine = await openSchemaEngine(schemaPath, await readSchema(), adapterFactory);
  try {
    const out = await engine.applyMigrations({ migrationsList: await listMigrations(dir), filters: noFilter });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * Whether a migration in prisma/migrations is not yet recorded as applied. Loading the schema
 * engine costs ~0.4 s and ~100 MB; most start-ups find nothing pending and skip it.
 */
export async function hasPendingMigrations(prisma: PrismaClient): Promise<boolean> {
  const [{ present }] = await prisma.$queryRaw<{ present: boolean }[]>`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`;
  if (!present) return true;
  const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const applied = new Set(rows.map((r) => r.migration_name));
  return (await listMigrations()).migrationDirectories.some((m) => !applied.has(m.path));
}

/** Applies pending migrations (loading the schema engine only when some are); returns their names. */
export async function applyPendingMigrations(db: Database): Promise<string[]> {
  return (await hasPendingMigrations(db.prisma)) ? applyMigrations(db.adapterFactory) : [];
}

/**
 * The SQL that would bring a database holding every existing migration up to schema.prisma.
 * Empty means the schema and the migrations agree. Runs on a throw-away in-memory PGlite,
 * optionally started from a data-dir dump (tests pass their migrated template to skip initdb).
 */
export async function diffSchemaAgainstMigrations(schema?: string, startFrom?: Blob): Promise<string> {
  const pg = await PGlite.create("memory://", startFrom ? { loadDataDir: startFrom } : {});
  const adapterFactory = new PrismaPGlite(pg);
  const datamodel = schema ?? (await readSchema());
  const engine = await openSchemaEngine(schemaPath, datamodel, adapterFactory);
  try {
    await engine.applyMigrations({ migrationsList: await listMigrations(), filters: noFilter });
    const result = await engine.diff({
      from: { tag: "schemaDatasource", files: [{ path: schemaPath, content: datamodel }], configDir: projectRoot },
      to: { tag: "schemaDatamodel", files: [{ path: schemaPath, content: datamodel }] },
      script: true,
      exitCode: null,
      filters: noFilter,
    });
    return normaliseDiff(result.stdout ?? "");
  } finally {
    engine.free();
    await pg.close();
  }
}

/** The engine prints "-- This is an empty migration." for no change. */
function normaliseDiff(sql: string): string {
  const meaningful = sql
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("--"));
  return meaningful.length === 0 ? "" : sql.trim() + "\n";
}
