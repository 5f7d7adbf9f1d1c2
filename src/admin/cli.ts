// Operator commands for the workspace platform: API keys and registry entries.
//   npm run --silent admin -- <command> [options]      (npm run --silent admin -- --help)
//
// Works on the same database as the server (DATA_DIR or DATABASE_URL). The embedded database has one
// owner at a time: while the server holds it, every command refuses with a clear message instead of
// touching its files. Results go to stdout as JSON (one line per item); everything else to stderr.
import { err, out } from "./stdout.js";
import { writeFile, rename } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, embeddedDatabaseDir, loadConfig, loadDotEnv } from "../config.js";
import { DatabaseInUseError, openDatabase, type PrismaClient } from "../db/client.js";
import { applyPendingMigrations } from "../db/migrate.js";
import { createApiKey, listApiKeys, MAX_KEY_NAME_LENGTH, revokeApiKey } from "../workspace/apiKeys.js";
import { ARCHITECTURES, buildRegistryList, entrySha, parsePlatformVersion } from "../workspace/registry.js";
import { loadEntries } from "../workspace/registryFiles.js";
import { listEntries, upsertEntry } from "../workspace/registryStore.js";

class UsageError extends Error {}

const USAGE = `Usage: npm run --silent admin -- <command> [options]

API keys (for POST /api/public/<operation>):
  create-api-key --name NAME          create a key pair; prints {"api_key","api_key_secret"} once
  list-api-keys                       one JSON line per key (never the secret)
  revoke-api-key --api-key KEY        revoke a key; requests with it get 401 from then on

Workspace registry entries:
  import-registry PATH                import a workspace.json, a folder of them (any depth) or a
                                      published list.json; valid entries are upserted by name,
                                      invalid ones reported on stderr (exit 1)
  list-registry [--architecture A] [--version V]
                                      one JSON line per entry; --version 1.14.2 matches 1.14.x
  publish-registry [--out FILE] [--architecture A] [--version V]
                   [--name N] [--description D] [--icon URL] [--list-url URL] [--contact-url URL]
                                      write the registry's list.json (stdout without --out)

Database: DATA_DIR (embedded, default ./data) or DATABASE_URL (PostgreSQL), as for the server.
Exit status: 0 done, 1 failed (database in use, unknown key, invalid entries), 2 bad usage or configuration.
`;

type Options = NonNullable<ParseArgsConfig["options"]>;
const str = { type: "string" } as const;

const COMMANDS: Record<string, { options: Options; positionals: number }> = {
  "create-api-key": { options: { name: str }, positionals: 0 },
  "list-api-keys": { options: {}, positionals: 0 },
  "revoke-api-key": { options: { "api-key": str }, positionals: 0 },
  "import-registry": { options: {}, positionals: 1 },
  "list-registry": { options: { architecture: str, version: str }, positionals: 0 },
  "publish-registry": {
    options: { out: str, architecture: str, version: str, name: str, description: str, icon: str, "list-url": str, "contact-url": str },
    positionals: 0,
  },
};

interface Invocation {
  command: string;
  values: Record<string, string | undefined>;
  positionals: string[];
}

function parse(argv: string[]): Invocation | "help" {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") return "help";
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  if (rest.includes("--help") || rest.includes("-h")) return "help";
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec.options, allowPositionals: spec.positionals > 0, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (parsed.positionals.length !== spec.positionals) throw new UsageError(`${command} takes ${spec.positionals === 1 ? "one PATH" : "no positional arguments"}`);
  return { command, values: parsed.values as Record<string, string | undefined>, positionals: parsed.positionals };
}

/** Problems that need no database are reported before it is opened. */
function checkArguments({ command, values }: Invocation): void {
  if (command === "create-api-key") {
    const name = values.name?.trim();
    if (!name) throw new UsageError("create-api-key needs --name NAME");
    if (name.length > MAX_KEY_NAME_LENGTH) throw new UsageError(`--name must have at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (command === "revoke-api-key" && !values["api-key"]) throw new UsageError("revoke-api-key needs --api-key KEY");
  if (values.version !== undefined && !parsePlatformVersion(values.version)) throw new UsageError(`--version must look like 1.14.2 (or 1.14.x), not "${values.version}"`);
  if (values.architecture !== undefined && !(ARCHITECTURES as readonly string[]).includes(values.architecture)) {
    throw new UsageError(`--architecture must be one of ${ARCHITECTURES.join(", ")}`);
  }
}

async function run(inv: Invocation): Promise<number> {
  let config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  let db;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDataDir: embeddedDatabaseDir(config) });
  } catch (e) {
    if (e instanceof DatabaseInUseError) {
      err(`error: ${e.message}`);
      return 1;
    }
    throw e;
  }
  try {
    const applied = await applyPendingMigrations(db);
    if (applied.length) err(`applied migrations: ${applied.join(", ")}`);
    return await execute(inv, db.prisma);
  } finally {
    await db.close();
  }
}

async function execute({ command, values, positionals }: Invocation, prisma: PrismaClient): Promise<number> {
  const filter = { architecture: values.architecture, version: values.version };

  switch (command) {
    case "create-api-key": {
      out(await createApiKey(prisma, values.name!));
      err("Store the secret now: it is not shown again.");
      return 0;
    }
    case "list-api-keys": {
      for (const key of await listApiKeys(prisma)) out(key);
      return 0;
    }
    case "revoke-api-key": {
      const key = values["api-key"]!;
      const result = await revokeApiKey(prisma, key);
      if (result.status === "unknown") {
        err(`error: no API key "${key}"`);
        return 1;
      }
      if (result.status === "already_revoked") err(`API key "${key}" was already revoked`);
      out({ api_key: key, revoked: result.at.toISOString() });
      return 0;
    }
    case "import-registry": {
      let loaded;
      try {
        loaded = await loadEntries(positionals[0]);
      } catch (e) {
        err(`error: cannot read ${positionals[0]}: ${(e as Error).message}`);
        return 1;
      }
      if (loaded.length === 0) {
        err(`error: no workspace.json found under ${positionals[0]}`);
        return 1;
      }
      const counts = { created: 0, updated: 0, unchanged: 0, invalid: 0 };
      for (const item of loaded) {
        for (const w of item.warnings) err(`warning: ${item.source}: ${w.field}: ${w.reason}`);
        if (!item.entry) {
          counts.invalid++;
          for (const p of item.problems) err(`invalid: ${item.source}: ${p.field}: ${p.reason}`);
          continue;
        }
        counts[await upsertEntry(prisma, item.entry)]++;
      }
      out(counts);
      return counts.invalid ? 1 : 0;
    }
    case "list-registry": {
      for (const entry of await listEntries(prisma, filter)) out({ ...entry, sha: entrySha(entry) });
      return 0;
    }
    case "publish-registry": {
      const meta = Object.fromEntries(
        Object.entries({
          name: values.name,
          description: values.description,
          icon: values.icon,
          list_url: values["list-url"],
          contact_url: values["contact-url"],
        }).filter(([, v]) => v !== undefined),
      );
      const list = buildRegistryList(await listEntries(prisma, filter), meta);
      if (values.out === undefined || values.out === "-") {
        out(list);
        return 0;
      }
      const file = resolve(values.out);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, `${JSON.stringify(list, null, 2)}\n`);
      await rename(tmp, file);
      out({ out: file, workspacecount: list.workspacecount });
      return 0;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

async function main(argv: string[]): Promise<number> {
  try {
    const inv = parse(argv);
    if (inv === "help") {
      out(USAGE.trimEnd());
      return 0;
    }
    checkArguments(inv);
    return await run(inv);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE.trimEnd()}`);
      return 2;
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
