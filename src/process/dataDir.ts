// DATA_DIR, the server's own folder: the embedded database, its lock, the development JWT secret and
// the admin endpoint. Checked once at start-up, so that a wrong setting is one line that names
// DATA_DIR, the path and what to do (exit code 2, like every configuration error), not a stack
// from whichever write happened to fail first.
import { mkdirSync, readdirSync, statfsSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** DATA_DIR cannot be used as it is: what is wrong and what to do, in one line. A configuration error (exit code 2). */
export class DataDirError extends Error {
  constructor(readonly problem: string, readonly dataDir?: string) {
    super(dataDir ? `DATA_DIR (${dataDir}): ${problem}` : `DATA_DIR: ${problem}`);
    this.name = "DataDirError";
  }
}

/** Marks a folder as this server's: a non-empty folder without it (or without only our files) is refused. */
export const DATA_DIR_MARK = ".snakes-data";

/** What versions before the mark left in DATA_DIR: a folder holding only these is ours too. */
const OUR_ENTRIES = /^(pglite(\.(new|upgrade|old|restoring|replaced-\w+|lock(\..+)?))?|jwt-secret|admin\.json(\..+)?|\.write-probe)$/;

const MARK_TEXT = "This folder is the data folder (DATA_DIR) of snakes-game-backend: its embedded database and settings.\n";

/** The one-line reason for an errno met while using DATA_DIR. */
export function dataDirProblem(err: unknown, what: string): string | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return `the file system holding it is full (no space left on device while ${what}): free some space there, or point DATA_DIR at another disk`;
    case "EROFS":
      return `it is on a read-only file system (while ${what}): point DATA_DIR at a writable folder`;
    case "EACCES":
    case "EPERM":
      return `permission denied (while ${what}): give the server's user write access to it, or point DATA_DIR at a folder it owns`;
    case "ENOTDIR":
      return `a part of the path is a file, not a folder: point DATA_DIR at a folder (it is created when missing)`;
    case "EEXIST":
      return `it is a file, not a folder: point DATA_DIR at a folder (it is created when missing)`;
    default:
      return undefined;
  }
}

/** Runs `action` on DATA_DIR; an errno that is the folder's fault becomes a DataDirError. */
export function usingDataDir<T>(dataDir: string, what: string, action: () => T): T {
  try {
    return action();
  } catch (err) {
    const problem = dataDirProblem(err, what);
    if (problem) throw new DataDirError(problem, dataDir);
    throw err;
  }
}

/**
 * Makes sure DATA_DIR is a folder this server may use: created when missing; refused when it is a
 * file or under one, read-only, full, or a non-empty folder of something else. Marks it as ours.
 */
export function claimDataDir(dataDir: string): void {
  const stat = usingDataDir(dataDir, "reading it", () => {
    try {
      return statSync(dataDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  });
  if (stat && !stat.isDirectory()) throw new DataDirError("it is a file, not a folder: point DATA_DIR at a folder (it is created when missing)", dataDir);
  if (!stat) usingDataDir(dataDir, "creating it", () => mkdirSync(dataDir, { recursive: true }));
  const entries = usingDataDir(dataDir, "listing it", () => readdirSync(dataDir));
  if (!entries.includes(DATA_DIR_MARK)) {
    const foreign = entries.filter((name) => !OUR_ENTRIES.test(name));
    if (foreign.length > 0) {
      const shown = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? ", …" : "");
      throw new DataDirError(
        `the folder is not empty and is not this server's (it holds ${shown}): point DATA_DIR at a new or empty folder, or at the server's data folder`,
        dataDir,
      );
    }
  }
  // Writing is what the server will do: a read-only mount or a full disk shows here, not later.
  const probe = join(dataDir, ".write-probe");
  usingDataDir(dataDir, "writing to it", () => {
    writeFileSync(probe, MARK_TEXT);
    unlinkSync(probe);
    if (!entries.includes(DATA_DIR_MARK)) writeFileSync(join(dataDir, DATA_DIR_MARK), MARK_TEXT);
  });
}

/** Free space below which the file system counts as full (PostgreSQL needs room for a WAL segment and more). */
const FULL_BELOW_BYTES = 2 * 1024 * 1024;

/** Whether the file system holding `path` is (nearly) full. */
export function fileSystemFull(path: string): boolean {
  try {
    const fs = statfsSync(path);
    return fs.bavail * fs.bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}
