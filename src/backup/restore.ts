// Restoring a backup into DATA_DIR (embedded) or DATABASE_URL (PostgreSQL), whichever is set: also
// the move from one engine to the other. The file is checked whole before anything is touched. The
// schema is built by Prisma's schema engine at the backup's migration (the same migrations a start
// applies), the rows are loaded in one transaction (streamed: a batch read, a batch written, every
// row checked against the API's rules, ./rowRules.ts), the database migrated forward to this
// build's latest as a start would, and then the post-restore steps run (POST_RESTORE_STEPS): what
// the replaced database knew that the backup does not (erasures, revoked API keys, the ids it
// handed out) is applied again, a new authentication generation ends every session from before
// the restore, and what the restore brought back that the replaced database had ended is listed.
//
// Embedded: all of it happens in DATA_DIR/pglite.restoring under the folder's lock, swapped in only
// when complete; the database it replaces is renamed to pglite.replaced-<time>, never deleted.
// PostgreSQL: an empty database is filled; a non-empty one only with --replace, which renames its
// schema aside (replaced_<time>) first. One restore at a time per target: an advisory lock on
// PostgreSQL, the folder's lock on the embedded database. A failure puts back exactly what it set
// aside (the schema it created, recognised by its oid, is the only one it drops).
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { openDatabase, redactUrl, type Database } from "../db/client.js";
import { acquireDataDirLock, DatabaseInUseError } from "../db/lock.js";
import { applyMigrations, listMigrations, migrationsDir } from "../db/migrate.js";
import { embeddedDatabaseExists, markReady, settleInterrupted, syncTree } from "../db/prepareEmbedded.js";
import { seedFile, unpackSeed } from "../db/seed.js";
import { BackupFileError, checkMigrations, readBackupFile, type BackupHeader, type BackupTable } from "./format.js";
import { rowProblem } from "./rowRules.js";
import { catalog, quoteIdent, type Sql } from "./snapshot.js";
import { reapplyErasures as eraseAgain } from "../accounts/erasure.js";

/** Where to restore: DATABASE_URL when set, otherwise the embedded database in DATA_DIR (as the server decides). */
export interface RestoreTarget {
  dataDir: string;
  databaseUrl?: string;
}

export interface RestoreOptions {
  /** PostgreSQL: restore into a database that holds tables, setting its schema aside. */
  replace?: boolean;
  /**
   * Restore a file whose HMAC cannot be checked (its key is lost, or it predates signed backups):
   * the operator's explicit choice (`--unauthenticated`), said in the result line.
   */
  unauthenticated?: boolean;
}

/** What the restore did to the authentication state and what it brought back (the result line's `auth`). */
export interface RestoreAuthReport {
  /** Every session (game and workspace) from before the restore has ended: a new authentication generation. */
  sessions_ended: "all";
  /** Accounts erased in the replaced database after the backup, erased again (their ids). */
  erasures_reapplied: number[];
  /** API keys revoked in the replaced database after the backup, revoked again (their key ids). */
  api_key_revocations_reapplied: string[];
  /** Id sequences set past both the ids loaded and the ones the replaced database had handed out. */
  sequences_kept_past_replaced: boolean;
  /** What the backup brings back that the replaced database had ended or removed: the operator decides. */
  brought_back: {
    /** Accounts the replaced database no longer had (deleted after the backup): they sign in again. */
    accounts_deleted_since: IdList<number>;
    /** Accounts whose password changed after the backup: the older password signs in again. */
    passwords_changed_since: IdList<number>;
    /** Workspace users the replaced database no longer had. */
    workspace_users_deleted_since: IdList<string>;
    /** Workspace users locked or disabled after the backup: active again. */
    workspace_users_locked_since: IdList<string>;
  };
  /** False when there was no replaced database to compare with (an empty target, or one that could not be read). */
  compared_with_replaced: boolean;
}

/** A list in a result line: how many, and the first ones. */
export interface IdList<T> {
  count: number;
  first: T[];
}
const LISTED = 50;
const idList = <T>(ids: T[]): IdList<T> => ({ count: ids.length, first: ids.slice(0, LISTED) });

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
  /** Whether the file's HMAC matched the backup key (false only with --unauthenticated). */
  authenticated: boolean;
  auth: RestoreAuthReport;
  ms: number;
}

/** The restore cannot go ahead as asked (the target is in use or not empty): one line, exit 2. */
export class RestoreRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RestoreRefusal";
  }
}

/** Reads the whole file and checks it (HMAC, checksum, format, migrations this build has); throws BackupFileError. */
export async function verifyBackup(file: string, opts: Pick<RestoreOptions, "unauthenticated"> = {}): Promise<BackupHeader & { authenticated: boolean }> {
  const { header, authenticated } = await readBackupFile(file, undefined, { unauthenticated: opts.unauthenticated });
  checkMigrations(header, await migrationNames(), file);
  return { ...header, authenticated };
}

async function migrationNames(): Promise<string[]> {
  return (await listMigrations()).migrationDirectories.map((m) => m.path);
}

export async function restoreBackup(file: string, target: RestoreTarget, opts: RestoreOptions = {}): Promise<RestoreSummary> {
  const started = performance.now();
  const header = await verifyBackup(file, opts);
  const done = target.databaseUrl ? await restoreIntoPostgres(file, header, target.databaseUrl, opts) : await restoreIntoEmbedded(file, header, target.dataDir, opts);
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
    authenticated: header.authenticated,
    auth: done.auth,
    ms: Math.round(performance.now() - started),
  };
}

interface Done {
  into: string;
  applied: string[];
  replaced?: string;
  auth: RestoreAuthReport;
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

async function restoreIntoEmbedded(file: string, header: BackupHeader, dataDir: string, opts: RestoreOptions): Promise<Done> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dataDir, { recursive: true });
  let release: () => void;
  try {
    // The folder's lock: no server, and no other restore, while this one runs.
    release = acquireDataDirLock(dir);
  } catch (err) {
    if (err instanceof DatabaseInUseError) {
      throw new RestoreRefusal(`the embedded database in ${dir} is in use by a running server (pid ${err.pid}): stop it before restoring into DATA_DIR (${dataDir}); if that is another restore, wait for it to end`);
    }
    throw err;
  }
  const work = `${dir}.restoring`;
  try {
    // What an upgrade, a first start or an earlier restore left when killed, settled as a start does.
    settleInterrupted(dir);
    let applied: string[];
    let auth: RestoreAuthReport;
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
        await pglite.transaction((tx) => loadRows(tx, file, header, opts));
        applied = older.dir ? await applyMigrations(db.adapterFactory) : [];
      } finally {
        await db.close();
      }
      // What the database being replaced knows that the backup may not: read only once the file has
      // loaded (a refused file leaves that folder untouched), one PGlite open at a time.
      const replacedFacts = existsSync(dir) ? await readEmbeddedFacts(dir) : undefined;
      const restored = await openDatabase({ pgliteDataDir: work, lockHeld: true });
      try {
        auth = await restored.pglite!.transaction((tx) => runPostRestoreSteps(tx, replacedFacts));
      } finally {
        await restored.close();
      }
      markReady(work);
      syncTree(work);
    } catch (err) {
      rmSync(work, { recursive: true, force: true });
      throw err;
    }
    let replaced: string | undefined;
    if (existsSync(dir)) {
      replaced = freeName((n) => `${dir}.replaced-${compactTimestamp()}${n}`, existsSync);
      renameSync(dir, replaced);
    }
    renameSync(work, dir);
    syncTree(dirname(dir)); // the renames themselves
    return { into: dir, applied, auth, ...(replaced ? { replaced } : {}) };
  } finally {
    release();
  }
}

/** The first name `make` gives ("" then "-2", "-3"…) that `taken` says is free: two restores in one second keep both. */
function freeName(make: (suffix: string) => string, taken: (name: string) => boolean): string {
  for (let n = 1; ; n++) {
    const name = make(n === 1 ? "" : `-${n}`);
    if (!taken(name)) return name;
  }
}

/** The replaced embedded database's facts; undefined when it cannot be opened (a damaged folder is what a restore is for). */
async function readEmbeddedFacts(dir: string): Promise<ReplacedFacts | undefined> {
  let db: Database | undefined;
  try {
    db = await openDatabase({ pgliteDataDir: dir, lockHeld: true });
    return await readReplacedFacts(db.pglite!);
  } catch {
    return undefined;
  } finally {
    await db?.close().catch(() => {});
  }
}

/** Two keys of pg_advisory_lock: this class, and the target schema's hash. */
const RESTORE_LOCK_CLASS = 22357;

async function restoreIntoPostgres(file: string, header: BackupHeader, url: string, opts: RestoreOptions): Promise<Done> {
  const { default: pg } = await import("pg");
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const client = new pg.Client({ connectionString: url, application_name: "snakes-restore" });
  const where = `the database named by DATABASE_URL (${redactUrl(url)})`;
  await client.connect();
  const sql = client as unknown as Sql;
  let replaced: string | undefined;
  let schema = "";
  /** The schema this restore created in place of the replaced one: the only one a put-back may drop. */
  let createdOid: number | undefined;
  let replacedFacts: ReplacedFacts | undefined;
  try {
    schema = (await sql.query<{ schema: string | null }>(`SELECT current_schema() AS schema`)).rows[0].schema ?? "";
    if (!schema) throw new RestoreRefusal(`${where} has no schema to restore into (its search_path names none that exists): create one, or fix DATABASE_URL`);
    // One restore at a time into this schema: held by this connection until it ends (released by PostgreSQL if it dies).
    const { rows: lock } = await sql.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1::int, hashtext(current_database() || '.' || $2)) AS locked`, [RESTORE_LOCK_CLASS, schema]);
    if (!lock[0].locked) throw new RestoreRefusal(`another restore into ${where} (schema "${schema}") is running: wait for it to end, then try again`);
    const { rows } = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
    );
    if (rows[0].n > 0) {
      if (!opts.replace) {
        throw new RestoreRefusal(`${where} is not empty (schema "${schema}" holds ${rows[0].n} tables or sequences): restore into an empty database, or add --replace to set its content aside`);
      }
      replacedFacts = await readReplacedFacts(sql).catch(() => undefined);
      const taken = new Set((await sql.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replaced\_%'`)).rows.map((r) => r.name));
      replaced = freeName((n) => `replaced_${compactTimestamp().toLowerCase()}${n.replace("-", "_")}`, (name) => taken.has(name));
      await client.query(`BEGIN`);
      await client.query(`ALTER SCHEMA ${quoteIdent(schema)} RENAME TO ${quoteIdent(replaced)}`);
      await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      createdOid = (await sql.query<{ oid: number }>(`SELECT oid::int AS oid FROM pg_namespace WHERE nspname = $1`, [schema])).rows[0].oid;
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
    await inTransaction(client, () => loadRows(sql, file, header, opts));
    const applied = older.dir ? await applyMigrations(factory) : [];
    const auth = await inTransaction(client, () => runPostRestoreSteps(sql, replacedFacts));
    return { into: redactUrl(url), applied, auth, ...(replaced ? { replaced: `schema ${replaced}` } : {}) };
  } catch (err) {
    try {
      await putBack(client, schema, replaced, createdOid);
    } catch (putBackErr) {
      // Loud: the operator must know where the previous content is.
      throw new Error(
        `the restore failed (${(err as Error).message}) and putting back what it set aside failed too (${(putBackErr as Error).message})${replaced ? `: the previous content is intact in schema ${replaced}` : ""}`,
      );
    }
    throw err;
  } finally {
    await client.end();
  }
}

async function inTransaction<T>(client: import("pg").Client, work: () => Promise<T>): Promise<T> {
  await client.query(`BEGIN`);
  try {
    const result = await work();
    await client.query(`COMMIT`);
    return result;
  } catch (err) {
    await client.query(`ROLLBACK`).catch(() => {});
    throw err;
  }
}

/**
 * Undoes a failed restore into PostgreSQL: what it created goes, what was there comes back. Only
 * the schema this restore created (its oid) is dropped; one another hand put there is left and
 * the set-aside schema stays where it is, named in the error.
 */
async function putBack(client: import("pg").Client, schema: string, replaced: string | undefined, createdOid: number | undefined): Promise<void> {
  await client.query(`BEGIN`);
  try {
    if (replaced) {
      const { rows } = await client.query<{ oid: number }>(`SELECT oid::int AS oid FROM pg_namespace WHERE nspname = $1`, [schema]);
      if (rows.length && rows[0].oid !== createdOid) throw new Error(`schema "${schema}" is not the one this restore created: it was left alone`);
      if (rows.length) await client.query(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
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
  } catch (err) {
    await client.query(`ROLLBACK`).catch(() => {});
    throw err;
  }
}

/**
 * Loads every row of the backup into the schema `sql` sees (built at the backup's migration), in
 * the caller's transaction, a batch at a time as the file is read. The file is checked again as it
 * is read (its HMAC, and every row against the API's rules): a mismatch throws and the caller's
 * transaction is rolled back.
 */
async function loadRows(sql: Sql, file: string, header: BackupHeader, opts: RestoreOptions): Promise<void> {
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
  const seen = new Map<string, number>();
  await readBackupFile(
    file,
    async (table, rows) => {
      const before = seen.get(table.name) ?? 0;
      rows.forEach((row, i) => {
        const problem = rowProblem(table.name, row, before + i);
        if (problem) throw new BackupFileError(`${file} holds a row this server would never write (${problem}): it was edited or not written by this server`);
      });
      seen.set(table.name, before + rows.length);
      await sql.query(insert(table), [`[${rows.join(",")}]`]);
    },
    { unauthenticated: opts.unauthenticated },
  );
}

// ---------------------------------------------------------------------------------------------
// After the load: what the replaced database knew, and the end of every earlier session
// ---------------------------------------------------------------------------------------------

/** What the database being replaced knows that the backup may not, read before it is set aside. */
export interface ReplacedFacts {
  /** Per serial column ("table.column"): the next value its sequence would have handed out. */
  nextIds: Map<string, number>;
  erasures: Array<{ userId: number; userCreatedAt: string; erasedAt: string }>;
  revokedKeys: Array<{ key: string; revokedAt: string }>;
  /** Account id → md5 of its password hash (compared, never kept). */
  passwords: Map<number, string>;
  workspaceUsers: Set<string>;
  lockedWorkspaceUsers: Set<string>;
}

const SERIALS = `SELECT c.relname AS tbl, a.attname AS col, pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS seq
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL`;

async function tableExists(sql: Sql, table: string): Promise<boolean> {
  return (await sql.query<{ present: boolean }>(`SELECT to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1)) IS NOT NULL AS present`, [table])).rows[0].present;
}

/** Reads the facts from the database `sql` sees (its current schema), whatever its migration. */
export async function readReplacedFacts(sql: Sql): Promise<ReplacedFacts> {
  const facts: ReplacedFacts = { nextIds: new Map(), erasures: [], revokedKeys: [], passwords: new Map(), workspaceUsers: new Set(), lockedWorkspaceUsers: new Set() };
  for (const s of (await sql.query<{ tbl: string; col: string; seq: string }>(SERIALS)).rows) {
    const { rows } = await sql.query<{ next: string }>(`SELECT (CASE WHEN is_called THEN last_value + 1 ELSE last_value END)::text AS next FROM ${s.seq}`);
    facts.nextIds.set(`${s.tbl}.${s.col}`, Number(rows[0].next));
  }
  if (await tableExists(sql, "erasures")) {
    const { rows } = await sql.query<{ user_id: number; user_created_at: string; erased_at: string }>(
      `SELECT user_id, to_json(user_created_at)#>>'{}' AS user_created_at, to_json(erased_at)#>>'{}' AS erased_at FROM erasures`,
    );
    facts.erasures = rows.map((r) => ({ userId: r.user_id, userCreatedAt: r.user_created_at, erasedAt: r.erased_at }));
  }
  if (await tableExists(sql, "api_keys")) {
    const { rows } = await sql.query<{ key: string; revoked_at: string }>(`SELECT key, to_json(revoked_at)#>>'{}' AS revoked_at FROM api_keys WHERE revoked_at IS NOT NULL`);
    facts.revokedKeys = rows.map((r) => ({ key: r.key, revokedAt: r.revoked_at }));
  }
  if (await tableExists(sql, "users")) {
    const { rows } = await sql.query<{ id: number; h: string }>(`SELECT id, md5(password_hash) AS h FROM users`);
    for (const r of rows) facts.passwords.set(r.id, r.h);
  }
  if (await tableExists(sql, "workspace_users")) {
    const { rows } = await sql.query<{ id: string; ended: boolean }>(`SELECT id, (locked OR disabled) AS ended FROM workspace_users`);
    for (const r of rows) {
      facts.workspaceUsers.add(r.id);
      if (r.ended) facts.lockedWorkspaceUsers.add(r.id);
    }
  }
  return facts;
}

/** What a post-restore step gets: the restored database (latest migration, in a transaction) and the replaced one's facts. */
interface PostRestoreContext {
  sql: Sql;
  replaced: ReplacedFacts | undefined;
  report: RestoreAuthReport;
}

/**
 * Run in order after the rows are loaded and the database migrated to the latest migration, in
 * one transaction: the single place a step that must follow every restore is added.
 */
const POST_RESTORE_STEPS: Array<(ctx: PostRestoreContext) => Promise<void>> = [
  reportBroughtBack, // first: it compares what was loaded, before the steps below change it
  reapplyErasures,
  reapplyKeyRevocations,
  keepIdsPastReplaced,
  newAuthGeneration,
];

async function runPostRestoreSteps(sql: Sql, replaced: ReplacedFacts | undefined): Promise<RestoreAuthReport> {
  const report: RestoreAuthReport = {
    sessions_ended: "all",
    erasures_reapplied: [],
    api_key_revocations_reapplied: [],
    sequences_kept_past_replaced: replaced !== undefined,
    brought_back: { accounts_deleted_since: idList([]), passwords_changed_since: idList([]), workspace_users_deleted_since: idList([]), workspace_users_locked_since: idList([]) },
    compared_with_replaced: replaced !== undefined,
  };
  for (const step of POST_RESTORE_STEPS) await step({ sql, replaced, report });
  return report;
}

/** Lists what the backup brings back that the replaced database had ended: accounts, passwords, workspace users. */
async function reportBroughtBack({ sql, replaced, report }: PostRestoreContext): Promise<void> {
  if (!replaced) return;
  const erased = new Set(replaced.erasures.map((e) => e.userId));
  const deleted: number[] = [];
  const changed: number[] = [];
  for (const r of (await sql.query<{ id: number; h: string }>(`SELECT id, md5(password_hash) AS h FROM users ORDER BY id`)).rows) {
    const now = replaced.passwords.get(r.id);
    if (now === undefined) {
      if (!erased.has(r.id)) deleted.push(r.id); // an erased one is erased again below
    } else if (now !== r.h) changed.push(r.id);
  }
  const wsDeleted: string[] = [];
  const wsLocked: string[] = [];
  if (await tableExists(sql, "workspace_users")) {
    for (const r of (await sql.query<{ id: string; ended: boolean }>(`SELECT id, (locked OR disabled) AS ended FROM workspace_users ORDER BY id`)).rows) {
      if (!replaced.workspaceUsers.has(r.id)) wsDeleted.push(r.id);
      else if (replaced.lockedWorkspaceUsers.has(r.id) && !r.ended) wsLocked.push(r.id);
    }
  }
  report.brought_back = {
    accounts_deleted_since: idList(deleted),
    passwords_changed_since: idList(changed),
    workspace_users_deleted_since: idList(wsDeleted),
    workspace_users_locked_since: idList(wsLocked),
  };
}

/**
 * Issue 42's erasures: every erasures row of the replaced database is kept (inserted when the
 * backup lacks it), and each account a row names, by id and creation time, is erased again as
 * `admin erase-account` erases it (src/accounts/erasure.ts: its rows, its name in the audit log and
 * in other players' PvP results). A later account that was given the same id (a different creation
 * time) stays. Before keepIdsPastReplaced, which has the last word on the id sequences.
 */
async function reapplyErasures({ sql, replaced, report }: PostRestoreContext): Promise<void> {
  if (!(await tableExists(sql, "erasures"))) return;
  const carried = (replaced?.erasures ?? []).map((e) => ({ user_id: e.userId, user_created_at: e.userCreatedAt, erased_at: e.erasedAt }));
  report.erasures_reapplied = await eraseAgain(sql, carried);
}

/** An API key revoked in the replaced database stays revoked, whatever the backup says. */
async function reapplyKeyRevocations({ sql, replaced, report }: PostRestoreContext): Promise<void> {
  if (!replaced?.revokedKeys.length || !(await tableExists(sql, "api_keys"))) return;
  for (const k of replaced.revokedKeys) {
    const { rows } = await sql.query<{ key: string }>(`UPDATE api_keys SET revoked_at = $2::timestamp WHERE key = $1 AND revoked_at IS NULL RETURNING key`, [k.key, k.revokedAt]);
    report.api_key_revocations_reapplied.push(...rows.map((r) => r.key));
  }
}

/**
 * Sets each serial column's sequence past the largest id loaded and past every id the replaced
 * database had handed out: no id is ever handed out twice (an account made after the backup keeps
 * its id to itself, even though it is gone).
 */
async function keepIdsPastReplaced({ sql, replaced }: PostRestoreContext): Promise<void> {
  for (const s of (await sql.query<{ tbl: string; col: string; seq: string }>(SERIALS)).rows) {
    const floor = replaced?.nextIds.get(`${s.tbl}.${s.col}`) ?? 1;
    await sql.query(`SELECT setval($1, GREATEST(COALESCE(MAX(${quoteIdent(s.col)}), 0) + 1, $2::bigint), false) FROM ${quoteIdent(s.tbl)}`, [s.seq, floor]);
  }
}

/**
 * A fresh authentication generation (auth_generation's only writer): every session token from
 * before the restore carries another one, so each of them (game and workspace) is ended, whatever
 * JWT_SECRET, and none can name an account made after the restore (src/auth/sessions.ts).
 */
async function newAuthGeneration({ sql }: PostRestoreContext): Promise<void> {
  const generation = randomBytes(16).toString("base64url");
  await sql.query(
    `INSERT INTO auth_generation (id, generation, restored_at) VALUES (1, $1, now()) ON CONFLICT (id) DO UPDATE SET generation = EXCLUDED.generation, restored_at = EXCLUDED.restored_at`,
    [generation],
  );
}
