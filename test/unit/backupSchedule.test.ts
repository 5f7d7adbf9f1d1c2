// The backup schedule's rules on a fake clock, with a stand-in backup that writes real files:
// exactly BACKUP_KEEP are kept, older ones go only after a newer one is complete, a failure is one
// error line per interval and removes nothing, two backups never overlap, and stop() waits for one
// in flight. Files that are not scheduled backups (by hand, before a migration, half-written) stay.
// Issue 41: rotation orders by the instant inside each file (a clock that was ahead cannot make the
// new backup its own victim), never removes the one just written, and keeps at least one good
// backup; the first backup after a start comes an interval after the newest one, not an hour late.
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backupFileName } from "../../src/backup/index.js";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION } from "../../src/backup/format.js";
import { backupInstant, FIRST_BACKUP_AFTER_MS, firstDelayMs, rotate, scheduleBackups, SCHEDULED_SUBDIR } from "../../src/backup/schedule.js";
import type { BackupTarget } from "../../src/backup/target.js";
import type { BackupSummary } from "../../src/backup/take.js";
import { createLogger } from "../../src/ops/logger.js";

/** A file with a real backup header for instant `at` (what rotation reads), named `name`. */
function fakeBackup(folder: string, name: string, at: Date): string {
  mkdirSync(folder, { recursive: true });
  const header = { format: BACKUP_FORMAT, version: BACKUP_FORMAT_VERSION, engine: "pglite", at: at.toISOString(), migrations: ["m"], tables: [] };
  const file = join(folder, name);
  writeFileSync(file, gzipSync(`${JSON.stringify(header)}\n${JSON.stringify({ sha256: "x" })}\n`));
  return file;
}

function setup(backup: (file: string) => Promise<BackupSummary>, keep = 2) {
  const dir = mkdtempSync(join(tmpdir(), "snakes-schedule-"));
  const lines: Array<Record<string, any>> = [];
  const logger = createLogger("info", {}, { destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const outcomes = { ok: 0, failed: 0 };
  const schedule = scheduleBackups({
    everyMs: 3000,
    keep,
    dir,
    backup: (target: BackupTarget) => backup(join((target as { folder: string }).folder, backupFileName())),
    logger,
    onSuccess: () => outcomes.ok++,
    onFailure: () => outcomes.failed++,
  });
  /** Lets `n` intervals pass, each backup (real file I/O) finished before the next interval. */
  const intervals = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await vi.advanceTimersByTimeAsync(3000);
      await schedule.running();
    }
  };
  return { dir, folder: join(dir, SCHEDULED_SUBDIR), lines, schedule, outcomes, intervals };
}

const summaryOf = (file: string): BackupSummary => ({ file, bytes: 3, at: new Date().toISOString(), engine: "pglite", migration: "m", rows: { users: 1 }, sha256: "x", ms: 1, snapshotMs: 1 });

/** A backup that writes its file at once (a header of this instant). */
const writing = async (file: string) => {
  fakeBackup(join(file, ".."), file.slice(file.lastIndexOf("/") + 1), new Date());
  return summaryOf(file);
};

describe("scheduled backups", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-11-28T10:00:00Z") }));
  afterEach(() => vi.useRealTimers());

  it("takes one every interval and keeps exactly BACKUP_KEEP, the newest", async () => {
    const { folder, lines, schedule, outcomes, intervals } = setup(writing, 2);
    await vi.advanceTimersByTimeAsync(2999);
    expect(outcomes.ok).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await schedule.running();
    expect(readdirSync(folder)).toEqual(["snakes-backup-20261128T100003Z.jsonl.gz"]);
    await intervals(4);
    expect(outcomes.ok).toBe(5);
    expect(readdirSync(folder).sort()).toEqual(["snakes-backup-20261128T100012Z.jsonl.gz", "snakes-backup-20261128T100015Z.jsonl.gz"]);
    const written = lines.filter((l) => l.msg === "scheduled backup written");
    expect(written).toHaveLength(5);
    expect(written[0]).toMatchObject({ level: 30, bytes: 3, ms: 1, removed: [] });
    expect(written[2].removed).toEqual(["snakes-backup-20261128T100003Z.jsonl.gz"]);
    await schedule.stop();
  });

  it("a failure is one error line per interval, removes nothing, and the next interval tries again", async () => {
    let fail = false;
    const { folder, lines, schedule, outcomes, intervals } = setup(async (file) => {
      if (fail) throw new Error("ENOSPC: no space left on device");
      return writing(file);
    }, 2);
    await intervals(2);
    const before = readdirSync(folder).sort();
    expect(before).toHaveLength(2);
    fail = true;
    await intervals(3);
    expect(outcomes.failed).toBe(3);
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ msg: expect.stringMatching(/^scheduled backup failed/), error: "ENOSPC: no space left on device", next_in_s: 3 });
    expect(errors[0].err?.stack).toBeUndefined();
    expect(readdirSync(folder).sort()).toEqual(before);
    fail = false;
    await intervals(1);
    expect(outcomes.ok).toBe(3);
    await schedule.stop();
  });

  it("never overlaps: the next interval counts from the end of a slow backup; stop() waits for it", async () => {
    const started: number[] = [];
    let finish: () => void = () => {};
    const { schedule } = setup(async (file) => {
      started.push(Date.now());
      await new Promise<void>((r) => (finish = r));
      return writing(file);
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000); // still writing: no second one
    expect(started).toHaveLength(1);
    finish();
    await schedule.running();
    await vi.advanceTimersByTimeAsync(2999);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(2);
    let stopped = false;
    const stopping = schedule.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started).toHaveLength(2);
  });
});

describe("rotation", () => {
  it("removes only complete scheduled backups beyond keep, oldest first", async () => {
    const folder = mkdtempSync(join(tmpdir(), "snakes-rotate-"));
    const names = [
      "snakes-backup-20261128T100000Z.jsonl.gz",
      "snakes-backup-20261128T100003Z.jsonl.gz",
      "snakes-backup-20261128T100006Z.jsonl.gz",
      ".snakes-backup-20261128T100009Z.jsonl.gz.123.ab12.partial",
      "snakes-backup-20261128T090000Z-before-20261201000000_x.jsonl.gz",
      "notes.txt",
    ];
    names.forEach((n, i) => fakeBackup(folder, n, new Date(Date.parse("2026-11-28T10:00:00Z") + i * 3000)));
    expect(rotate(folder, 1)).toEqual(["snakes-backup-20261128T100000Z.jsonl.gz", "snakes-backup-20261128T100003Z.jsonl.gz"]);
    expect(readdirSync(folder).sort()).toEqual([names[3], names[4], names[2], names[5]].sort());
    expect(rotate(join(folder, "missing"), 1)).toEqual([]);
  });

  it("orders by the instant inside each file, not its name, and never removes the backup just written", () => {
    const folder = mkdtempSync(join(tmpdir(), "snakes-rotate-"));
    // Named as if old, but written last: the instant inside says so, and it is the one kept.
    fakeBackup(folder, "snakes-backup-20261101T000000Z.jsonl.gz", new Date("2026-11-28T12:00:00Z"));
    fakeBackup(folder, "snakes-backup-20261128T110000Z.jsonl.gz", new Date("2026-11-28T11:00:00Z"));
    expect(rotate(folder, 1)).toEqual(["snakes-backup-20261128T110000Z.jsonl.gz"]);
    expect(rotate(folder, 0)).toEqual([]); // at least one good backup stays
    rmSync(join(folder, "snakes-backup-20261101T000000Z.jsonl.gz"));
    // Written while the clock was a day ahead: their instants are in the future.
    fakeBackup(folder, "snakes-backup-20261129T100000Z.jsonl.gz", new Date("2026-11-29T10:00:00Z"));
    fakeBackup(folder, "snakes-backup-20261129T100003Z.jsonl.gz", new Date("2026-11-29T10:00:03Z"));
    const just = fakeBackup(folder, "snakes-backup-20261128T100000Z.jsonl.gz", new Date("2026-11-28T10:00:00Z"));
    expect(rotate(folder, 1, just)).toEqual(["snakes-backup-20261129T100000Z.jsonl.gz", "snakes-backup-20261129T100003Z.jsonl.gz"]);
    expect(readdirSync(folder)).toEqual(["snakes-backup-20261128T100000Z.jsonl.gz"]);
  });

  it("counts only files with a readable header, keeps at least one, and removes nothing it cannot read", () => {
    const folder = mkdtempSync(join(tmpdir(), "snakes-rotate-"));
    writeFileSync(join(folder, "snakes-backup-20261128T100000Z.jsonl.gz"), "not a backup");
    writeFileSync(join(folder, "snakes-backup-20261128T100001Z.jsonl.gz"), "");
    const good = fakeBackup(folder, "snakes-backup-20261128T090000Z.jsonl.gz", new Date("2026-11-28T09:00:00Z"));
    expect(rotate(folder, 0)).toEqual([]);
    expect(readdirSync(folder)).toHaveLength(3);
    expect(backupInstant(good)).toBe(Date.parse("2026-11-28T09:00:00Z"));
    // A name that is the second of its second (two backups at once) is a scheduled backup too.
    fakeBackup(folder, "snakes-backup-20261128T090000Z-2.jsonl.gz", new Date("2026-11-28T09:00:00.5Z"));
    expect(rotate(folder, 1)).toEqual(["snakes-backup-20261128T090000Z.jsonl.gz"]);
  });
});

describe("the first backup after a start", () => {
  it("comes an interval after the newest backup, not sooner than a minute (or BACKUP_EVERY), not later than BACKUP_EVERY", () => {
    const folder = mkdtempSync(join(tmpdir(), "snakes-first-"));
    const now = Date.parse("2026-11-28T10:00:00Z");
    const hour = 3600_000;
    expect(firstDelayMs(folder, hour, now)).toBe(FIRST_BACKUP_AFTER_MS); // none yet: soon
    expect(firstDelayMs(folder, 3000, now)).toBe(3000);
    fakeBackup(folder, "snakes-backup-20261128T060000Z.jsonl.gz", new Date(now - 4 * hour));
    expect(firstDelayMs(folder, hour, now)).toBe(FIRST_BACKUP_AFTER_MS); // a long stop: not an hour late
    fakeBackup(folder, "snakes-backup-20261128T094000Z.jsonl.gz", new Date(now - 20 * 60_000));
    expect(firstDelayMs(folder, hour, now)).toBe(40 * 60_000); // a restart: one per interval still
    fakeBackup(folder, "snakes-backup-20261129T100000Z.jsonl.gz", new Date(now + 24 * hour));
    expect(firstDelayMs(folder, hour, now)).toBe(hour); // a clock that was ahead: never later than an interval
  });
});
