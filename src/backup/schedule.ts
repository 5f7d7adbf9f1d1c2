// Scheduled backups (BACKUP_EVERY, BACKUP_KEEP, BACKUP_DIR; docs/operations.md#backups-and-restores).
// Every interval the server takes a backup into BACKUP_DIR/scheduled/ and keeps the newest
// BACKUP_KEEP there, by the instant written inside each file (not its name: a clock that was ahead
// once must not make every new backup the oldest). Older ones are removed only once a newer one is
// complete, never the one just written, and never down to no good backup, so a failing backup never
// costs one that exists. Backups made by hand (BACKUP_DIR itself) and before migrations
// (BACKUP_DIR/pre-migration/) are never rotated. The next backup is timed from the end of the last,
// so two never overlap, however slow the disk. A failure of any kind (a full or read-only disk, a
// killed reader) is one error line and a counted failure, and the next interval tries again.
// The first backup after a start comes when the newest one is an interval old, but not sooner than
// FIRST_BACKUP_AFTER_MS (a start that restarts often takes no more than one per interval, and one
// after a long stop is not an hour late).
import { closeSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { constants, gunzipSync } from "node:zlib";
import type { Logger } from "../ops/logger.js";
import { BACKUP_EXTENSION, parseHeader } from "./format.js";
import type { BackupTarget } from "./target.js";
import type { BackupSummary } from "./take.js";

export const SCHEDULED_SUBDIR = "scheduled";
export const PRE_MIGRATION_SUBDIR = "pre-migration";

/** Names of scheduled backups: snakes-backup-<UTC time>[-N].jsonl.gz. */
const SCHEDULED_NAME = new RegExp(`^snakes-backup-\\d{8}T\\d{6}(\\d{3})?Z(-\\d+)?${BACKUP_EXTENSION.replace(/\./g, "\\.")}$`);

/** The soonest the first scheduled backup after a start runs (BACKUP_EVERY, when shorter). */
export const FIRST_BACKUP_AFTER_MS = 60_000;

export interface BackupScheduleOptions {
  everyMs: number;
  keep: number;
  /** BACKUP_DIR (resolved): scheduled backups go into its `scheduled/` folder. */
  dir: string;
  /** Takes one backup to `target` (takeBackup over the server's database): a new name in the folder. */
  backup(target: BackupTarget): Promise<BackupSummary>;
  logger: Logger;
  /** Told of each outcome (the /metrics gauges). */
  onSuccess?(summary: BackupSummary): void;
  onFailure?(err: unknown): void;
}

export interface BackupSchedule {
  /** Stops the schedule; resolves when a backup in flight has finished. */
  stop(): Promise<void>;
  /** The backup in flight, if any (tests wait on it). */
  running(): Promise<unknown> | undefined;
}

export function scheduleBackups(o: BackupScheduleOptions): BackupSchedule {
  const folder = join(o.dir, SCHEDULED_SUBDIR);
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = false;

  const once = async () => {
    try {
      const summary = await o.backup({ folder });
      const removed = rotate(folder, o.keep, summary.file);
      o.logger.info(
        { file: summary.file, bytes: summary.bytes, ms: summary.ms, snapshot_ms: summary.snapshotMs, rows: Object.values(summary.rows).reduce((a, b) => a + b, 0), removed },
        "scheduled backup written",
      );
      o.onSuccess?.(summary);
    } catch (err) {
      o.onFailure?.(err);
      o.logger.error({ dir: folder, error: (err as Error)?.message ?? String(err), next_in_s: Math.round(o.everyMs / 1000) }, "scheduled backup failed: the server serves on and tries again next interval");
    }
  };

  const arm = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      // once() never rejects; whatever happens, the next interval is armed when it ends.
      inFlight = once().finally(() => {
        inFlight = undefined;
        arm(o.everyMs);
      });
    }, delayMs);
    timer.unref();
  };
  arm(firstDelayMs(folder, o.everyMs));

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
    running: () => inFlight,
  };
}

/** When the first backup after a start runs: an interval after the newest one, within [min(every, FIRST_BACKUP_AFTER_MS), every]. */
export function firstDelayMs(folder: string, everyMs: number, now = Date.now()): number {
  const soonest = Math.min(everyMs, FIRST_BACKUP_AFTER_MS);
  const newest = scheduledBackups(folder)[0];
  if (!newest) return soonest;
  return Math.min(everyMs, Math.max(soonest, newest.at + everyMs - now));
}

/** The instant inside a backup file (its header's `at`), or undefined when it has no readable header. */
export function backupInstant(file: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(64 * 1024);
    const n = readSync(fd, head, 0, head.length, 0);
    // The header is the first line; a prefix of the gzip stream is enough to read it.
    const text = gunzipSync(head.subarray(0, n), { finishFlush: constants.Z_SYNC_FLUSH }).toString("utf8");
    const end = text.indexOf("\n");
    if (end < 0) return undefined;
    return Date.parse(parseHeader(text.slice(0, end), file).at);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The scheduled backups in `folder` with a readable header, newest first (by the instant inside). */
function scheduledBackups(folder: string): Array<{ name: string; at: number }> {
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => SCHEDULED_NAME.test(n));
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, at: backupInstant(join(folder, name)) }))
    .filter((b): b is { name: string; at: number } => b.at !== undefined && !Number.isNaN(b.at))
    .sort((a, b) => b.at - a.at || b.name.localeCompare(a.name));
}

/**
 * Keeps the `keep` newest scheduled backups (by the instant inside each) and removes the other good
 * ones; `justWritten` (a path) is always kept and counted. Files without a readable header are not
 * backups to count on: neither kept in the count nor removed. Returns the names removed.
 */
export function rotate(folder: string, keep: number, justWritten?: string): string[] {
  const backups = scheduledBackups(folder);
  const justName = justWritten === undefined ? undefined : basename(justWritten);
  const kept = new Set<string>();
  if (justName !== undefined && backups.some((b) => b.name === justName)) kept.add(justName);
  for (const b of backups) if (kept.size < Math.max(1, keep)) kept.add(b.name);
  const removed = backups.filter((b) => !kept.has(b.name)).map((b) => b.name).reverse(); // oldest first
  for (const name of removed) rmSync(join(folder, name), { force: true });
  return removed;
}
