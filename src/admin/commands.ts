// The operator commands, apart from where they run. A command is parsed and its files are read
// where the operator typed it (`prepare`), then executed against a database (`execute`): in the
// command's own process, or, while a server holds the embedded database, inside that server
// (POST /admin/commands, see ./endpoint.ts). `execute` touches no files and returns what to print,
// so both paths print the same thing; a file to write (publish-registry --out) comes back as an
// artifact the command writes itself.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { z } from "zod";
import type { Database, PrismaClient } from "../db/client.js";
import { dirname } from "node:path";
import { BackupTargetRefusal, checkBackupTarget, takeBackup } from "../backup/index.js";
import { countBackupFailure, recordBackup } from "../ops/metrics.js";
import type { Logger } from "../ops/logger.js";
import type { SessionRegistry } from "../auth/sessions.js";

import { helpStudent, type HelpAction } from "../accounts/help.js";
import { eraseAccount } from "../accounts/erasure.js";
import { exportAccount, findAccounts, MAX_FOUND_ACCOUNTS } from "../accounts/export.js";
import { auditEntryOf } from "../accounts/auditView.js";
import { createIssuedAccount, findAccountByUsername, setAccountRole, UsernameTakenError } from "../stores/accounts.js";
import { appendAudit, listAudit, type AuditEntryInput } from "../stores/audit.js";
import { accountUsernameSchema } from "../auth/usernames.js";
import { generateIssuedPassword } from "../auth/issuedPasswords.js";
import { hashPassword } from "../auth/passwords.js";
import { isRole, ROLES, type Role } from "../auth/roles.js";
import { text } from "../protocol/text.js";
import { createApiKey, listApiKeys, MAX_KEY_NAME_LENGTH, revokeApiKey } from "../workspace/apiKeys.js";
import { ARCHITECTURES, buildRegistryList, entrySha, parsePlatformVersion, validateEntry } from "../workspace/registry.js";
import { loadEntries, type LoadedEntry } from "../workspace/registryFiles.js";
import { listEntries, upsertEntry } from "../workspace/registryStore.js";

export class UsageError extends Error {}

/** The student-help commands and the action each runs (src/accounts/help.ts). */
const OPERATOR_HELP: Record<string, HelpAction> = { "reset-password": "password-reset", lock: "lock", unlock: "unlock", mute: "mute", unmute: "unmute" };
const DEFAULT_AUDIT_LINES = 100;
const MAX_AUDIT_LINES = 10_000;
/** The audit log's actor for a command typed on the server's machine. */
const OPERATOR: AuditEntryInput["actor"] = { id: null, name: null, role: "operator" };

export const USAGE = `Usage: npm run --silent admin -- <command> [options]

API keys (for POST /api/public/<operation>):
  create-api-key --name NAME          create a key pair; prints {"api_key","api_key_secret"} once
  list-api-keys                       one JSON line per key (never the secret)
  revoke-api-key --api-key KEY        revoke a key; requests with it get 401 from then on

Game accounts:
  logout-user --username NAME         end every session of the account (any letter case), at once
                                      on every server process
  reset-password --username NAME      a new one-time password (printed once as {"username","password"});
                                      every session of the account ends, its room connections close
  lock --username NAME                keep the account out: sign-in refused (403 account_locked),
                                      its sessions end, its room connections close within 2 s
  unlock --username NAME              let it sign in again
  mute --username NAME                refuse its lobby, boss and PvP chat lines (nobody sees them)
  unmute --username NAME              let it chat again
  find-account [--name PART] [--limit N]
                                      one JSON line per account whose username or display name
                                      contains PART (any letter case), at most 50
  export-account --username NAME | --id N
                                      everything the database holds about the account, one JSON line
  erase-account --username NAME | --id N --yes
                                      erase the account and everything about it (irreversible; an
                                      erasure record without personal data is kept, and restore
                                      re-applies it: docs/data-protection.md)
  audit [--actor NAME|ID] [--target NAME|ID] [--action A] [--since T] [--until T] [--limit N]
                                      the audit log, newest first, one JSON line per entry (limit
                                      default 100, at most 10000)
  Every one of these is in the audit log, with the role "operator".
  create-account --username NAME --role teacher|admin
                                      create a teacher's or an admin's account; prints one JSON
                                      line {"id","username","role","password"}: the one-time
                                      password, shown once
  set-role --username NAME --role student|teacher|admin
                                      change an account's role (effective at its next request);
                                      prints {"id","username","role","previous_role"}

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
  backup [--out FILE|DIR/] [--force]  write the whole database at this instant to FILE, also while
                                      the server runs and players play (default: a new
                                      snakes-backup-<UTC time>.jsonl.gz in BACKUP_DIR, or in
                                      <DATA_DIR>-backups beside DATA_DIR; a folder: a new name in
                                      it); never inside DATA_DIR, never over an existing file
                                      unless --force (never a database's); prints one JSON line
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
  "reset-password": { options: { username: str }, positionals: 0 },
  lock: { options: { username: str }, positionals: 0 },
  unlock: { options: { username: str }, positionals: 0 },
  mute: { options: { username: str }, positionals: 0 },
  unmute: { options: { username: str }, positionals: 0 },
  "find-account": { options: { name: str, limit: str }, positionals: 0 },
  "export-account": { options: { username: str, id: str }, positionals: 0 },
  "erase-account": { options: { username: str, id: str, yes: flag }, positionals: 0 },
  audit: { options: { actor: str, target: str, action: str, since: str, until: str, limit: str }, positionals: 0 },
  "create-account": { options: { username: str, role: str }, positionals: 0 },
  "set-role": { options: { username: str, role: str }, positionals: 0 },
  "import-registry": { options: {}, positionals: 1 },
  "list-registry": { options: { architecture: str, version: str }, positionals: 0 },
  backup: { options: { out: str, force: flag }, positionals: 0 },
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
  if (command in OPERATOR_HELP && !values.username?.trim()) throw new UsageError(`${command} needs --username NAME`);
  if (command === "export-account" || command === "erase-account") {
    if (!values.username?.trim() === (values.id === undefined)) throw new UsageError(`${command} needs --username NAME or --id N (one of them)`);
    if (values.id !== undefined && !/^[1-9][0-9]{0,9}$/.test(values.id)) throw new UsageError("--id must be an account id (digits)");
  }
  if (command === "erase-account" && values.yes !== "true") throw new UsageError("erase-account deletes everything about the account for good: add --yes to go ahead");
  if (values.limit !== undefined) {
    const max = command === "audit" ? MAX_AUDIT_LINES : MAX_FOUND_ACCOUNTS;
    if (!/^[0-9]{1,6}$/.test(values.limit) || Number(values.limit) < 1 || Number(values.limit) > max) throw new UsageError(`--limit must be a number from 1 to ${max}`);
  }
  for (const flag of ["since", "until"] as const) {
    if (values[flag] !== undefined && Number.isNaN(Date.parse(values[flag]!))) throw new UsageError(`--${flag} must be a date-time, e.g. 2026-12-01T09:00:00Z`);
  }
  if (command === "create-account") {
    const name = accountUsernameSchema.safeParse(values.username ?? "");
    if (values.username === undefined) throw new UsageError("create-account needs --username NAME");
    if (!name.success) throw new UsageError(`--username: ${name.error.issues.map((i) => i.message).join("; ")}`);
    if (values.role !== "teacher" && values.role !== "admin") throw new UsageError("create-account needs --role teacher or --role admin");
  }
  if (command === "set-role") {
    if (!values.username?.trim()) throw new UsageError("set-role needs --username NAME");
    if (!isRole(values.role)) throw new UsageError(`set-role needs --role ${ROLES.join("|")}`);
  }
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
  /** DATA_DIR, which a backup never goes into (default: the embedded database's parent folder). */
  dataDir?: string;
  /** Where a server logs a command's failure (the operator is told the same reason). */
  logger?: Logger;
}

export async function execute(cmd: PreparedCommand, { prisma, sessions, db, dataDir, logger }: CommandDeps): Promise<CommandResult> {
  const { command, values } = cmd;
  const result: CommandResult = { code: 0, stdout: [], stderr: [] };
  const out = (v: unknown) => result.stdout.push(v);
  const err = (line: string) => result.stderr.push(line);
  const filter = { architecture: values.architecture, version: values.version };
  const accountNamed = (p: PrismaClient, name: string) => findAccountByUsername(p, name.trim());
  const missing = (name: string): CommandResult => {
    err(`error: no account "${name.trim()}"`);
    return { ...result, code: 1 };
  };

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
    case "reset-password":
    case "lock":
    case "unlock":
    case "mute":
    case "unmute": {
      const account = await accountNamed(prisma, values.username!);
      if (!account) return missing(values.username!);
      const done = await helpStudent({ prisma, sessions }, { kind: "operator" }, OPERATOR_HELP[command], account.id);
      out({ username: done.student.username, ...(done.password === undefined ? {} : { password: done.password }), locked: done.student.locked, muted: done.student.muted });
      if (done.password !== undefined) err("Hand the password over now: it is not shown again.");
      return result;
    }
    case "find-account": {
      const limit = Number(values.limit ?? MAX_FOUND_ACCOUNTS);
      const found = await findAccounts(prisma, values.name ?? "", limit + 1);
      for (const account of found.slice(0, limit)) out(account);
      if (found.length > limit) err(`more accounts match: narrow --name (or raise --limit, at most ${MAX_FOUND_ACCOUNTS})`);
      await appendAudit(prisma, { actor: OPERATOR, action: "account.search", address: null, result: "ok", detail: { results: Math.min(found.length, limit) } });
      return result;
    }
    case "export-account": {
      const account = values.id !== undefined ? await prisma.user.findUnique({ where: { id: Number(values.id) } }) : await accountNamed(prisma, values.username!);
      if (!account) return missing(values.username ?? `id ${values.id}`);
      const document = await exportAccount(prisma, account.id);
      if (!document) return missing(account.username);
      await appendAudit(prisma, { actor: OPERATOR, action: "account.export", target: { id: account.id, name: account.username }, address: null, result: "ok" });
      out(document);
      return result;
    }
    case "erase-account": {
      const account = values.id !== undefined ? await prisma.user.findUnique({ where: { id: Number(values.id) } }) : await accountNamed(prisma, values.username!);
      if (!account) return missing(values.username ?? `id ${values.id}`);
      const erased = await eraseAccount(prisma, account.id, (tx) =>
        appendAudit(tx, { actor: OPERATOR, action: "account.erase", target: { id: account.id, name: null }, address: null, result: "ok" }),
      );
      if (!erased) return missing(account.username);
      sessions.invalidate({ kind: "account", id: account.id });
      out({ erased: { id: erased.id, erased_at: erased.erasedAt.toISOString() } });
      return result;
    }
    case "audit": {
      const who = async (flag: "actor" | "target"): Promise<number | undefined | null> => {
        const v = values[flag]?.trim();
        if (!v) return undefined;
        if (/^[0-9]{1,10}$/.test(v)) return Number(v);
        return (await accountNamed(prisma, v))?.id ?? null;
      };
      const [actorId, targetId] = [await who("actor"), await who("target")];
      if (actorId === null || targetId === null) {
        err(`error: no account "${actorId === null ? values.actor : values.target}" (an erased account is named by its id)`);
        return { ...result, code: 1 };
      }
      const limit = Number(values.limit ?? DEFAULT_AUDIT_LINES);
      const rows = await listAudit(prisma, {
        actorId,
        targetId,
        action: values.action,
        since: values.since === undefined ? undefined : new Date(values.since),
        until: values.until === undefined ? undefined : new Date(values.until),
        limit,
      });
      for (const row of rows) out(auditEntryOf(row));
      return result;
    }
    case "create-account": {
      const username = accountUsernameSchema.parse(values.username);
      const role = values.role as "teacher" | "admin";
      const password = generateIssuedPassword();
      try {
        const user = await createIssuedAccount(prisma, { username, passwordHash: await hashPassword(password), role });
        await appendAudit(prisma, { actor: OPERATOR, action: "account.create", target: { id: user.id, name: user.username }, address: null, result: "ok", detail: { role } });
        out({ id: user.id, username: user.username, role, password });
        err("Hand the password over now: it is not shown again (the account should change it after its first sign-in).");
        return result;
      } catch (e) {
        if (!(e instanceof UsernameTakenError)) throw e;
        await appendAudit(prisma, { actor: OPERATOR, action: "account.create", address: null, result: "username_taken", detail: { role } });
        err(`error: ${e.message}`);
        return { ...result, code: 1 };
      }
    }
    case "set-role": {
      const wanted = values.username!.trim();
      const role = values.role as Role;
      const account = await findAccountByUsername(prisma, wanted);
      if (!account) {
        err(`error: no account "${wanted}"`);
        return { ...result, code: 1 };
      }
      const updated = await setAccountRole(prisma, account.id, role);
      if (!updated) {
        err(`error: no account "${wanted}"`);
        return { ...result, code: 1 };
      }
      await appendAudit(prisma, { actor: OPERATOR, action: "account.set_role", target: { id: account.id, name: account.username }, address: null, result: "ok", detail: { role, previous_role: account.role } });
      out({ id: account.id, username: account.username, role, previous_role: account.role });
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
    case "backup": {
      // The one command that writes a file where it runs: inside a server it is the server that
      // holds the database. The caller made --out an absolute path (src/admin/main.ts) and checked
      // it; checked again here, where the file is written (src/backup/target.ts).
      const dataFolder = dataDir ?? (db.dataDir ? dirname(db.dataDir) : undefined);
      let target;
      try {
        target = dataFolder === undefined ? { file: values.out! } : checkBackupTarget(values.out!, { dataDir: dataFolder, force: values.force === "true" });
      } catch (e) {
        if (!(e instanceof BackupTargetRefusal)) throw e;
        err(`error: ${e.message}`);
        return { ...result, code: 2 };
      }
      try {
        out(recordBackup(await takeBackup(db, target)));
      } catch (e) {
        // Failed, not refused: the operator reads the reason the server logs (a full disk, a killed reader).
        countBackupFailure();
        const reason = e instanceof BackupTargetRefusal ? e.message : `the backup failed: ${(e as Error)?.message ?? String(e)}`;
        logger?.error({ out: values.out, error: reason }, "admin backup failed");
        err(`error: ${reason}`);
        return { ...result, code: e instanceof BackupTargetRefusal ? 2 : 1 };
      }
      return result;
    }
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
