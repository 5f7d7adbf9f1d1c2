// Operator commands: API keys, game-account sessions, workspace registry entries, backups and restores.
//   npm run --silent admin -- <command> [options]      (npm run --silent admin -- --help)
//
// Works on the same database as the server (DATA_DIR or DATABASE_URL). The embedded database has one
// owner at a time: while a server holds it, the command runs inside that server (./endpoint.ts);
// otherwise it opens the database itself. It never creates a database: a DATA_DIR or DATABASE_URL
// that holds none is refused, so a typo cannot send an API key into a new empty database (restore is
// the exception: it makes the database, src/backup/restore.ts). Results go
// to `out` as JSON (one line per item); everything else to `err`. ./cli.ts is the process entry.
import { writeFile, rename } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { ConfigError, embeddedDatabaseDir, loadConfig, type Config } from "../config.js";
import { DatabaseInUseError, openDatabase, type Database } from "../db/client.js";
import { applyPendingMigrations } from "../db/migrate.js";
import { embeddedDatabaseExists, openPreparedEmbeddedDatabase } from "../db/prepareEmbedded.js";
import { DataDirError } from "../process/dataDir.js";
import { createLogger } from "../ops/logger.js";
import { usePasswordHashCost } from "../auth/passwords.js";
import { SessionRegistry } from "../auth/sessions.js";
import { openSharedState } from "../shared/sharedState.js";
import { execute, parse, prepare, USAGE, UsageError, type CommandResult, type Invocation, type PreparedCommand } from "./commands.js";
import { readAdminEndpoint, runInServer } from "./endpoint.js";
import { backupBeforeMigrating } from "../backup/preMigration.js";
import { BackupFileError, BackupTargetRefusal, checkBackupTarget, defaultBackupDir, restoreBackup, RestoreRefusal, useBackupKey, verifyBackup } from "../backup/index.js";

class Refusal extends Error {}

/** A command's surroundings: its environment, and where results and messages go. */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  /** One result line on stdout. */
  out(line: string): void;
  /** A message for the operator on stderr. */
  err(line: string): void;
}

function loadConfiguration(io: AdminIo): Config | number {
  try {
    const config = loadConfig(io.env);
    useBackupKey(config); // what backups are signed and checked with
    return config;
  } catch (e) {
    if (e instanceof ConfigError || e instanceof DataDirError) {
      io.err(e.message);
      return 2;
    }
    throw e;
  }
}

async function run(inv: Invocation, io: AdminIo): Promise<number> {
  // A file that is not a whole backup is refused before anything is touched, DATA_DIR included
  // (loading the configuration claims it); the restore checks it again as it loads it, with its
  // HMAC then (the key comes with the configuration).
  if (inv.command === "restore") {
    const refused = await refuseUnusable(resolve(inv.positionals[0]), io);
    if (refused !== undefined) return refused;
  }
  const config = loadConfiguration(io);
  if (typeof config === "number") return config;
  usePasswordHashCost(config.passwordHashCost);
  // A restore makes the database rather than opening it (src/backup/restore.ts).
  if (inv.command === "restore") return restore(inv, config, io);
  // Named here, where the operator typed it: a server that runs the command has another cwd. A
  // folder (the default one, or a path ending with a separator) keeps its separator: the writer
  // gives the file a new name there. Refused in one line (exit 2) before anything is opened.
  if (inv.command === "backup") {
    const out = inv.values.out;
    inv.values.out = out === undefined ? `${defaultBackupDir(config)}${sep}` : `${resolve(out)}${/[\\/]$/.test(out) ? sep : ""}`;
    try {
      checkBackupTarget(inv.values.out, { dataDir: config.dataDir, force: inv.values.force === "true" });
    } catch (e) {
      if (!(e instanceof BackupTargetRefusal)) throw e;
      io.err(`error: ${e.message}`);
      return 2;
    }
  }
  const prepared = await prepare(inv);
  if (!("command" in prepared)) return report(prepared, inv, io);

  if (!config.databaseUrl) {
    const dir = embeddedDatabaseDir(config);
    // PGlite would create a new database in a folder without one.
    if (!embeddedDatabaseExists(dir)) {
      throw new Refusal(
        `no database in ${dir}: DATA_DIR (${config.dataDir}) is not the server's data folder, or the server never ran there. ` +
          `Set DATA_DIR to the folder the server uses, or start the server once to create the database.`,
      );
    }
  }
  const beforeMigrating = (d: Database) => backupBeforeMigrating(d, defaultBackupDir(config));
  let db: Database;
  try {
    // The embedded database is migrated as the server does it (on a copy swapped in when complete),
    // an existing one backed up first (src/backup/preMigration.ts).
    db = config.databaseUrl ? await openDatabase({ databaseUrl: config.databaseUrl }) : (await openPreparedEmbeddedDatabase(embeddedDatabaseDir(config), { beforeMigrating })).db;
  } catch (e) {
    if (!(e instanceof DatabaseInUseError)) throw e;
    const endpoint = readAdminEndpoint(config.dataDir);
    if (endpoint?.pid !== e.pid) throw new Refusal(e.message);
    return report(await runInServer(endpoint, prepared), inv, io);
  }
  // Not waiting for Redis: the announcement of ended sessions is best effort (caches expire within seconds).
  const shared = await openSharedState(config.redisUrl, createLogger("silent"), { wait: false });
  try {
    await requireSchema(db, config);
    if (config.databaseUrl) await beforeMigrating(db);
    const applied = await applyPendingMigrations(db);
    if (applied.length) io.err(`applied migrations: ${applied.join(", ")}`);
    // With REDIS_URL, ended sessions are announced to the running servers at once.
    const sessions = new SessionRegistry(db.prisma, shared.sessionEvents);
    return report(await execute(prepared as PreparedCommand, { prisma: db.prisma, sessions, db, dataDir: config.dataDir }), inv, io);
  } finally {
    await shared.close();
    await db.close();
  }
}

async function refuseUnusable(file: string, io: AdminIo): Promise<number | undefined> {
  try {
    await verifyBackup(file, { unauthenticated: true });
    return undefined;
  } catch (e) {
    if (!(e instanceof BackupFileError)) throw e;
    io.err(`error: ${e.message}`);
    return 2;
  }
}

/** restore FILE [--replace]: one JSON line; a file or a target it will not use is one line, exit 2. */
async function restore(inv: Invocation, config: Config, io: AdminIo): Promise<number> {
  const file = resolve(inv.positionals[0]);
  try {
    const unauthenticated = inv.values.unauthenticated === "true";
    if (unauthenticated) io.err("warning: --unauthenticated: the file's HMAC is not checked; whoever could write this file chooses the accounts, passwords and API keys restored");
    const summary = await restoreBackup(file, { dataDir: config.dataDir, databaseUrl: config.databaseUrl }, { replace: inv.values.replace === "true", unauthenticated });
    if (!summary.authenticated) io.err("warning: restored a file that is NOT authenticated (no matching HMAC): check its accounts and API keys");
    io.err("every session from before the restore has ended: players and workspace users sign in again");
    if (summary.replaced) io.err(`the database it replaced is kept in ${summary.replaced}: remove it once the restore is checked`);
    io.out(resultLine(summary));
    return 0;
  } catch (e) {
    if (e instanceof BackupFileError || e instanceof RestoreRefusal) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

/** Commands work on a database the server created; an empty or missing one is refused. */
async function requireSchema(db: Database, config: Config): Promise<void> {
  let rows: { present: boolean }[];
  try {
    rows = await db.prisma.$queryRaw<{ present: boolean }[]>`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`;
  } catch (e) {
    if (/does not exist/.test((e as Error).message)) {
      throw new Refusal(`the database named by DATABASE_URL (${db.describe}) does not exist: create it and start the server once, or fix DATABASE_URL`);
    }
    throw e;
  }
  if (!rows[0]?.present) {
    const where = config.databaseUrl ? `the database named by DATABASE_URL (${db.describe})` : `the embedded database in ${embeddedDatabaseDir(config)}`;
    throw new Refusal(`${where} has no schema yet: start the server once (or run npm run db:migrate) before running commands on it`);
  }
}

/** A result as scripts parse it: JSON, or the text itself. */
const resultLine = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Prints a result, writes its artifact, and returns the exit status. */
async function report(result: CommandResult, inv: Invocation, io: AdminIo): Promise<number> {
  for (const line of result.stderr) io.err(line);
  for (const value of result.stdout) io.out(resultLine(value));
  if (result.artifact !== undefined && inv.values.out) {
    const file = resolve(inv.values.out);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(result.artifact, null, 2)}\n`);
    await rename(tmp, file);
    io.out(resultLine({ out: file, workspacecount: (result.artifact as { workspacecount?: number }).workspacecount }));
  }
  return result.code;
}

/** Runs one command line; resolves with the exit status (0 done, 1 failed or refused, 2 usage). */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  try {
    const inv = parse(argv);
    if (inv === "help") {
      io.out(USAGE.trimEnd());
      return 0;
    }
    return await run(inv, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\n\n${USAGE.trimEnd()}`);
      return 2;
    }
    if (e instanceof Refusal) {
      io.err(`error: ${e.message}`);
      return 1;
    }
    // The message alone (e.g. "Can't reach database server at …"); the stack with LOG_LEVEL=debug.
    const verbose = /^(debug|trace)$/i.test(io.env.LOG_LEVEL ?? "");
    const text = e instanceof Error ? (verbose ? (e.stack ?? e.message) : e.message) : String(e);
    io.err(`error: ${text.replace(/\n{2,}/g, "\n").trim()}`);
    return 1;
  }
}
