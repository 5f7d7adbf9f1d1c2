// Where a backup may land (src/backup/target.ts, issue 41): never inside DATA_DIR (links resolved,
// paths that do not exist yet included), never over an existing file without --force, never over a
// database's file even with it; a folder gets a new name; names count up within a second.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupDirProblem, backupFileName, BackupTargetRefusal, checkBackupTarget, isInside } from "../../src/backup/target.js";

const fresh = () => {
  const root = mkdtempSync(join(tmpdir(), "snakes-target-unit-"));
  const dataDir = join(root, "data");
  mkdirSync(join(dataDir, "pglite"), { recursive: true });
  writeFileSync(join(dataDir, "pglite", "PG_VERSION"), "17\n");
  writeFileSync(join(dataDir, "pglite.lock"), "123");
  return { root, dataDir };
};

describe("backup targets", () => {
  it("refuses anything inside DATA_DIR, through links too, with or without --force", () => {
    const { root, dataDir } = fresh();
    symlinkSync(dataDir, join(root, "link"));
    for (const out of [join(dataDir, "pglite", "PG_VERSION"), join(dataDir, "pglite.lock"), join(dataDir, "new", "x.gz"), join(root, "link", "x.gz"), `${dataDir}/`, join(root, "data", "..", "data", "y")]) {
      for (const force of [false, true]) expect(() => checkBackupTarget(out, { dataDir, force }), out).toThrow(/inside DATA_DIR/);
    }
    expect(isInside(join(root, "data-backups", "x"), dataDir)).toBe(false); // a sibling whose name starts the same
  });

  it("refuses an existing file without --force, a database's file or a non-file even with it; a folder gets a new name", () => {
    const { root, dataDir } = fresh();
    const file = join(root, "earlier.jsonl.gz");
    writeFileSync(file, "x");
    expect(() => checkBackupTarget(file, { dataDir })).toThrow(BackupTargetRefusal);
    expect(checkBackupTarget(file, { dataDir, force: true })).toEqual({ file, force: true });
    const other = join(root, "other-db");
    mkdirSync(join(other, "base"), { recursive: true });
    writeFileSync(join(other, "PG_VERSION"), "17\n");
    writeFileSync(join(other, "base", "1"), "x");
    expect(() => checkBackupTarget(join(other, "base", "1"), { dataDir, force: true })).toThrow(/a database's file/);
    expect(checkBackupTarget(root, { dataDir })).toEqual({ folder: root });
    expect(checkBackupTarget(`${join(root, "new")}/`, { dataDir })).toEqual({ folder: join(root, "new") });
    expect(checkBackupTarget(join(root, "new.jsonl.gz"), { dataDir })).toEqual({ file: join(root, "new.jsonl.gz"), force: false });
  });

  it("BACKUP_DIR inside DATA_DIR is a one-line problem; beside it is fine", () => {
    const { root, dataDir } = fresh();
    expect(backupDirProblem(join(dataDir, "b"), dataDir)).toMatch(/^BACKUP_DIR \(.*\) is inside DATA_DIR/);
    expect(backupDirProblem(join(root, "data-backups"), dataDir)).toBeUndefined();
    expect(backupDirProblem(undefined, dataDir)).toBeUndefined();
  });

  it("names: the second's name, then -2, -3 on a collision, with a suffix kept last", () => {
    const at = new Date("2026-11-28T21:24:51.123Z");
    expect(backupFileName(at)).toBe("snakes-backup-20261128T212451Z.jsonl.gz");
    expect(backupFileName(at, "", 2)).toBe("snakes-backup-20261128T212451Z-2.jsonl.gz");
    expect(backupFileName(at, "-before-m1", 3)).toBe("snakes-backup-20261128T212451Z-3-before-m1.jsonl.gz");
  });
});
