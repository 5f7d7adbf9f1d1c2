// Where a backup may land (issue 41). A backup file is only ever a file the backup created itself:
//   - never inside DATA_DIR (after resolving links: a backup must survive the loss of that folder,
//     and `--out DATA_DIR/pglite.lock` or `.../PG_VERSION` would damage the database it copies);
//   - never over an existing file, unless the operator says --force, and never then over a file of
//     a database folder (one that holds a PG_VERSION) or anything that is not a regular file;
//   - under a new name when it goes into a folder: two backups in one second give two files.
// The checks run where the command is typed (one line, exit 2) and again where the file is written;
// the writer (./write.ts) then publishes the file with link(2), which fails rather than replace.
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { BACKUP_EXTENSION } from "./format.js";

/** A target the backup will not write to: one line for the operator (exit 2). */
export class BackupTargetRefusal extends Error {
  override name = "BackupTargetRefusal";
}

/**
 * Where a backup goes: `file`, that exact path (the operator's --out FILE), or a new name in
 * `folder` (snakes-backup-<UTC time>[-N]<suffix>.jsonl.gz, N counting up on a collision).
 */
export type BackupTarget = { file: string; force?: boolean } | { folder: string; suffix?: string };

/** A filesystem- and identifier-safe UTC time: 20261128T212451Z. */
const compactTime = (at: Date) => at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** A backup's file name for an instant, the n-th of that second (n > 1 only on a collision): snakes-backup-20261128T212451Z.jsonl.gz. */
export function backupFileName(at = new Date(), suffix = "", n = 1): string {
  return `snakes-backup-${compactTime(at)}${n > 1 ? `-${n}` : ""}${suffix}${BACKUP_EXTENSION}`;
}

/** The folder a target writes into. */
export const targetFolder = (target: BackupTarget) => ("file" in target ? dirname(target.file) : target.folder);

/** `path` with every link resolved, for a path that may not exist yet (its nearest existing ancestor resolved). */
export function realPathOf(path: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  let at = absolute;
  for (;;) {
    try {
      return join(realpathSync(at), ...missing.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return absolute;
      missing.push(basename(at));
      at = parent;
    }
  }
}

/** Whether `path` is `folder` or inside it, both with links resolved. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(realPathOf(folder), realPathOf(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Whether `path` lies in a PostgreSQL data folder (an ancestor holds PG_VERSION): any database's files. */
function inDatabaseFolder(path: string): boolean {
  let at = dirname(realPathOf(path));
  for (;;) {
    if (existsSync(join(at, "PG_VERSION"))) return true;
    const parent = dirname(at);
    if (parent === at) return false;
    at = parent;
  }
}

/**
 * The operator's `--out`: a folder (an existing one, or a path ending with a separator) gets a new
 * name in it; anything else is that file. Refused (BackupTargetRefusal) as the header says.
 */
export function checkBackupTarget(out: string, { dataDir, force = false }: { dataDir: string; force?: boolean }): BackupTarget {
  const path = resolve(out);
  const asFolder = out.endsWith("/") || out.endsWith(sep) || (existsSync(path) && statSync(path).isDirectory());
  if (isInside(path, dataDir)) {
    throw new BackupTargetRefusal(`--out ${path} is inside DATA_DIR (${resolve(dataDir)}): a backup goes outside the folder it copies (BACKUP_DIR, or another disk)`);
  }
  if (asFolder) return { folder: path };
  const existing = lstatOrUndefined(path);
  if (existing) {
    if (!force) throw new BackupTargetRefusal(`--out ${path} already exists: name a new file (or a folder, for a new name in it), or add --force to replace that file`);
    const real = realPathOf(path);
    if (!statOrUndefined(real)?.isFile()) throw new BackupTargetRefusal(`--out ${path} is not a regular file: --force replaces only an earlier backup file`);
    if (inDatabaseFolder(real)) throw new BackupTargetRefusal(`--out ${path} is a database's file: a backup never replaces one, --force or not`);
  }
  return { file: path, force: existing !== undefined && force };
}

/** BACKUP_DIR inside DATA_DIR (links resolved): the one-line reason a start refuses it, else undefined. */
export function backupDirProblem(backupDir: string | undefined, dataDir: string): string | undefined {
  if (backupDir === undefined || !isInside(backupDir, dataDir)) return undefined;
  return `BACKUP_DIR (${backupDir}) is inside DATA_DIR (${resolve(dataDir)}): backups must survive the loss of that folder and a restore replaces what is in it; point BACKUP_DIR elsewhere (unset, it is ${resolve(dataDir)}-backups beside it)`;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The hidden temporary name of a backup being written (./write.ts): the writer's pid in it, for the sweep. */
export const PARTIAL = /^\..+\.(\d+)\.[0-9a-f]+\.partial$/;

/** Names of partial files in `folder` (none when it is missing). */
export function partialFiles(folder: string): string[] {
  try {
    return readdirSync(folder).filter((n) => PARTIAL.test(n));
  } catch {
    return [];
  }
}
