// Issue 24: no instant of a first start or an upgrade leaves an embedded database that does not
// start. A preload (test/helpers/killAtWrite.mjs) SIGKILLs the process that is about to make the
// N-th write to the data folder (the server's own process or its preparing child, whichever writes);
// a normal start afterwards must succeed with the data intact. Swept over every k-th write of a whole
// first start and of a whole upgrade (a folder made by an older version, two migrations pending),
// and over the last writes of each (the renames that put a database in place).
//
// k: npm test samples KILL_SWEEP_FIRST_START (default 2) points of a first start (~4,840 writes:
// k ≈ 2,400) plus its last write, and KILL_SWEEP_UPGRADE (default 5) points of an upgrade (~670
// writes: k ≈ 130) plus its last 3 (KILL_SWEEP_UPGRADE_LAST: the swap); `npm run test:kill-sweep`
// samples 24 points of a first start (k ≈ 200) and 60 of an upgrade (k ≈ 11) plus its last 40.
// A kill that leaves no database folder makes the next start a first start: the first such case is
// started for real, the others must have left only working copies beside it (their next start is
// the same first start); the long sweep starts every one.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { listMigrations, migrationsDir } from "../../src/db/migrate.js";
import { READY_MARK } from "../../src/db/prepareEmbedded.js";
import { buildPgliteTemplate } from "../helpers/templates.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const preload = fileURLToPath(new URL("../helpers/killAtWrite.mjs", import.meta.url));
const exitWithParent = fileURLToPath(new URL("../helpers/exitWithParent.mjs", import.meta.url));
const opener = fileURLToPath(new URL("../helpers/openEmbedded.ts", import.meta.url));

const FIRST_START_SAMPLES = Number(process.env.KILL_SWEEP_FIRST_START ?? 2);
const UPGRADE_SAMPLES = Number(process.env.KILL_SWEEP_UPGRADE ?? 5);
const UPGRADE_LAST = Number(process.env.KILL_SWEEP_UPGRADE_LAST ?? 3);
const START_EVERY_FIRST_START = process.env.KILL_SWEEP_FULL === "1";
const CONCURRENCY = 2;

const scratch = mkdtempSync(join(tmpdir(), "snakes-killsweep-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  writes: number;
}

/** Opens the embedded database of dataDir as a start does, dying before write `killAt` (0: never). */
function start(dataDir: string, killAt = 0): Promise<Run> {
  const counter = `${dataDir}.writes`;
  rmSync(counter, { force: true });
  const child = spawn(process.execPath, ["--import", "tsx", "--import", exitWithParent, "--import", preload, opener, join(dataDir, "pglite")], {
    cwd: root,
    env: { ...process.env, KILL_ROOT: dataDir, KILL_COUNTER: counter, KILL_AT: String(killAt) },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, out, err, writes: existsSync(counter) ? statSync(counter).size : 0 })),
  );
}

/** Killed at the planned write: the process itself, or its child (the start then fails). */
function expectKilled(run: Run, at: number) {
  expect(run.code === 0, `the start survived write ${at}: ${run.out}`).toBe(false);
  if (run.signal !== "SIGKILL") expect(run.err).toMatch(/preparing the embedded database failed \(exit SIGKILL\)/);
}

/** Every migration applied, the seeded player (when given) there, and a write works. */
async function expectIntact(dataDir: string, seeded?: { username: string; character: string }) {
  const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
  try {
    const applied = await db.pglite!.query<{ migration_name: string }>(
      "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name",
    );
    expect(applied.rows.map((r) => r.migration_name)).toEqual((await listMigrations()).migrationDirectories.map((m) => m.path));
    if (seeded) {
      const rows = await db.pglite!.query<{ username: string; character: string; session_epoch: number }>(
        "SELECT u.username, p.character, u.session_epoch FROM users u JOIN game_progress p ON p.user_id = u.id",
      );
      expect(rows.rows).toEqual([{ ...seeded, session_epoch: 0 }]);
    }
    await db.pglite!.query("INSERT INTO revoked_sessions (sid, subject, expires_at) VALUES ('s', 'u', now())");
  } finally {
    await db.close();
  }
  expect(existsSync(join(dataDir, "pglite", READY_MARK))).toBe(true);
}

/** Only the working copies of an interrupted start may be left beside a missing database. */
function expectOnlyWorkingCopies(dataDir: string) {
  const left = readdirSync(dataDir).filter((n) => !/^pglite\.(new|upgrade|old|lock.*)$/.test(n));
  expect(left).toEqual([]);
}

/** `count` write numbers spread over 1..total (every k-th), plus the last `last` writes. */
function samples(total: number, count: number, last = 0): { points: number[]; k: number } {
  const k = Math.max(1, Math.floor(total / count));
  const points = new Set<number>();
  for (let n = Math.ceil(k / 2); n <= total && points.size < count; n += k) points.add(n);
  for (let n = Math.max(1, total - last + 1); n <= total; n++) points.add(n);
  return { points: [...points].sort((a, b) => a - b), k };
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

/** A DATA_DIR holding what an older version made: its migrations minus the last two, one player. */
async function olderDataDir(template: string, name: string): Promise<string> {
  const dataDir = join(scratch, name);
  cpSync(template, dataDir, { recursive: true });
  return dataDir;
}

const PLAYER = { username: "ada", character: "archer" };

describe("a kill at any write of a first start or an upgrade leaves a database that starts (issue 24)", () => {
  let olderTemplate: string;

  beforeAll(async () => {
    const tarball = await buildPgliteTemplate(2);
    olderTemplate = join(scratch, "older-template");
    const db = await openDatabase({ pgliteDataDir: join(olderTemplate, "pglite"), pgliteLoadDataDir: new Blob([readFileSync(tarball)]) });
    await db.pglite!.query(`INSERT INTO users (username, password_hash, updated_at) VALUES ($1, 'x', now())`, [PLAYER.username]);
    await db.pglite!.query(`INSERT INTO game_progress (user_id, character) SELECT id, $1 FROM users`, [PLAYER.character]);
    await db.close();
  }, 120_000);

  it("first start: every sampled kill, then a normal start succeeds", async () => {
    const baseline = join(scratch, "first-baseline");
    const full = await start(baseline);
    expect(full.code, full.err).toBe(0);
    expect(JSON.parse(full.out.trim())).toHaveLength((await listMigrations()).migrationDirectories.length);
    await expectIntact(baseline);
    const { points, k } = samples(full.writes, FIRST_START_SAMPLES, START_EVERY_FIRST_START ? 3 : 1);
    console.log(`first start: ${full.writes} writes, k = ${k}, killed before writes ${points.join(", ")}`);
    let startedFromNothing = false;
    await inParallel(points, async (at) => {
      const dataDir = join(scratch, `first-${at}`);
      expectKilled(await start(dataDir, at), at);
      if (!existsSync(join(dataDir, "pglite"))) {
        expectOnlyWorkingCopies(dataDir);
        if (startedFromNothing && !START_EVERY_FIRST_START) return;
        startedFromNothing = true;
      }
      const again = await start(dataDir);
      expect(again.code, `after a kill before write ${at}: ${again.err}`).toBe(0);
      await expectIntact(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    });
  }, 600_000);

  it("upgrade (two migrations pending): every sampled kill, then a normal start succeeds with the data", async () => {
    const baseline = await olderDataDir(olderTemplate, "upgrade-baseline");
    const full = await start(baseline);
    expect(full.code, full.err).toBe(0);
    expect(JSON.parse(full.out.trim())).toHaveLength(2);
    await expectIntact(baseline, PLAYER);
    const { points, k } = samples(full.writes, UPGRADE_SAMPLES, UPGRADE_LAST);
    console.log(`upgrade: ${full.writes} writes, k = ${k}, killed before writes ${points.join(", ")}`);
    await inParallel(points, async (at) => {
      const dataDir = await olderDataDir(olderTemplate, `upgrade-${at}`);
      expectKilled(await start(dataDir, at), at);
      expect(existsSync(join(dataDir, "pglite")) || existsSync(join(dataDir, "pglite.old")), `before write ${at}`).toBe(true);
      const again = await start(dataDir);
      expect(again.code, `after a kill before write ${at}: ${again.err}`).toBe(0);
      await expectIntact(dataDir, PLAYER);
      rmSync(dataDir, { recursive: true, force: true });
    });
  }, 600_000);

  describe("a migration an older version left unfinished (Prisma P3009)", () => {
    /** The older folder with the next migration recorded as started and never finished, its script applied or not. */
    async function leftUnfinished(name: string, scriptApplied: boolean): Promise<string> {
      const dataDir = await olderDataDir(olderTemplate, name);
      const next = (await listMigrations()).migrationDirectories.at(-2)!.path;
      const script = readFileSync(join(migrationsDir, next, "migration.sql"), "utf8");
      const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
      await db.pglite!.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
        [`unfinished-${name}`, createHash("sha256").update(script).digest("hex"), next],
      );
      if (scriptApplied) await db.pglite!.exec(script);
      await db.close();
      return dataDir;
    }

    it("is settled at start: a migration whose script had not run is applied again", async () => {
      const dataDir = await leftUnfinished("p3009-not-applied", false);
      const run = await start(dataDir);
      expect(run.code, run.err).toBe(0);
      await expectIntact(dataDir, PLAYER);
    }, 120_000);

    it("is settled by npm run db:migrate too: a migration whose script had run is recorded as finished", async () => {
      const dataDir = await leftUnfinished("p3009-applied", true);
      const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts/db-migrate.ts")], {
          cwd: root,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dataDir },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout!.on("data", (d) => (out += d));
        child.stderr!.on("data", (d) => (out += d));
        child.once("exit", (code) => resolve({ code, out }));
      });
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/applied to pglite:/);
      await expectIntact(dataDir, PLAYER);
    }, 120_000);
  });

  it("an older version's first start cut short after initdb wrote PG_VERSION is created afresh", async () => {
    const dataDir = join(scratch, "half-initdb");
    cpSync(join(olderTemplate, "pglite"), join(dataDir, "pglite"), { recursive: true });
    rmSync(join(dataDir, "pglite", "global"), { recursive: true });
    writeFileSync(join(dataDir, "pglite", "PG_VERSION"), "17\n");
    const run = await start(dataDir);
    expect(run.code, run.err).toBe(0);
    await expectIntact(dataDir);
  }, 300_000);
});
