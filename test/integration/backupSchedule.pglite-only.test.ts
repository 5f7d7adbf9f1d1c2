// Issue 34, the operator's side of backups, on servers started as `npm start` starts them:
// BACKUP_EVERY=3s BACKUP_KEEP=2 keeps exactly two and the newest restores (every account logs in);
// /metrics shows the last backup; a backup folder that cannot be written is one error line per
// interval while the server serves on; a start that migrates an existing database backs it up
// first (apart from the rotation), and refuses to migrate when it cannot. Runs once, on PGlite.
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runAdmin } from "../../src/admin/main.js";
import { PRE_MIGRATION_SUBDIR, SCHEDULED_SUBDIR } from "../../src/backup/schedule.js";
import { listMigrations } from "../../src/db/migrate.js";
import { HttpClient } from "../helpers/app.js";
import { buildOlderFolder, expectIntact, PLAYER } from "../helpers/embeddedStarts.js";
import { bootEntry, freePort, migratedDataDir, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";

// Each embedded backup starts a process of its own (src/backup/embedded.ts): seconds each on a busy machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const running: ServerProcess[] = [];
const METRICS_TOKEN = "metrics-token-0123456789";
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

// Kept outside DATA_DIR, as production's JWT_SECRET is: the drill's restores come after the folder is gone (issue 41).
const BACKUP_KEY = "backup-drill-key-0123456789abcdefghijklmnop";
const serverEnv = async (env: Record<string, string>) => ({
  BACKUP_KEY,
  PORT: String(await freePort()),
  SAMPLE_PORT: "0",
  LOG_LEVEL: "info",
  PASSWORD_HASH_COST: "1024",
  METRICS_TOKEN,
  ...env,
});

/** The server's JSON log lines with message `msg`. */
const logLines = (proc: ServerProcess, msg: RegExp) =>
  proc
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((l) => msg.test(l.msg));

async function admin(args: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: { NODE_ENV: "development", PASSWORD_HASH_COST: "1024", BACKUP_KEY, ...env }, out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stdout, stderr };
}

async function metric(base: string, name: string): Promise<number> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

describe("scheduled backups", () => {
  it("BACKUP_EVERY=3s BACKUP_KEEP=2 keeps exactly two, /metrics shows the last, and the newest restores", async () => {
    const dataDir = await migratedDataDir("snakes-sched-");
    const backupDir = mkdtempSync(join(tmpdir(), "snakes-sched-backups-"));
    const { proc, base } = await bootEntry(await serverEnv({ DATA_DIR: dataDir, BACKUP_EVERY: "3s", BACKUP_KEEP: "2", BACKUP_DIR: backupDir }), running);
    expect(await metric(base, "backup_last_success_timestamp_seconds")).toBe(0);
    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "kept", password: "scheduled-1" })).status).toBe(201);
    // A backup made by hand in the same folder is not the schedule's to rotate.
    expect((await admin(["backup", "--out", join(backupDir, "by-hand.jsonl.gz")], { DATA_DIR: dataDir })).code).toBe(0);

    const written = await waitFor(async () => {
      const lines = logLines(proc, /^scheduled backup written$/);
      return lines.length >= 4 ? lines : undefined;
    }, 150_000, "four scheduled backups");
    const files = readdirSync(join(backupDir, SCHEDULED_SUBDIR)).sort();
    expect(files).toHaveLength(2);
    // The two kept are the two newest written (a fifth may have landed meanwhile: compare with the log then).
    const all = logLines(proc, /^scheduled backup written$/).map((l) => l.file.split("/").at(-1));
    expect(files).toEqual(all.slice(-2).sort());
    expect(written[0]).toMatchObject({ level: 30, bytes: expect.any(Number), ms: expect.any(Number) });
    expect(readdirSync(backupDir)).toContain("by-hand.jsonl.gz");
    expect(logLines(proc, /backup failed/)).toEqual([]);

    const newest = join(backupDir, SCHEDULED_SUBDIR, files[1]);
    const last = await metric(base, "backup_last_success_timestamp_seconds");
    expect(last).toBeGreaterThan(Date.now() / 1000 - 30);
    expect(await metric(base, "backup_last_size_bytes")).toBeGreaterThan(0);

    await proc.stop("SIGTERM");
    const restoredDir = mkdtempSync(join(tmpdir(), "snakes-sched-restored-"));
    const restored = await admin(["restore", newest], { DATA_DIR: restoredDir });
    expect(restored.code, restored.stderr).toBe(0);
    const again = await bootEntry(await serverEnv({ DATA_DIR: restoredDir, BACKUP_EVERY: "off" }), running);
    const login = await new HttpClient(again.base).post("/api/auth/login", { username: "kept", password: "scheduled-1" });
    expect(login.status, login.text).toBe(200);
    expect(logLines(again.proc, /^scheduled backups on$/)).toEqual([]);
    await again.proc.stop("SIGTERM");
  });

  it("a backup folder that cannot be written: one error line per interval, and the server serves on", async () => {
    const dataDir = await migratedDataDir("snakes-sched-fail-");
    const blocker = join(mkdtempSync(join(tmpdir(), "snakes-sched-blocked-")), "a-file");
    writeFileSync(blocker, "not a folder");
    const { proc, base } = await bootEntry(await serverEnv({ DATA_DIR: dataDir, BACKUP_EVERY: "2s", BACKUP_DIR: blocker }), running);
    const failures = await waitFor(async () => {
      const lines = logLines(proc, /^scheduled backup failed/);
      return lines.length >= 2 ? lines : undefined;
    }, 30_000, "two failed backups");
    expect(failures[0]).toMatchObject({ level: 50, error: expect.stringMatching(/ENOTDIR|EEXIST|not a directory/i) });
    expect(failures[0].err).toBeUndefined(); // a line, not a stack
    // One per interval: 2 s apart, not once per request.
    expect(Date.parse(failures[1].time) - Date.parse(failures[0].time)).toBeGreaterThanOrEqual(1900);
    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "serves", password: "scheduled-1" })).status).toBe(201);
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    expect(await metric(base, "backup_failures_total")).toBeGreaterThanOrEqual(2);
    expect(proc.stderr()).toBe("");
    await proc.stop("SIGTERM");
  });
});

describe("the backup before a migration", () => {
  it("an older database is backed up before the start migrates it, apart from the rotation, and that backup restores", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snakes-premig-"));
    await buildOlderFolder(dataDir);
    const backupDir = mkdtempSync(join(tmpdir(), "snakes-premig-backups-"));
    const migrations = (await listMigrations()).migrationDirectories.map((m) => m.path);
    const { proc } = await bootEntry(await serverEnv({ DATA_DIR: dataDir, BACKUP_DIR: backupDir, BACKUP_EVERY: "off" }), running);
    const [line] = logLines(proc, /^backup before migrating written$/);
    expect(line).toMatchObject({ level: 30, pending: migrations.slice(-2) });
    const files = readdirSync(join(backupDir, PRE_MIGRATION_SUBDIR));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^snakes-backup-\\d{8}T\\d{6}Z-before-${migrations.at(-2)}\\.jsonl\\.gz$`));
    expect(existsSync(join(backupDir, SCHEDULED_SUBDIR))).toBe(false);
    await proc.stop("SIGTERM");

    // A start with nothing pending makes none.
    const again = await bootEntry(await serverEnv({ DATA_DIR: dataDir, BACKUP_DIR: backupDir, BACKUP_EVERY: "off" }), running);
    expect(logLines(again.proc, /^backup before migrating written$/)).toEqual([]);
    await again.proc.stop("SIGTERM");
    expect(readdirSync(join(backupDir, PRE_MIGRATION_SUBDIR))).toHaveLength(1);

    // The backup holds the database as it was, and restores into this version's schema.
    const restoredDir = mkdtempSync(join(tmpdir(), "snakes-premig-restored-"));
    const restored = await admin(["restore", join(backupDir, PRE_MIGRATION_SUBDIR, files[0])], { DATA_DIR: restoredDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ applied: migrations.slice(-2) });
    await expectIntact(restoredDir, PLAYER);
  });

  it("no backup, no migration: an unwritable BACKUP_DIR stops the start in one line and leaves the database as it was", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snakes-premig-refused-"));
    await buildOlderFolder(dataDir);
    const blocked = mkdtempSync(join(tmpdir(), "snakes-premig-ro-"));
    chmodSync(blocked, 0o500);
    const readOnly = process.getuid?.() !== 0; // root writes anywhere: then a file stands in for the folder
    const backupDir = readOnly ? blocked : join(blocked, "file");
    if (!readOnly) {
      chmodSync(blocked, 0o700);
      writeFileSync(backupDir, "not a folder");
    }
    const proc = runEntry("src/index.ts", await serverEnv({ DATA_DIR: dataDir, BACKUP_DIR: backupDir, BACKUP_EVERY: "off" }));
    running.push(proc);
    expect(await proc.exited).toBe(2);
    const err = proc.stderr().trim().split("\n");
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^BACKUP_DIR \(.*\): could not back up the database before migrating it .*nothing was migrated/);
    // Still the older database: a start with a usable BACKUP_DIR migrates it.
    const ok = await bootEntry(await serverEnv({ DATA_DIR: dataDir, BACKUP_DIR: mkdtempSync(join(tmpdir(), "snakes-premig-ok-")), BACKUP_EVERY: "off" }), running);
    expect(logLines(ok.proc, /^backup before migrating written$/)).toHaveLength(1);
    await ok.proc.stop("SIGTERM");
    await expectIntact(dataDir, PLAYER);
  });
});
