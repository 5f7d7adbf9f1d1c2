// Issue 41, the writing side of backups: a backup never lands on a file it did not create, nor
// inside DATA_DIR (links resolved), and never harms its disk. Through a running server: `--out` an
// existing file, DATA_DIR/pglite/PG_VERSION, DATA_DIR/pglite.lock (the folder still belongs to one
// server), a link into DATA_DIR, and the same asked of the server directly (it checks too); two
// backups at once give two files; folders are created 0700; a failed backup tells the operator the
// reason the server logged; BACKUP_DIR inside DATA_DIR refuses the start in one line. In this
// process, with faults injected at the file layer (src/backup/write.ts's seam: no root tricks, no
// tmpfs): a full or read-only disk fails the write at once (no hang), leaves no partial (nor any a
// dead writer left), is one error line per interval and a counted failure, and the next interval
// runs; the backup before a migration fails in its one line with no partial; the folder copy is
// refused in one line when the disk lacks room for it.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, inject, it, vi } from "vitest";
import { runAdmin } from "../../src/admin/main.js";
import { readAdminEndpoint, runInServer } from "../../src/admin/endpoint.js";
import { takeBackup, verifyBackup } from "../../src/backup/index.js";
import { BackupSpaceError, checkRoomForCopy } from "../../src/backup/embedded.js";
import { backupBeforeMigrating, PreMigrationBackupError } from "../../src/backup/preMigration.js";
import { scheduleBackups, SCHEDULED_SUBDIR } from "../../src/backup/schedule.js";
import { injectBackupWriteFault } from "../../src/backup/write.js";
import { openDatabase, type Database } from "../../src/db/client.js";
import { createLogger } from "../../src/ops/logger.js";
import { bootEntry, freePort, migratedDataDir, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 }); // servers and backup processes: slow on a shared machine

const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

const serverEnv = async (env: Record<string, string>) => ({ PORT: String(await freePort()), SAMPLE_PORT: "0", LOG_LEVEL: "info", PASSWORD_HASH_COST: "1024", BACKUP_EVERY: "off", ...env });

async function admin(args: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: { NODE_ENV: "development", PASSWORD_HASH_COST: "1024", ...env }, out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stdout, stderr, lines: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
}

function expectRefusal(res: Awaited<ReturnType<typeof admin>>, pattern: RegExp): void {
  expect(res.code, res.stderr).toBe(2);
  expect(res.stdout).toBe("");
  expect(res.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(res.stderr).toMatch(pattern);
}

const partials = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".partial")) : []);

describe("where admin backup --out may land", () => {
  it("never an existing file (without --force), never inside DATA_DIR, links resolved: the folder still belongs to one server", async () => {
    const dataDir = await migratedDataDir("snakes-target-");
    const outside = mkdtempSync(join(tmpdir(), "snakes-target-out-"));
    const env = { DATA_DIR: dataDir };
    const { proc } = await bootEntry(await serverEnv(env), running);

    const existing = join(outside, "notes.txt");
    writeFileSync(existing, "keep me");
    expectRefusal(await admin(["backup", "--out", existing], env), /already exists: .*--force/);
    expect(readFileSync(existing, "utf8")).toBe("keep me");

    const pgVersion = join(dataDir, "pglite", "PG_VERSION");
    const version = readFileSync(pgVersion, "utf8");
    expectRefusal(await admin(["backup", "--out", pgVersion], env), /is inside DATA_DIR/);
    expectRefusal(await admin(["backup", "--out", pgVersion, "--force"], env), /is inside DATA_DIR/);
    expect(readFileSync(pgVersion, "utf8")).toBe(version);

    const lock = join(dataDir, "pglite.lock");
    const lockBefore = lstatSync(lock);
    const lockContent = readFileSync(lock);
    expectRefusal(await admin(["backup", "--out", lock, "--force"], env), /is inside DATA_DIR/);
    // Through a link from elsewhere into DATA_DIR: still inside.
    const link = join(outside, "into-data");
    symlinkSync(dataDir, link);
    expectRefusal(await admin(["backup", "--out", join(link, "pglite.lock")], env), /is inside DATA_DIR/);
    expectRefusal(await admin(["backup", "--out", join(link, "new.jsonl.gz")], env), /is inside DATA_DIR/);
    // The server checks what it is asked too, whoever asks (a command that skipped the client's checks).
    const endpoint = readAdminEndpoint(dataDir)!;
    const direct = await runInServer(endpoint, { command: "backup", values: { out: lock, force: "true" }, positionals: [] });
    expect(direct).toMatchObject({ code: 2, stdout: [], stderr: [expect.stringMatching(/inside DATA_DIR/)] });
    expect(lstatSync(lock).ino).toBe(lockBefore.ino);
    expect(readFileSync(lock).equals(lockContent)).toBe(true);
    // The folder still belongs to one server: a second one on it is refused.
    const second = runEntry("src/index.ts", await serverEnv(env));
    running.push(second);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).toMatch(/in use|already/i);

    // --force replaces an earlier backup file outside DATA_DIR (and nothing else: not a folder's database file).
    const earlier = join(outside, "earlier.jsonl.gz");
    expect((await admin(["backup", "--out", earlier], env)).code).toBe(0);
    const first = statSync(earlier).ino;
    const replaced = await admin(["backup", "--out", earlier, "--force"], env);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(statSync(earlier).ino).not.toBe(first);
    await verifyBackup(earlier);
    const otherDb = mkdtempSync(join(tmpdir(), "snakes-target-otherdb-"));
    writeFileSync(join(otherDb, "PG_VERSION"), "17\n");
    writeFileSync(join(otherDb, "pg_control"), "x");
    expectRefusal(await admin(["backup", "--out", join(otherDb, "pg_control"), "--force"], env), /a database's file/);
    expect(readFileSync(join(otherDb, "pg_control"), "utf8")).toBe("x");
    expect(partials(outside)).toEqual([]);
    await proc.stop("SIGTERM");
  });

  it("two backups at once give two files, in folders made 0700; a failure says the reason the server logged", async () => {
    const dataDir = await migratedDataDir("snakes-target-two-");
    const backupDir = join(mkdtempSync(join(tmpdir(), "snakes-target-two-out-")), "new", "backups");
    const env = { DATA_DIR: dataDir, BACKUP_DIR: backupDir };
    const { proc } = await bootEntry(await serverEnv(env), running);
    const [a, b] = await Promise.all([admin(["backup"], env), admin(["backup"], env)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.lines[0].file).not.toBe(b.lines[0].file);
    expect(readdirSync(backupDir).sort()).toEqual([a.lines[0].file, b.lines[0].file].map((f: string) => f.split("/").at(-1)).sort());
    for (const f of [a.lines[0].file, b.lines[0].file]) await verifyBackup(f);
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(backupDir, "..")).mode & 0o777).toBe(0o700);
    // A folder with a new name in it: `--out DIR/`.
    const intoFolder = await admin(["backup", "--out", `${join(backupDir, "by-hand")}/`], env);
    expect(intoFolder.code, intoFolder.stderr).toBe(0);
    expect(intoFolder.lines[0].file).toMatch(/by-hand\/snakes-backup-\d{8}T\d{6}Z(-\d+)?\.jsonl\.gz$/);

    // The backup fails (its folder cannot be made): the operator reads why, not "refused: 500".
    const blocker = join(backupDir, "a-file");
    writeFileSync(blocker, "not a folder");
    const failed = await admin(["backup", "--out", join(blocker, "x.jsonl.gz")], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(failed.stderr).toMatch(/^error: the backup failed: .*(ENOTDIR|EEXIST)/);
    expect(failed.stderr).not.toMatch(/refused|500/);
    // The server's log line may reach its stdout a moment after the command's answer: wait for it.
    const failureLines = () => proc.stdout().split("\n").filter((l) => l.includes('"admin backup failed"'));
    await vi.waitFor(() => expect(failureLines().length).toBeGreaterThan(0), { timeout: 10_000, interval: 50 });
    const logged = failureLines().map((l) => JSON.parse(l));
    expect(logged).toHaveLength(1);
    expect(failed.stderr).toContain(logged[0].error);
    await proc.stop("SIGTERM");
  });

  it("BACKUP_DIR inside DATA_DIR (or reaching it through a link) refuses the start in one line", async () => {
    const dataDir = await migratedDataDir("snakes-target-inside-");
    const inside = runEntry("src/index.ts", await serverEnv({ DATA_DIR: dataDir, BACKUP_DIR: join(dataDir, "backups") }));
    running.push(inside);
    expect(await inside.exited).toBe(2);
    expect(inside.stderr()).toMatch(/BACKUP_DIR \(.*\) is inside DATA_DIR/);
    expect(inside.stderr().split("\n").filter((l) => /BACKUP_DIR/.test(l))).toHaveLength(1);
    const link = join(mkdtempSync(join(tmpdir(), "snakes-target-link-")), "backups");
    symlinkSync(join(dataDir, "pglite"), link);
    const linked = await admin(["list-api-keys"], { DATA_DIR: dataDir, BACKUP_DIR: join(link, "b") });
    expect(linked.code).toBe(2);
    expect(linked.stderr).toMatch(/BACKUP_DIR \(.*\) is inside DATA_DIR/);
  });
});

describe("a backup that fails never harms its disk", () => {
  let db: Database;
  afterEach(async () => {
    injectBackupWriteFault(undefined);
    await db?.close();
  });
  const open = async () => (db = await openDatabase({ pgliteLoadDataDir: new Blob([readFileSync(inject("pgliteTemplate"))]) }));
  const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  const erofs = () => Object.assign(new Error("EROFS: read-only file system, open"), { code: "EROFS" });

  it("a full disk rejects the write at once, and leaves no partial, nor one a dead writer left", async () => {
    await open();
    const folder = mkdtempSync(join(tmpdir(), "snakes-enospc-"));
    const stale = join(folder, ".snakes-backup-20261128T000000Z.jsonl.gz.999999999.0badf00d.partial");
    writeFileSync(stale, "left by a kill -9");
    injectBackupWriteFault(({ phase, bytes }) => (phase === "write" && bytes > 0 ? enospc() : undefined));
    await expect(takeBackup(db, { folder })).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(folder)).toEqual([]);
    injectBackupWriteFault(({ phase }) => (phase === "open" ? erofs() : undefined));
    await expect(takeBackup(db, join(folder, "x.jsonl.gz"))).rejects.toThrow(/EROFS/);
    expect(readdirSync(folder)).toEqual([]);
    injectBackupWriteFault(undefined);
    const ok = await takeBackup(db, { folder });
    await verifyBackup(ok.file);
    expect(readdirSync(folder)).toHaveLength(1);
  });

  it("on the schedule: one error line per interval, each counted, and the next interval still runs", async () => {
    await open();
    const dir = mkdtempSync(join(tmpdir(), "snakes-enospc-sched-"));
    const lines: Array<Record<string, any>> = [];
    const logger = createLogger("info", {}, { destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    const outcomes = { ok: 0, failed: 0 };
    injectBackupWriteFault(({ phase, bytes }) => (phase === "write" && bytes > 0 ? enospc() : undefined));
    const schedule = scheduleBackups({ everyMs: 150, keep: 2, dir, backup: (target) => takeBackup(db, target), logger, onSuccess: () => outcomes.ok++, onFailure: () => outcomes.failed++ });
    try {
      await waitFor(async () => (outcomes.failed >= 3 ? true : undefined), 30_000, "three failed intervals");
      const errors = lines.filter((l) => l.level === 50);
      expect(errors.length).toBe(outcomes.failed);
      expect(errors[0]).toMatchObject({ msg: expect.stringMatching(/^scheduled backup failed/), error: expect.stringMatching(/ENOSPC/) });
      expect(partials(join(dir, SCHEDULED_SUBDIR))).toEqual([]);
      injectBackupWriteFault(undefined);
      await waitFor(async () => (outcomes.ok >= 1 ? true : undefined), 30_000, "a backup after the disk has room again");
    } finally {
      await schedule.stop();
    }
    const files = readdirSync(join(dir, SCHEDULED_SUBDIR));
    expect(files.length).toBeGreaterThanOrEqual(1);
    expect(partials(join(dir, SCHEDULED_SUBDIR))).toEqual([]);
  });

  it("the backup before a migration on a full BACKUP_DIR: its one line, nothing migrated, no partial", async () => {
    await open();
    const [{ name }] = await db.prisma.$queryRaw<{ name: string }[]>`SELECT migration_name AS name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`;
    await db.prisma.$executeRaw`DELETE FROM _prisma_migrations WHERE migration_name = ${name}`; // as if the last one were pending
    const backupDir = mkdtempSync(join(tmpdir(), "snakes-enospc-premig-"));
    injectBackupWriteFault(({ phase, bytes }) => (phase === "write" && bytes > 0 ? enospc() : undefined));
    const failure = await backupBeforeMigrating(db, backupDir).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PreMigrationBackupError);
    const message = (failure as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(/^BACKUP_DIR \(.*\): could not back up the database before migrating it \(ENOSPC.*\); nothing was migrated/);
    expect(partials(join(backupDir, "pre-migration"))).toEqual([]);
  });

  it("the copy of the embedded folder is refused in one line when its disk lacks room", async () => {
    const folder = mkdtempSync(join(tmpdir(), "snakes-room-"));
    mkdirSync(join(folder, "base"));
    writeFileSync(join(folder, "base", "1"), Buffer.alloc(1024 * 1024));
    const refusal = await checkRoomForCopy(folder, 10 * 1024 * 1024).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BackupSpaceError);
    expect((refusal as Error).message).toMatch(/^not enough free space beside .* it needs 65 MB .* 10 MB are free; nothing was copied/);
    await checkRoomForCopy(folder, 1024 * 1024 * 1024);
    await checkRoomForCopy(folder); // this machine's disk has room for a megabyte
  });
});
