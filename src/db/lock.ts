// PGlite is single-process: two processes opening one data folder would corrupt it. Whoever opens
// the folder holds DATA_DIR/pglite.lock until it closes. The lock names its holder by pid and by
// the process's start time, because a pid alone outlives its process: as a zombie until its parent
// reaps it, and again when the system hands the number to a new process. A lock whose holder is
// gone, a zombie, or a different process under the same pid is stale and taken over; a live holder
// is refused.
import { openSync, closeSync, writeSync, readFileSync, unlinkSync, statSync } from "node:fs";

export class DatabaseInUseError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `the embedded database in ${dataDir} is in use by another process (pid ${pid}), ` +
        `probably the running server: stop it first, or point DATABASE_URL at a PostgreSQL server that both can share`,
    );
    this.name = "DatabaseInUseError";
  }
}

/** What a lock file says about its holder. Older locks hold the pid alone. */
export interface LockHolder {
  pid: number;
  /** The holder's start time in clock ticks since boot (Linux /proc), when known. */
  start?: string;
}

interface ProcessInfo {
  zombie: boolean;
  /** Start time in clock ticks since boot. */
  startTicks: string;
  /** Start time, ms since the epoch (USER_HZ = 100, as on every Linux build that matters). */
  startedAtMs: number;
}

/** /proc/<pid>/stat of a live or zombie process; undefined when there is no such process or no /proc. */
function processInfo(pid: number): ProcessInfo | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" && hasProc() ? null : undefined;
  }
  // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTicks = fields[19]; // field 22 of the whole line
  return { zombie: fields[0] === "Z" || fields[0] === "X", startTicks, startedAtMs: bootTimeMs() + Number(startTicks) * 10 };
}

let procAvailable: boolean | undefined;
function hasProc(): boolean {
  if (procAvailable === undefined) {
    try {
      statSync("/proc/self/stat");
      procAvailable = true;
    } catch {
      procAvailable = false;
    }
  }
  return procAvailable;
}

function bootTimeMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith("btime "));
  return Number(line?.split(" ")[1] ?? 0) * 1000;
}

/** Without /proc: whether a process with this pid exists (or is not ours to signal). */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Clock granularity of a process start time read from /proc, plus slack. */
const START_TIME_SLACK_MS = 2000;

/** Whether the lock's holder still runs: same pid, not a zombie, and the same process. */
export function holderAlive(holder: LockHolder, lockWrittenAtMs: number): boolean {
  const info = processInfo(holder.pid);
  if (info === null) return false;
  if (info === undefined) return signalable(holder.pid);
  if (info.zombie) return false;
  if (holder.start !== undefined) return holder.start === info.startTicks;
  // An old-format lock: a process that started after the lock was written cannot have written it.
  return info.startedAtMs <= lockWrittenAtMs + START_TIME_SLACK_MS;
}

export function readLockHolder(file: string): LockHolder | undefined {
  const text = readFileSync(file, "utf8").trim();
  if (/^\d+$/.test(text)) return { pid: Number(text) };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(parsed.pid) && parsed.pid! > 0) return { pid: parsed.pid!, start: typeof parsed.start === "string" ? parsed.start : undefined };
  } catch {
    /* unreadable: stale */
  }
  return undefined;
}

/** Takes the lock or throws DatabaseInUseError; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  const me: LockHolder = { pid: process.pid, start: processInfo(process.pid)?.startTicks };
  const content = JSON.stringify(me);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, content);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, "utf8").trim() === content) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = readLockHolder(file);
      if (holder && holder.pid !== process.pid && holderAlive(holder, statSync(file).mtimeMs)) throw new DatabaseInUseError(dataDir, holder.pid);
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
