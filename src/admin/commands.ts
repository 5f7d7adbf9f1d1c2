// The operator commands, apart from where they run. A command is parsed and its files are read
// where the operator typed it (`prepare`), then executed against a database (`execute`): in the
// command's own process, or, while a server holds the embedded database, inside that server
// (POST /admin/commands, see ./endpoint.ts). `execute` touches no files and returns what to print,
// so both paths print the same thing; a file to write (publish-registry --out) comes back as an
// artifact the command writes itself.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { z } from "zod";
import type { Database, PrismaClient } from "../db/client.js";
import { takeBackup } from "../backup/index.js";
import { recordBackup } from "../ops/metrics.js";
import type { SessionRegistry } from "../auth/sessions.js";
import { findAccountByUsername } from "../stores/accounts.js";
import { text } from "../protocol/text.js";
import { createApiKey, listApiKeys, MAX_KEY_NAME_LENGTH, revokeApiKey } from "../workspace/apiKeys.js";
import { ARCHITECTURES, buildRegistryList, entrySha, parsePlatformVersion, validateEntry } from "../workspace/registry.js";
import { loadEntries, type LoadedEntry } from "../workspace/registryFiles.js";
import { listEntries, upsertEntry } from "../workspace/registryStore.js";

export class UsageError extends Error {}

export const USAGE = `Usage: npm run --silent admin -- <command> [options]

API keys (for POST /api/public/<operation>):
  create-api-key --name NAME          create a key pair; prints {"api_key","api_key_secret"} once
  list-api-keys                       one JSON line per key (never the secret)
  revoke-api-key --api-key KEY        revoke a key; requests with it get 401 from then on

Game accounts:
  logout-user --username NAME         end every session of the account (any letter case), at once
                                      on every server process

Workspace registry entries:
  import-registry PATH                import a workspace.json, a folder of them (any depth) or a
                                      published list.json; valid entries are upserted by name,
                                      invalid ones reported on stderr (exit 1)
  list-registry [--architecture A] [--version V]
                                      one JSON line per entry; --version 1.14.2 matches 1.14.x
  publish-registry [--out FILE] [--architecture A] [--version V]
                   [--name N] [--description D] [--icon URL] [--list-url URL] [--contact-url URL]
                                      write the registry's list.json (stdout without --out)

Backups (docs/operations.md, "Backups and restores"):
  backup [--out FILE]                 write the whole database at this instant to FILE, also while
                                      the server runs and players play (default: a new
                                      snakes-backup-<UTC time>.jsonl.gz in BACKUP_DIR, or in
                                      <DATA_DIR>-backups beside DATA_DIR); prints one JSON line
                                      {"file","bytes","at","rows",…,"sha256","ms"}
  restore FILE [--replace] [--unauthenticated]
                                      put FILE's database in place of DATA_DIR's (or into
                                      DATABASE_URL's), migrated to this version: FILE is checked
                                      whole first (its HMAC under BACKUP_KEY, or JWT_SECRET, and
                                      every row); refused while a server or another restore holds
                                      the target; the database replaced is kept aside
                                      (pglite.replaced-<time>); a PostgreSQL database must be empty
                                      unless --replace (its schema is then renamed aside); every
                                      session from before it ends; prints one JSON line.
                                      --unauthenticated: accept a file whose key is lost (only its
                                      checksum and rows are checked): only a file you trust

Database: DATA_DIR (embedded, default ./data) or DATABASE_URL (PostgreSQL), as for the server. While
a server holds the embedded database, commands run inside it (through DATA_DIR/admin.json).
A database that does not exist yet is refused: start the server once to create it (restore
excepted: it makes one).
Exit status: 0 done, 1 failed (no database, unknown key, invalid entries), 2 bad usage or configuration,
or a restore refused (a file that is not a whole backup of this server, a database in use or not empty).
`;

type Options = NonNullable<ParseArgsConfig["options"]>;
const str = { type: "string" } as const;
const flag = { type: "boolean" } as const;

const COMMANDS: Record<string, { options: Options; positionals: number }> = {
  "create-api-key": { options: { name: str }, positionals: 0 },
  "list-api-keys": { options: {}, positionals: 0 },
  "revoke-api-key": { options: { "api-key": str }, positionals: 0 },
  "logout-user": { options: { username: str }, positionals: 0 },
  "import-registry": { options: {}, positionals: 1 },
  "list-registry": { options: { architecture: str, version: str }, positionals: 0 },
  backup: { options: { out: str }, positionals: 0 },
  restore: { options: { replace: flag, unauthenticated: flag }, positionals: 1 },
  "publish-registry": {
    options: { out: str, architecture: str, version: str, name: str, description: str, icon: str, "list-url": str, "contact-url": str },
    positionals: 0,
  },
};

export interface Invocation {
  command: string;
  values: Record<string, string | undefined>;
  positionals: string[];
}

/** An invocation with its files read: what `execute` needs, as plain JSON. */
export interface PreparedCommand extends Invocation {
  /** import-registry: what the files held, validated. */
  loaded?: LoadedEntry[];
}

/** What a command prints, and the file it asks its caller to write. */
export interface CommandResult {
  code: number;
  stdout: unknown[];
  stderr: string[];
  /** publish-registry --out: the list to write to `values.out`. */
  artifact?: unknown;
}

export function parse(argv: string[]): Invocation | "help" {
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
  // Flags (restore --replace) travel as the string "true", like every other value.
  const values = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, v === true ? "true" : (v as string | undefined)]));
  const inv = { command, values, positionals: parsed.positionals };
  checkArguments(inv);
  return inv;
}

/** Problems that need no database are reported before it is opened (and checked again by a server). */
export function checkArguments({ command, values, positionals }: Invocation): void {
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  const unknown = Object.keys(values).filter((k) => !(k in spec.options));
  if (unknown.length) throw new UsageError(`${command} does not take --${unknown.join(", --")}`);
  if (positionals.length !== spec.positionals) throw new UsageError(`${command} takes ${spec.positionals === 1 ? "one PATH" : "no positional arguments"}`);
  if (command === "create-api-key") {
    const name = values.name?.trim();
    if (!name) throw new UsageError("create-api-key needs --name NAME");
    if (name.length > MAX_KEY_NAME_LENGTH) throw new UsageError(`--name must have at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (command === "revoke-api-key" && !values["api-key"]) throw new UsageError("revoke-api-key needs --api-key KEY");
  if (command === "logout-user" && !values.username?.trim()) throw new UsageError("logout-user needs --username NAME");
  if (command === "backup" && values.out !== undefined && !values.out.trim()) throw new UsageError("--out needs a FILE");
  if (values.version !== undefined && !parsePlatformVersion(values.version)) throw new UsageError(`--version must look like 1.14.2 (or 1.14.x), not "${values.version}"`);
  if (values.architecture !== undefined && !(ARCHITECTURES as readonly string[]).includes(values.architecture)) {
    throw new UsageError(`--architecture must be one of ${ARCHITECTURES.join(", ")}`);
  }
}

/** Reads the files a command names, where the operator runs it. */
export async function prepare(inv: Invocation): Promise<PreparedCommand | CommandResult> {
  if (inv.command !== "import-registry") return inv;
  const path = inv.positionals[0];
  let loaded: LoadedEntry[];
  try {
    loaded = await loadEntries(path);
  } catch (e) {
    return { code: 1, stdout: [], stderr: [`error: cannot read ${path}: ${(e as Error).message}`] };
  }
  if (loaded.length === 0) return { code: 1, stdout: [], stderr: [`error: no workspace.json found under ${path}`] };
  return { ...inv, loaded };
}

export interface CommandDeps {
  prisma: PrismaClient;
  sessions: SessionRegistry;
  /** The database handle itself (backup reads its snapshot through it). */
  db: Database;
}

export async function execute(cmd: PreparedCommand, { prisma, sessions, db }: CommandDeps): Promise<CommandResult> {
  const { command, values } = cmd;
  const result: CommandResult = { code: 0, stdout: [], stderr: [] };
  const out = (v: unknown) => result.stdout.push(v);
  const err = (line: string) => result.stderr.push(line);
  const filter = { architecture: values.architecture, version: values.version };

  switch (command) {
    case "create-api-key":
      out(await createApiKey(prisma, values.name!.trim()));
      err("Store the secret now: it is not shown again.");
      return result;
    case "list-api-keys":
      for (const key of await listApiKeys(prisma)) out(key);
      return result;
    case "revoke-api-key": {
      const key = values["api-key"]!;
      const revoked = await revokeApiKey(prisma, key);
      if (revoked.status === "unknown") {
        err(`error: no API key "${key}"`);
        return { ...result, code: 1 };
      }
      if (revoked.status === "already_revoked") err(`API key "${key}" was already revoked`);
      out({ api_key: key, revoked: revoked.at.toISOString() });
      return result;
    }
    case "logout-user": {
      const wanted = values.username!.trim();
      const account = await findAccountByUsername(prisma, wanted);
      if (!account) {
        err(`error: no account "${wanted}"`);
        return { ...result, code: 1 };
      }
      await sessions.endAllSessions({ kind: "account", id: account.id });
      out({ username: account.username, sessions_ended: true });
      return result;
    }
    case "import-registry": {
      const counts = { created: 0, updated: 0, unchanged: 0, invalid: 0 };
      for (const item of cmd.loaded ?? []) {
        for (const w of item.warnings) err(`warning: ${item.source}: ${w.field}: ${w.reason}`);
        // Checked again here: a server does not take a caller's word that an entry is valid.
        const checked = item.entry ? validateEntry(item.entry) : undefined;
        if (!checked?.ok) {
          counts.invalid++;
          for (const p of checked?.problems ?? item.problems) err(`invalid: ${item.source}: ${p.field}: ${p.reason}`);
          continue;
        }
        counts[await upsertEntry(prisma, checked.entry)]++;
      }
      out(counts);
      return { ...result, code: counts.invalid ? 1 : 0 };
    }
    case "backup":
      // The one command that writes a file where it runs: inside a server it is the server that
      // holds the database. The caller made --out an absolute path (src/admin/main.ts).
      out(recordBackup(await takeBackup(db, values.out!)));
      return result;
    case "list-registry":
      for (const entry of await listEntries(prisma, filter)) out({ ...entry, sha: entrySha(entry) });
      return result;
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
      if (values.out === undefined || values.out === "-") out(list);
      else result.artifact = list;
      return result;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

const problem = z.object({ field: z.string(), reason: z.string() });

/** The shape of a prepared command as a server receives it (POST /admin/commands). */
export const preparedCommandSchema = z
  .object({
    command: text({ max: 64, kind: "identifier" }),
    values: z.record(text({ max: 64, kind: "identifier" }), text({ max: 4096 }).optional()),
    positionals: z.array(text({ max: 4096 })).max(1),
    loaded: z
      .array(z.object({ source: z.string().max(4096), entry: z.unknown().optional(), problems: z.array(problem), warnings: z.array(problem) }))
      .max(10_000)
      .optional(),
  })
  .strict();
