// Creating the embedded database (initdb) and applying migrations to it load two large Wasm
// programs, PGlite's initdb and Prisma's schema engine, whose memory a process never gets back.
// The server therefore has them done by a short-lived child process (this file run as a script)
// when there is anything to do, and opens the database afterwards: a first start idles as lean as
// a restart. Run as a script: `node [same flags] prepareEmbedded.js <folder>`. A first start does
// not run initdb when `npm install` built the seed (src/db/seed.ts): initdb ran a second PostgreSQL
// and the initdb program beside the first, 600-735 MB; from the seed the child peaks at ~190 MB.
//
// Neither may leave a folder that does not start, whenever the process is killed: the child only
// ever works on a copy. A first start creates the database in `pglite.new` and renames it to
// `pglite` once it is complete and on disk; an upgrade copies `pglite` to `pglite.upgrade`, migrates
// the copy, and swaps it in (pglite → pglite.old, pglite.upgrade → pglite). Whatever an interrupted
// run left is settled by the next start before anything else: an unfinished copy is deleted, a swap
// cut in the middle is rolled back (the upgrade then runs again). The folder's lock is held
// throughout.
import { closeSync, cpSync, existsSync, mkdirSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, type Database } from "./client.js";
import { acquireDataDirLock, DatabaseInUseError } from "./lock.js";
import { applyPendingMigrations, hasPendingMigrations, migrationsDir } from "./migrate.js";
import { DataDirError, dataDirProblem, fileSystemFull } from "../process/dataDir.js";
import { ChildFailure, peakRssMb, runChild } from "../process/child.js";
import { seedFile, unpackSeed } from "./seed.js";

const self = fileURLToPath(import.meta.url);

/** What the operator runs to put a backup in place (src/backup/restore.ts); named by every message that asks for one. */
export const RESTORE_COMMAND = "npm run --silent admin -- restore FILE";

/** Written into a database folder once it is complete (created and migrated), before it is put in place. */
export const READY_MARK = "snakes-ready";

/** The working copies beside the folder (`backup`: the copy a backup reads, src/backup/embedded.ts). */
export const copies = (dir: string) => ({ fresh: `${dir}.new`, upgrade: `${dir}.upgrade`, old: `${dir}.old`, restoring: `${dir}.restoring`, backup: `${dir}.backup` });

/**
 * Whether the folder holds a complete database: ours are marked. A folder of an older version is
 * unmarked: its PG_VERSION is written first thing by initdb, so it counts only with pg_control too
 * (an interrupted first start of those versions is then created afresh; it never held data).
 */
export const embeddedDatabaseExists = (dir: string) =>
  existsSync(join(dir, READY_MARK)) || (existsSync(join(dir, "PG_VERSION")) && existsSync(join(dir, "global", "pg_control")));

/** Creates or migrates the database in `dir` (a working copy) in a child process; resolves with the migrations it applied. */
async function prepareInChild(dir: string): Promise<string[]> {
  // Killed with this process, the child abandons its copy unfinished.
  try {
    return (await runChild<ChildReport>(self, [dir])).applied ?? [];
  } catch (err) {
    throw err instanceof ChildFailure ? new PrepareError(err.status, err.output) : err;
  }
}

/** The preparing child's last line on stdout. */
export interface ChildReport {
  applied: string[];
  /** Its peak resident memory (VmHWM), MB, where /proc shows it: the most a start needs (docs/operations.md#memory). */
  peakRssMb?: number;
}

class PrepareError extends Error {
  constructor(readonly status: string, readonly output: string) {
    super(`preparing the embedded database failed (exit ${status}): ${output}`);
  }
}

/** Flushes every file and folder of `dir` to disk, so that a rename never publishes data still in memory. */
export function syncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) syncTree(path);
    else if (entry.isFile()) syncPath(path);
  }
  syncPath(dir);
}

function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Settles what a start or an upgrade that was killed left beside `dir`. */
export function settleInterrupted(dir: string): void {
  const { fresh, upgrade, old, restoring, backup } = copies(dir);
  // Killed between the two renames of a swap: the previous database goes back (the upgrade reruns).
  if (!existsSync(dir) && existsSync(old)) renameSync(old, dir);
  // A restore (src/backup/restore.ts) killed between its two renames: its copy is complete (marked), so it goes in.
  if (!existsSync(dir) && existsSync(join(restoring, READY_MARK))) renameSync(restoring, dir);
  for (const leftover of [old, fresh, upgrade, restoring, backup]) rmSync(leftover, { recursive: true, force: true });
}

/** Puts the complete working copy `from` in place as `dir`, the database there (if any) out of the way. */
function putInPlace(from: string, dir: string): void {
  syncTree(from);
  const { old } = copies(dir);
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(from, dir);
  syncPath(dirname(dir));
  rmSync(old, { recursive: true, force: true });
}

export interface PrepareOptions {
  /** Called with the open database before migrations change an existing one (src/backup/preMigration.ts); a throw stops the migration. */
  beforeMigrating?(db: Database): Promise<unknown>;
}

/**
 * Opens the embedded database in `dir`, created and migrated first (in a child process, on a copy,
 * when either is needed). Returns the database and the names of the migrations just applied.
 * Throws DatabaseInUseError when another process holds the folder, DataDirError when it cannot be
 * used (damaged, not a database of ours, a migration that cannot be settled).
 */
export async function openPreparedEmbeddedDatabase(dir: string, options: PrepareOptions = {}): Promise<{ db: Database; applied: string[] }> {
  const { fresh, upgrade } = copies(dir);
  mkdirSync(dirname(dir), { recursive: true });
  const release = acquireDataDirLock(dir);
  try {
    settleInterrupted(dir);
    let applied: string[] = [];
    if (!embeddedDatabaseExists(dir)) {
      // Nothing there, or an older version's first start that was interrupted: it never held data.
      rmSync(dir, { recursive: true, force: true });
      applied = await prepare(dir, fresh);
      putInPlace(fresh, dir);
    }
    let db = await openInPlace(dir);
    if (await hasPendingMigrations(db.prisma)) {
      if (applied.length === 0) await options.beforeMigrating?.(db); // an existing database is about to change
      await db.close();
      cpSync(dir, upgrade, { recursive: true });
      applied = [...applied, ...(await prepare(dir, upgrade))];
      putInPlace(upgrade, dir);
      db = await openInPlace(dir);
    } else if (!existsSync(join(dir, READY_MARK))) {
      markReady(dir); // an older version's complete database
    }
    const close = db.close.bind(db);
    db.close = () => close().finally(release);
    return { db, applied };
  } catch (err) {
    release();
    throw err;
  }
}

async function prepare(dir: string, copy: string): Promise<string[]> {
  try {
    return await prepareInChild(copy);
  } catch (err) {
    // The child reports what the operator must do about the folder on a line of its own.
    const problem = err instanceof PrepareError ? /^problem: (.*)$/m.exec(err.output)?.[1] : undefined;
    if (problem) throw new DataDirError(problem, dirname(dir));
    throw err;
  }
}

/**
 * PostgreSQL's own lock file, left by a process that was killed. PGlite runs in one process whose
 * folder lock (DATA_DIR/pglite.lock) is ours, so it means nothing; but one killed between its
 * creation and its first write is empty, and PGlite then fails to start ("PGlite failed to
 * initialize properly"): the folder looked damaged (issue 30's upgrade brick, a kill while the
 * parent reopened the upgraded folder; any start's open had the same instant). Removed before every
 * open, under our lock.
 */
function removeStalePidFile(dir: string): void {
  rmSync(join(dir, "postmaster.pid"), { force: true });
}


async function openInPlace(dir: string): Promise<Database> {
  removeStalePidFile(dir);
  try {
    return await openDatabase({ pgliteDataDir: dir, lockHeld: true });
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw err;
    throw damaged(dir, err);
  }
}

function damaged(dir: string, err: unknown): DataDirError {
  const folder = dir.replace(/\.(new|upgrade)$/, "");
  const full = dataDirProblem(err, "opening the embedded database") ?? (fileSystemFull(dirname(folder)) ? dataDirProblem({ code: "ENOSPC" }, "opening the embedded database") : undefined);
  if (full) return new DataDirError(full, dirname(folder));
  return new DataDirError(
    `the embedded database in ${folder} cannot be opened (${(err as Error).message ?? err}): it is damaged or not a database of this server; ` +
      `restore that folder from a backup (${RESTORE_COMMAND}), or move it away to start with an empty database`,
    dirname(folder),
  );
}

export function markReady(dir: string): void {
  const mark = join(dir, READY_MARK);
  writeFileSync(mark, "created and migrated by snakes-game-backend; this folder is put in place only when complete\n");
  syncPath(mark);
}

/**
 * A migration left started but unfinished by an older version killed inside it (Prisma's P3009,
 * which blocks every later migration). Each migration's script runs as one statement batch, which
 * PostgreSQL applies whole or not at all; so the script is tried again in a transaction that is
 * rolled back: when its objects exist already it had been applied (the record is completed), when
 * it runs it had not (the record is marked rolled back, and the migration is applied again).
 */
export async function settleFailedMigrations(db: Database): Promise<string[]> {
  const pglite = db.pglite!;
  const present = await pglite.query<{ present: boolean }>(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`);
  if (!present.rows[0].present) return [];
  const failed = await pglite.query<{ id: string; migration_name: string }>(
    `SELECT id, migration_name FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL ORDER BY started_at`,
  );
  const settled: string[] = [];
  for (const { id, migration_name: name } of failed.rows) {
    const script = await readFile(join(migrationsDir, name, "migration.sql"), "utf8").catch(() => {
      throw new DataDirError(`the database records an unfinished migration ${name} that this version does not have: run the version that made it, or restore a backup (${RESTORE_COMMAND})`);
    });
    if (await wasApplied(db, script, name)) {
      await pglite.query(`UPDATE _prisma_migrations SET finished_at = now(), applied_steps_count = 1, logs = NULL WHERE id = $1`, [id]);
    } else {
      await pglite.query(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1`, [id]);
    }
    settled.push(name);
  }
  return settled;
}

const ALREADY_THERE = new Set(["42P07", "42701", "42710", "42P06", "42723", "42P16"]);
class Rollback extends Error {}

async function wasApplied(db: Database, script: string, name: string): Promise<boolean> {
  try {
    await db.pglite!.transaction(async (tx) => {
      await tx.exec(script);
      throw new Rollback();
    });
  } catch (err) {
    if (err instanceof Rollback) return false;
    const code = (err as { code?: string }).code;
    if (code && ALREADY_THERE.has(code)) return true;
    throw new DataDirError(`migration ${name} was left unfinished and cannot be settled (${(err as Error).message}): restore the database from a backup (${RESTORE_COMMAND})`);
  }
  return false;
}

// As a script, on a working copy (the parent holds the folder's lock): create it if needed, settle
// what an older version left unfinished, migrate, mark it complete; print the applied migrations as
// JSON. Exits explicitly: the database is closed, but a library timer would keep the process around ~10 s.
if (process.argv[1] === self) {
  process.on("disconnect", () => process.exit(1));
  const dir = process.argv[2];
  let db: Database;
  try {
    removeStalePidFile(dir);
    // A first start: the seed made at install time instead of initdb (a fraction of its memory).
    const seed = existsSync(join(dir, "PG_VERSION")) ? undefined : seedFile();
    if (seed) unpackSeed(seed, dir);
    db = await openDatabase({ pgliteDataDir: dir, lockHeld: true });
  } catch (err) {
    console.error(`problem: ${damaged(dir, err).problem}`);
    process.exit(1);
  }
  try {
    await settleFailedMigrations(db);
    const report: ChildReport = { applied: await applyPendingMigrations(db), peakRssMb: peakRssMb() };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } catch (err) {
    console.error(err instanceof DataDirError ? `problem: ${err.problem}` : err);
    process.exit(1);
  } finally {
    await db.close();
  }
  markReady(dir);
  process.exit(0);
}
