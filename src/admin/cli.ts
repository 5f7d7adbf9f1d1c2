// Operator commands: API keys, game-account sessions, workspace registry entries.
//   npm run --silent admin -- <command> [options]      (npm run --silent admin -- --help)
//
// Works on the same database as the server (DATA_DIR or DATABASE_URL). The embedded database has one
// owner at a time: while a server holds it, the command runs inside that server (./endpoint.ts);
// otherwise it opens the database itself. It never creates a database: a DATA_DIR or DATABASE_URL
// that holds none is refused, so a typo cannot send an API key into a new empty database. Results go
// to stdout as JSON (one line per item); everything else to stderr.
import { err, out } from "./stdout.js";
import { existsSync } from "node:fs";
import { writeFile, rename } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigError, embeddedDatabaseDir, loadConfig, loadDotEnv, type Config } from "../config.js";
import { DatabaseInUseError, openDatabase, type Database } from "../db/client.js";
import { applyPendingMigrations } from "../db/migrate.js";
import { createLogger } from "../logger.js";
import { SessionRegistry } from "../auth/sessions.js";
import { openSharedState } from "../shared/sharedState.js";
import { execute, parse, prepare, USAGE, UsageError, type CommandResult, type Invocation, type PreparedCommand } from "./commands.js";
import { readAdminEndpoint, runInServer } from "./endpoint.js";

class Refusal extends Error {}

function loadConfiguration(): Config | number {
  try {
    loadDotEnv();
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
}

async function run(inv: Invocation): Promise<number> {
  const config = loadConfiguration();
  if (typeof config === "number") return config;
  const prepared = await prepare(inv);
  if (!("command" in prepared)) return report(prepared, inv);

  if (!config.databaseUrl) {
    const dir = embeddedDatabaseDir(config);
    // PGlite would create a new database in a folder without one.
    if (!existsSync(join(dir, "PG_VERSION"))) {
      throw new Refusal(
        `no database in ${dir}: DATA_DIR (${config.dataDir}) is not the server's data folder, or the server never ran there. ` +
          `Set DATA_DIR to the folder the server uses, or start the server once to create the database.`,
      );
    }
  }
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDataDir: embeddedDatabaseDir(config) });
  } catch (e) {
    if (!(e instanceof DatabaseInUseError)) throw e;
    const endpoint = readAdminEndpoint(config.dataDir);
    if (endpoint?.pid !== e.pid) throw new Refusal(e.message);
    return report(await runInServer(endpoint, prepared), inv);
  }
  const shared = await openSharedState(config.redisUrl, createLogger("silent"));
  try {
    await requireSchema(db, config);
    const applied = await applyPendingMigrations(db);
    if (applied.length) err(`applied migrations: ${applied.join(", ")}`);
    // With REDIS_URL, ended sessions are announced to the running servers at once.
    const sessions = new SessionRegistry(db.prisma, shared.sessionEvents);
    return report(await execute(prepared as PreparedCommand, { prisma: db.prisma, sessions }), inv);
  } finally {
    await shared.close();
    await db.close();
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

/** Prints a result, writes its artifact, and returns the exit status. */
async function report(result: CommandResult, inv: Invocation): Promise<number> {
  for (const line of result.stderr) err(line);
  for (const value of result.stdout) out(value);
  if (result.artifact !== undefined && inv.values.out) {
    const file = resolve(inv.values.out);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(result.artifact, null, 2)}\n`);
    await rename(tmp, file);
    out({ out: file, workspacecount: (result.artifact as { workspacecount?: number }).workspacecount });
  }
  return result.code;
}

async function main(argv: string[]): Promise<number> {
  try {
    const inv = parse(argv);
    if (inv === "help") {
      out(USAGE.trimEnd());
      return 0;
    }
    return await run(inv);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE.trimEnd()}`);
      return 2;
    }
    if (e instanceof Refusal) {
      err(`error: ${e.message}`);
      return 1;
    }
    // The message alone (e.g. "Can't reach database server at …"); the stack with LOG_LEVEL=debug.
    const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? "");
    const text = e instanceof Error ? (verbose ? (e.stack ?? e.message) : e.message) : String(e);
    err(`error: ${text.replace(/\n{2,}/g, "\n").trim()}`);
    return 1;
  }
}

// Exit explicitly: stdout and stderr are synchronous for files and pipes, so nothing is lost.
process.exit(await main(process.argv.slice(2)));
