// Issue 24: no instant of a first start or an upgrade leaves an embedded database that does not
// start. A preload (test/helpers/killAtWrite.mjs) SIGKILLs the process that is about to make the
// N-th write to the data folder (the server's own process or its preparing child, whichever writes);
// a normal start afterwards must succeed with the data intact. Swept over every k-th write of a whole
// first start and of a whole upgrade (a folder made by an older version, two migrations pending),
// and over the last writes of each (the renames that put a database in place).
//
// k: npm test samples KILL_SWEEP_FIRST_START (default 2) points of a first start (~3,730 writes from the seed:
// k ≈ 1,865) plus its last write and the rename that puts it in place, and KILL_SWEEP_UPGRADE
// (default 2) points of an upgrade (k = writes / 2) plus its last 2 (KILL_SWEEP_UPGRADE_LAST), the
// writes of the swap (two renames, the old folder's removal, the reopen's postmaster.pid) and the write before each commit of
// the migrating child (inside the migrations: where the old in-place upgrade bricked the folder,
// Prisma's P3009); `npm run test:kill-sweep`
// samples 24 points of a first start (k ≈ 200) plus its last 3, and 60 of an upgrade plus its
// last 40. A kill that leaves no database folder makes the next start a first start: the first
// such case is started for real, the others must have left only working copies beside it (their
// next start is that same first start); the long sweep starts every one.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listMigrations } from "../../src/db/migrate.js";
import { buildOlderFolder, copyOf, expectIntact, PLAYER, start, type Run } from "../helpers/embeddedStarts.js";

const FIRST_START_SAMPLES = Number(process.env.KILL_SWEEP_FIRST_START ?? 2);
const UPGRADE_SAMPLES = Number(process.env.KILL_SWEEP_UPGRADE ?? 2);
const UPGRADE_LAST = Number(process.env.KILL_SWEEP_UPGRADE_LAST ?? 2);
const START_EVERY_FIRST_START = process.env.KILL_SWEEP_FULL === "1";
// One start at a time in npm test, beside the other files; the long sweep runs two.
const CONCURRENCY = Number(process.env.KILL_SWEEP_CONCURRENCY ?? 1);

const scratch = mkdtempSync(join(tmpdir(), "snakes-killsweep-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Killed at the planned write: the process itself, or its child (the start then fails). */
function expectKilled(run: Run, at: number) {
  expect(run.code === 0, `the start survived write ${at}: ${run.out}`).toBe(false);
  if (run.signal !== "SIGKILL") expect(run.err).toMatch(/preparing the embedded database failed \(exit SIGKILL\)/);
}

/** Only the working copies of an interrupted start may be left beside a missing database. */
function expectOnlyWorkingCopies(dataDir: string) {
  const left = readdirSync(dataDir).filter((n) => !/^pglite\.(new|upgrade|old|lock.*)$/.test(n));
  expect(left).toEqual([]);
}

/**
 * The writes just before each commit of the preparing child: the first WAL write of each run of
 * them. Inside a migration these are the instants that matter (its record written, its script not
 * yet committed, or committed and not yet recorded as finished).
 */
function commits(run: Run): number[] {
  const parent = run.log[0]?.pid;
  const out: number[] = [];
  let previousWasWal = false;
  for (const write of run.log) {
    const wal = write.pid !== parent && /\/pg_wal\//.test(write.path);
    if (wal && !previousWasWal) out.push(write.n);
    previousWasWal = wal;
  }
  return out;
}

/**
 * The writes that put a prepared database in place: renames of the folders and the removal of the
 * old one; and PostgreSQL's lock file as the start then opens the database in place (issue 30: a
 * kill between its creation and its first write left it empty, and the folder no longer opened).
 */
function swaps(run: Run): number[] {
  const parent = run.log[0]?.pid;
  const childStarted = run.log.find((w) => w.pid !== parent)?.n ?? Infinity;
  const after = run.log.filter((w) => w.pid === parent && w.n > childStarted);
  const renames = after.filter((w) => /^(renameSync|rmSync) .*\/pglite(\.(new|upgrade|old))?$/.test(w.path)).map((w) => w.n);
  // Its creation and each write (the long sweep), or the first write after its creation (npm test).
  const pidFile = after.filter((w) => /\/pglite\/postmaster\.pid$/.test(w.path)).map((w) => w.n);
  const created = after.find((w) => /^writeFileSync .*\/pglite\/postmaster\.pid$/.test(w.path))?.n;
  return [...renames, ...(START_EVERY_FIRST_START ? pidFile : pidFile.filter((n) => created !== undefined && n === created + 1))];
}

/** `count` write numbers spread over 1..total (every k-th), plus the last `last` writes and `extra`. */
function samples(total: number, count: number, last = 0, extra: number[] = []): { points: number[]; k: number } {
  const k = Math.max(1, Math.floor(total / count));
  const points = new Set<number>(extra);
  for (let i = 0, n = Math.ceil(k / 2); i < count && n <= total; i++, n += k) points.add(n);
  for (let n = Math.max(1, total - last + 1); n <= total; n++) points.add(n);
  return { points: [...points].sort((a, b) => a - b), k };
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

// .ci/run runs the long sweep first and then npm test: this file's short sweep is a subset of it there.
const LONG_SWEEP_RAN = process.env.KILL_SWEEP_RAN === "1";
if (LONG_SWEEP_RAN) console.log("kill sweep: skipped, the long sweep (npm run test:kill-sweep) ran before in this run (KILL_SWEEP_RAN=1)");

describe.skipIf(LONG_SWEEP_RAN)("a kill at any write of a first start or an upgrade leaves a database that starts (issue 24)", () => {
  const older = join(scratch, "older");
  beforeAll(() => buildOlderFolder(older), 120_000);

  it("first start: every sampled kill, then a normal start succeeds", async () => {
    const baseline = join(scratch, "first-baseline");
    const full = await start(baseline);
    expect(full.code, full.err).toBe(0);
    expect(JSON.parse(full.out.trim())).toHaveLength((await listMigrations()).migrationDirectories.length);
    await expectIntact(baseline);
    const { points, k } = samples(full.writes, FIRST_START_SAMPLES, START_EVERY_FIRST_START ? 3 : 1, swaps(full));
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
  }, 1_800_000);

  it("upgrade (two migrations pending): every sampled kill, then a normal start succeeds with the data", async () => {
    const baseline = copyOf(older, join(scratch, "upgrade-baseline"));
    const full = await start(baseline);
    expect(full.code, full.err).toBe(0);
    expect(JSON.parse(full.out.trim())).toHaveLength(2);
    await expectIntact(baseline, PLAYER);
    const { points, k } = samples(full.writes, UPGRADE_SAMPLES, UPGRADE_LAST, [...commits(full), ...swaps(full)]);
    console.log(`upgrade: ${full.writes} writes, k = ${k}, killed before writes ${points.join(", ")} (commits: ${commits(full).join(", ")}; swap: ${swaps(full).join(", ")})`);
    await inParallel(points, async (at) => {
      const dataDir = copyOf(older, join(scratch, `upgrade-${at}`));
      expectKilled(await start(dataDir, at), at);
      expect(existsSync(join(dataDir, "pglite")) || existsSync(join(dataDir, "pglite.old")), `before write ${at}`).toBe(true);
      const again = await start(dataDir);
      expect(again.code, `after a kill before write ${at}: ${again.err}`).toBe(0);
      await expectIntact(dataDir, PLAYER);
      rmSync(dataDir, { recursive: true, force: true });
    });
  }, 1_800_000);

  it("a start killed as PostgreSQL created its lock file (postmaster.pid empty): the next start opens the folder (issue 30)", async () => {
    // The instant of the upgrade brick: write 490 of 667, the parent reopening the upgraded folder.
    const dataDir = copyOf(older, join(scratch, "empty-pid-file"));
    const first = await start(dataDir);
    expect(first.code, first.err).toBe(0);
    writeFileSync(join(dataDir, "pglite", "postmaster.pid"), "");
    const again = await start(dataDir);
    expect(again.code, again.err).toBe(0);
    await expectIntact(dataDir, PLAYER);
  }, 300_000);
});
