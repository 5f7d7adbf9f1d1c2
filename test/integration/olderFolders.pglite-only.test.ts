// Issue 24: folders older versions left broken. A migration killed half-way recorded as started
// and never finished (Prisma's P3009: every start and `npm run db:migrate` failed since), and a
// first start killed inside initdb (PG_VERSION written, the rest not).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { listMigrations, migrationsDir } from "../../src/db/migrate.js";
import { buildOlderFolder, copyOf, expectIntact, PLAYER, start } from "../helpers/embeddedStarts.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "snakes-olderfolders-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("folders older versions left broken (issue 24)", () => {
  const older = join(scratch, "older");
  beforeAll(() => buildOlderFolder(older), 120_000);

  /** The older folder with its next migration recorded as started and never finished, its script applied or not. */
  async function leftUnfinished(name: string, scriptApplied: boolean): Promise<string> {
    const dataDir = copyOf(older, join(scratch, name));
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

  it("P3009 is settled at start: a migration whose script had not run is applied again", async () => {
    const dataDir = await leftUnfinished("p3009-not-applied", false);
    const run = await start(dataDir);
    expect(run.code, run.err).toBe(0);
    await expectIntact(dataDir, PLAYER);
  }, 120_000);

  it("P3009 is settled by npm run db:migrate too: a migration whose script had run is recorded as finished", async () => {
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

  it("a first start cut short after initdb wrote PG_VERSION is created afresh", async () => {
    const dataDir = join(scratch, "half-initdb");
    cpSync(join(older, "pglite"), join(dataDir, "pglite"), { recursive: true });
    rmSync(join(dataDir, "pglite", "global"), { recursive: true });
    writeFileSync(join(dataDir, "pglite", "PG_VERSION"), "17\n");
    const run = await start(dataDir);
    expect(run.code, run.err).toBe(0);
    await expectIntact(dataDir);
  }, 300_000);
});
