// PGlite is single-process: two processes opening one data folder would corrupt it. Whoever opens
// the folder holds DATA_DIR/pglite.lock until it closes. The lock names its holder by pid and by
// the process's start time, because a pid alone outlives its process: as a zombie until its parent
// reaps it, and again when the system hands the number to a new process. A lock whose holder is
// gone, a zombie, or a different process under the same pid is stale and taken over; a live holder
// is refused.
//
// Every step is atomic, so that of any number of processes starting at the same instant exactly one
// holds the lock and the others are told who does:
// - A lock appears complete or not at all: it is written to a private file first and hard-linked
//   into place (link fails when the lock exists; a half-written lock never shows).
// - A stale lock is replaced, never deleted: the contender that links the claim file named after
//   that very lock (its content carries a random nonce) renames its own lock over it, after checking
//   that the stale one is still in place. Claims are exclusive and a nonce never comes back, so one
//   stale lock is replaced at most once. A claim whose claimer died is passed over by claiming the
//   next name in its chain.
import { createHash, randomUUID } from "node:crypto";
import { closeSync, linkSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export class DatabaseInUseError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    const command = pid > 0 ? commandOf(pid) : undefined;
    super(
      `the embedded database in ${dataDir} is in use by another process (pid ${pid}), ` +
        `probably the running server: stop it first, or point DATABASE_URL at a PostgreSQL server that both can share` +
        (command ? ` (pid ${pid} is: ${command})` : ""),
    );
    this.name = "DatabaseInUseError";
  }
}

/** A process's command line, shortened, when /proc shows it. */
function commandOf(pid: number): string | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const text = args.map((a) => (a.includes("/") && !a.startsWith("-") ? basename(a) : a)).join(" ");
    return text.length > 120 ? `${text.slice(0, 117)}...` : text || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The live process holding the lock of `dataDir`, without taking it: a start looks first, before it
 * does anything else (creating a database, listening), so that a second copy is one line.
 */
export function lockHolderOf(dataDir: string): number | undefined {
  const seen = look(`${dataDir}.lock`);
  const holder = seen && parseLockHolder(seen.text);
  return holder && holder.pid !== process.pid && holderAlive(holder, seen.mtimeMs) ? holder.pid : undefined;
}

/** What a lock file says about its holder. Older locks hold the pid alone, or no nonce. */
export interface LockHolder {
  pid: number;
  /** The holder's start time in clock ticks since boot (Linux /proc), when known. */
  start?: string;
  /** Random, unique to one acquisition. */
  nonce?: string;
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

export function parseLockHolder(text: string): LockHolder | undefined {
  text = text.trim();
  if (/^\d+$/.test(text)) return { pid: Number(text) };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(parsed.pid) && parsed.pid! > 0) {
      return {
        pid: parsed.pid!,
        start: typeof parsed.start === "string" ? parsed.start : undefined,
        nonce: typeof parsed.nonce === "string" ? parsed.nonce : undefined,
      };
    }
  } catch {
    /* unreadable: stale */
  }
  return undefined;
}

export function readLockHolder(file: string): LockHolder | undefined {
  return parseLockHolder(readFileSync(file, "utf8"));
}

/** One version of a file: its content and identity; undefined when it does not exist. */
interface Seen {
  text: string;
  ino: number;
  mtimeMs: number;
}

function look(file: string): Seen | undefined {
  try {
    const text = readFileSync(file, "utf8");
    const { ino, mtimeMs } = statSync(file);
    return { text, ino, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

const sameVersion = (a: Seen | undefined, b: Seen) => a !== undefined && a.text === b.text && a.ino === b.ino;

/** Creates `file` with `content` unless it exists; false when it does. */
function createExclusive(file: string, content: string): boolean {
  try {
    const fd = openSync(file, "wx", 0o600);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Puts the complete lock `tmp` in place as `file` unless `file` exists; false when it does. */
function linkExclusive(tmp: string, file: string, content: string): boolean {
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A file system without hard links: create and write (a reader may see it empty for an instant).
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") return createExclusive(file, content);
    throw err;
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** How long a contender waits for a live claimer to finish replacing a stale lock (microseconds, normally). */
const CLAIM_WAIT_MS = 2000;

/** Takes the lock or throws DatabaseInUseError; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  const me: LockHolder = { pid: process.pid, start: processInfo(process.pid)?.startTicks, nonce: randomUUID() };
  const content = JSON.stringify(me);
  const tmp = `${file}.${process.pid}.${me.nonce}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  try {
    const deadline = Date.now() + CLAIM_WAIT_MS;
    for (;;) {
      if (linkExclusive(tmp, file, content)) break;
      const seen = look(file);
      if (!seen) continue; // released meanwhile
      const holder = parseLockHolder(seen.text);
      if (holder && holder.pid !== process.pid && holderAlive(holder, seen.mtimeMs)) throw new DatabaseInUseError(dataDir, holder.pid);
      const outcome = takeOver(file, seen, tmp, content);
      if (outcome === "taken") break;
      if (outcome !== "changed") {
        if (Date.now() > deadline) throw new DatabaseInUseError(dataDir, outcome.claimerPid);
        pause(2);
      }
    }
  } finally {
    unlinkQuietly(tmp); // gone when renamed into place
  }
  sweepLeftovers(file);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (readFileSync(file, "utf8") === content) unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
}

/**
 * Replaces the stale lock `seen` with ours. "taken": done; "changed": the lock is no longer that
 * version (look again); { claimerPid }: a live process is replacing it right now.
 */
function takeOver(file: string, seen: Seen, tmp: string, content: string): "taken" | "changed" | { claimerPid: number } {
  const key = createHash("sha256").update(`${seen.ino}:${seen.mtimeMs}:${seen.text}`).digest("hex").slice(0, 20);
  let claim = `${file}.takeover-${key}`;
  for (;;) {
    if (linkExclusive(tmp, claim, content)) {
      try {
        if (!sameVersion(look(file), seen)) return "changed";
        renameSync(tmp, file);
        return "taken";
      } finally {
        // Only after the rename: the claim must outlive the stale version it names. (The new
        // holder's sweep may have removed it already.)
        unlinkQuietly(claim);
      }
    }
    const claimed = look(claim);
    if (!claimed) return "changed"; // its claimer finished
    const claimer = parseLockHolder(claimed.text);
    if (claimer && holderAlive(claimer, claimed.mtimeMs)) return { claimerPid: claimer.pid };
    // Empty: being written (only where the file system has no hard links), unless long abandoned.
    if (!claimer && claimed.text === "" && Date.now() - claimed.mtimeMs < CLAIM_WAIT_MS) return { claimerPid: 0 };
    // Its claimer died between claiming and replacing: claim the next link of the chain.
    claim = `${claim}-${claimer?.nonce ?? createHash("sha256").update(`${claimed.ino}:${claimed.text}`).digest("hex").slice(0, 12)}`;
  }
}

/** Claims name lock versions that are gone now, so none can matter again; private files of dead contenders. */
function sweepLeftovers(file: string): void {
  const dir = dirname(file);
  const prefix = basename(file) + ".";
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const tmpOf = /^(\d+)\..*\.tmp$/.exec(rest);
    const leftover = rest.startsWith("takeover-") || (tmpOf !== null && processInfo(Number(tmpOf[1])) === null);
    if (leftover) unlinkQuietly(join(dir, name));
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
