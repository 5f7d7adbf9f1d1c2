// Restoring a backup into DATA_DIR (embedded) or DATABASE_URL (PostgreSQL), whichever is set: also
// the move from one engine to the other. The file is checked whole before anything is touched. The
// schema is built by Prisma's schema engine at the backup's migration (the same migrations a start
// applies), the rows are loaded in one transaction, the sequences set past the ids loaded, and the
// database migrated forward to this build's latest, as a start would.
//
// Embedded: all of it happens in DATA_DIR/pglite.restoring under the folder's lock, swapped in only
// when complete; the database it replaces is renamed to pglite.replaced-<time>, never deleted.
// PostgreSQL: an empty database is filled; a non-empty one only with --replace, which renames its
// schema aside (replaced_<time>) first. A failure puts back what was there.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { openDatabase, redactUrl, type Database } from "../db/client.js";
import { acquireDataDirLock, DatabaseInUseError } from "../db/lock.js";
import { applyMigrations, listMigrations, migrationsDir } from "../db/migrate.js";
import { embeddedDatabaseExists, markReady, settleInterrupted, syncTree } from "../db/prepareEmbedded.js";
import { seedFile, unpackSeed } from "../db/seed.js";
import { BackupFileError, checkMigrations, readBackup, type BackupHeader, type BackupTable } from "./format.js";
import { catalog, quoteIdent, type Sql } from "./snapshot.js";
import { readErasures, reapplyErasures, type CarriedErasure } from "../accounts/erasure.js";

/** Where to restore: DATABASE_URL when set, otherwise the embedded database in DATA_DIR (as the server decides). */
export interface RestoreTarget {
  dataDir: string;
  databaseUrl?: string;
}

export interface RestoreOptions {
  /** PostgreSQL: restore into a database that holds tables, setting its schema aside. */
  replace?: boolean;
}

export interface RestoreSummary {
  file: string;
  /** The database restored into (DATA_DIR's folder, or DATABASE_URL without its password). */
  into: string;
  engine: "pglite" | "postgres";
  /** The engine the backup was taken on. */
  from: "pglite" | "postgres";
  /** The instant the restored data represents. */
  at: string;
  rows: Record<string, number>;
  /** The backup's last migration. */
  migration: string;
  /** Migrations applied after loading (a backup from an older version). */
  applied: string[];
  /** What was there before, kept: a folder (embedded) or a schema (PostgreSQL). */
  replaced?: string;
  ms: number;
}

/** The restore cannot go ahead as asked (the target is in use or not empty): one line, exit 2. */
export class RestoreRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RestoreRefusal";
  }
}

/** Reads the whole file and checks it (checksum, format, migrations this build has); throws BackupFileError. */
export async function verifyBackup(file: string): Promise<BackupHeader> {
  const header = await readBackup(file);
  checkMigrations(header, await migrationNames(), file);
  return header;
}

async function migrationNames(): Promise<string[]> {
  return (await listMigrations()).migrationDirectories.map((m) => m.path);
}

export async function restoreBackup(file: string, target: RestoreTarget, opts: RestoreOptions = {}): Promise<RestoreSummary> {
  const started = performance.now();
  const header = await verifyBackup(file);
  const done = target.databaseUrl ? await restoreIntoPostgres(file, header, target.databaseUrl, opts) : await restoreIntoEmbedded(file, header, target.dataDir);
  return {
    file: resolve(file),
    into: done.into,
    engine: target.databaseUrl ? "postgres" : "pglite",
    from: header.engine,
    at: header.at,
    rows: Object.fromEntries(header.tables.map((t) => [t.name, t.rows])),
    migration: header.migrations.at(-1)!,
    applied: done.applied,
    ...(done.replaced ? { replaced: done.replaced } : {}),
    ms: Math.round(performance.now() - started),
  };
}

interface Done {
  into: string;
  applied: string[];
  replaced?: string;
}

/** A filesystem- and identifier-safe UTC time: 20261128T212451Z. */
export const compactTimestamp = (date = new Date()) => date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** The migrations folder at the backup's migration: a temporary copy of its first ones (undefined: all of them). */
async function migrationsAt(header: BackupHeader): Promise<{ dir?: string; cleanup(): void }> {
  const all = await migrationNames();
  if (header.migrations.length === all.length) return { cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "snakes-restore-migrations-"));
  for (const name of header.migrations) cpSync(join(migrationsDir, name), join(dir, name), { recursive: true });
  cpSync(join(migrationsDir, "migration_lock.toml"), join(dir, "migration_lock.toml"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function restoreIntoEmbedded(file: string, header: BackupHeader, dataDir: string): Promise<Done> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dataDir, { recursive: true });
  let release: () => void;
  try {
    release = acquireDataDirLock(dir);
  } catch (err) {
    if (err instanceof DatabaseInUseError) {
      throw new RestoreRefusal(`the embedded database in ${dir} is in use by a running server (pid ${err.pid}): stop it before restoring into DATA_DIR (${dataDir})`);
    }
    throw err;
  }
  const work = `${dir}.restoring`;
  try {
    // What an upgrade, a first start or an earlier restore left when killed, settled as a start does.
    settleInterrupted(dir);
    let applied: string[];
    try {
      // From the seed `npm install` made when there is one (initdb's memory otherwise).
      const seed = seedFile();
      if (seed) unpackSeed(seed, work);
      const db = await openDatabase({ pgliteDataDir: work, lockHeld: true });
      try {
        const older = await migrationsAt(header);
        try {
          await applyMigrations(db.adapterFactory, older.dir);
        } finally {
          older.cleanup();
        }
        const pglite = db.pglite!;
        await pglite.transaction((tx) => loadRows(tx, file, header));
        applied = older.dir ? await applyMigrations(db.adapterFactory) : [];
        // Issue 42: an account erased since the backup was taken stays erased. The database replaced
        // is read only now, once the file has loaded: a refused file leaves it untouched.
        const carried = await erasuresOfEmbedded(dir);
        await pglite.transaction((tx) => reapplyErasures(tx, carried));
      } finally {
        await db.close();
      }
      markReady(work);
      syncTree(work);
    } catch (err) {
      rmSync(work, { recursive: true, force: true });
      throw err;
    }
    let replaced: string | undefined;
    if (existsSync(dir)) {
      replaced = `${dir}.replaced-${compactTimestamp()}`;
      renameSync(dir, replaced);
    }
    renameSync(work, dir);
    syncTree(dirname(dir)); // the renames themselves
    return { into: dir, applied, ...(replaced ? { replaced } : {}) };
  } finally {
    release();
  }
}

async function restoreIntoPostgres(file: string, header: BackupHeader, url: string, opts: RestoreOptions): Promise<Done> {
  const { default: pg } = await import("pg");
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const client = new pg.Client({ connectionString: url, application_name: "snakes-restore" });
  const where = `the database named by DATABASE_URL (${redactUrl(url)})`;
  await client.connect();
  const sql = client as unknown as Sql;
  let replaced: string | undefined;
  let schema = "";
  try {
    schema = (await sql.query<{ schema: string | null }>(`SELECT current_schema() AS schema`)).rows[0].schema ?? "";
    if (!schema) throw new RestoreRefusal(`${where} has no schema to restore into (its search_path names none that exists): create one, or fix DATABASE_URL`);
    const { rows } = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
    );
    if (rows[0].n > 0) {
      if (!opts.replace) {
        throw new RestoreRefusal(`${where} is not empty (schema "${schema}" holds ${rows[0].n} tables or sequences): restore into an empty database, or add --replace to set its content aside`);
      }
      replaced = `replaced_${compactTimestamp().toLowerCase()}`;
      await client.query(`BEGIN`);
      await client.query(`ALTER SCHEMA ${quoteIdent(schema)} RENAME TO ${quoteIdent(replaced)}`);
      await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      await client.query(`COMMIT`);
    }
  } catch (err) {
    await client.query(`ROLLBACK`).catch(() => {});
    await client.end();
    throw err;
  }

  const factory = new PrismaPg({ connectionString: url, max: 2 });
  try {
    const older = await migrationsAt(header);
    try {
      await applyMigrations(factory, older.dir);
    } finally {
      older.cleanup();
    }
    await client.query(`BEGIN`);
    try {
      await loadRows(sql, file, header);
      await client.query(`COMMIT`);
    } catch (err) {
      await client.query(`ROLLBACK`).catch(() => {});
      throw err;
    }
    const applied = older.dir ? await applyMigrations(factory) : [];
    // Issue 42: an account erased since the backup was taken stays erased (the replaced schema's erasures are kept).
    await client.query(`BEGIN`);
    try {
      await reapplyErasures(sql, replaced ? await readErasures(sql, replaced) : []);
      await client.query(`COMMIT`);
    } catch (err) {
      await client.query(`ROLLBACK`).catch(() => {});
      throw err;
    }
    return { into: redactUrl(url), applied, ...(replaced ? { replaced: `schema ${replaced}` } : {}) };
  } catch (err) {
    await putBack(client, schema, replaced);
    throw err;
  } finally {
    await client.end();
  }
}

// ---- Issue 42: erasures survive a restore (src/accounts/erasure.ts) --------------------------------

/** The erasures of the embedded database a restore replaces (none when there is none yet). */
async function erasuresOfEmbedded(dir: string): Promise<CarriedErasure[]> {
  if (!embeddedDatabaseExists(dir)) return [];
  const old = await openDatabase({ pgliteDataDir: dir, lockHeld: true });
  try {
    return await readErasures(old.pglite!);
  } finally {
    await old.close();
  }
}

// ---------------------------------------------------------------------------------------------------

/** Undoes a failed restore into PostgreSQL: what it created goes, what was there comes back. */
async function putBack(client: import("pg").Client, schema: string, replaced: string | undefined): Promise<void> {
  await client.query(`BEGIN`);
  try {
    if (replaced) {
      await client.query(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
      await client.query(`ALTER SCHEMA ${quoteIdent(replaced)} RENAME TO ${quoteIdent(schema)}`);
    } else {
      // The schema was empty: drop what the restore made in it.
      const { rows } = await client.query<{ name: string; kind: string }>(
        `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'S')`,
      );
      for (const r of rows.filter((r) => r.kind !== "S")) await client.query(`DROP TABLE IF EXISTS ${quoteIdent(r.name)} CASCADE`);
      for (const r of rows.filter((r) => r.kind === "S")) await client.query(`DROP SEQUENCE IF EXISTS ${quoteIdent(r.name)} CASCADE`);
    }
    await client.query(`COMMIT`);
  } catch {
    await client.query(`ROLLBACK`).catch(() => {});
  }
}

/**
 * Loads every row of the backup into the schema `sql` sees (built at the backup's migration), in
 * the caller's transaction, and sets each serial column's sequence past its largest id. The file is
 * checked again as it is read: a mismatch throws and the caller's transaction is rolled back.
 */
async function loadRows(sql: Sql, file: string, header: BackupHeader): Promise<void> {
  const tables = new Map((await catalog(sql)).map((t) => [t.name, t]));
  for (const t of header.tables) {
    const have = tables.get(t.name);
    const missing = t.columns.filter((c) => !have?.columns.includes(c));
    if (!have || missing.length) {
      throw new BackupFileError(
        `${file} does not fit the schema of its own migration ${header.migrations.at(-1)} (${have ? `${t.name} has no column ${missing.join(", ")}` : `no table ${t.name}`}): it was not written by this server`,
      );
    }
  }
  const insert = (t: BackupTable) => {
    const cols = t.columns.map(quoteIdent).join(", ");
    return `INSERT INTO ${quoteIdent(t.name)} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${quoteIdent(t.name)}, $1::json)`;
  };
  await readBackup(file, async (table, rows) => {
    await sql.query(insert(table), [`[${rows.join(",")}]`]);
  });
  const { rows: serials } = await sql.query<{ tbl: string; col: string; seq: string }>(
    `SELECT c.relname AS tbl, a.attname AS col, pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS seq
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL`,
  );
  for (const s of serials) {
    await sql.query(`SELECT setval($1, COALESCE(MAX(${quoteIdent(s.col)}), 0) + 1, false) FROM ${quoteIdent(s.tbl)}`, [s.seq]);
  }
}
