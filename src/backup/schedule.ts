// Scheduled backups (BACKUP_EVERY, BACKUP_KEEP, BACKUP_DIR; docs/operations.md#backups-and-restores).
// Every interval the server takes a backup into BACKUP_DIR/scheduled/ and keeps the newest
// BACKUP_KEEP there: older ones are removed only once a newer one is complete, so a failing backup
// never costs one that exists. Backups made by hand (BACKUP_DIR itself) and before migrations
// (BACKUP_DIR/pre-migration/) are never rotated. The next backup is timed from the end of the last,
// so two never overlap, however slow the disk. A failure is one error line (one per interval, as
// each interval tries once) and the server serves on.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../ops/logger.js";
import { BACKUP_EXTENSION } from "./format.js";
import type { BackupSummary } from "./take.js";

export const SCHEDULED_SUBDIR = "scheduled";
export const PRE_MIGRATION_SUBDIR = "pre-migration";

/** Names of scheduled backups: snakes-backup-<UTC time>.jsonl.gz, which sort by time. */
const SCHEDULED_NAME = new RegExp(`^snakes-backup-\\d{8}T\\d{6}(\\d{3})?Z${BACKUP_EXTENSION.replace(/\./g, "\\.")}$`);

export interface BackupScheduleOptions {
  everyMs: number;
  keep: number;
  /** BACKUP_DIR (resolved): scheduled backups go into its `scheduled/` folder. */
  dir: string;
  /** Takes one backup into `file` (takeBackup over the server's database). */
  backup(file: string): Promise<BackupSummary>;
  /** The file name for an instant (backupFileName). */
  name(at: Date): string;
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
    const file = join(folder, o.name(new Date()));
    try {
      const summary = await o.backup(file);
      const removed = await rotate(folder, o.keep);
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

  const arm = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = once().finally(() => {
        inFlight = undefined;
        arm();
      });
    }, o.everyMs);
    timer.unref();
  };
  arm();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
    running: () => inFlight,
  };
}

/** Removes the oldest scheduled backups beyond `keep` (complete files only); returns the names removed. */
export async function rotate(folder: string, keep: number): Promise<string[]> {
  const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => SCHEDULED_NAME.test(n)).sort();
  const excess = names.slice(0, Math.max(0, names.length - keep));
  for (const name of excess) await rm(join(folder, name), { force: true });
  return excess;
}
