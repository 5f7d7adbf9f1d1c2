// Issue 30: a first start fits a 256 MB budget for its database step. The child that creates the
// embedded database (src/db/prepareEmbedded.ts) ran PGlite's initdb: a second PostgreSQL instance
// and the initdb program in Wasm memory, 600-735 MB RSS. It now unpacks the seed built at install
// time (scripts/build-pglite-seed.mjs) and migrates it. Its own peak (VmHWM, which it reports) is
// asserted, run with npm start's V8 flags; under tsx, as here, it is ~20 MB above `npm start`'s.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listMigrations } from "../../src/db/migrate.js";
import type { ChildReport } from "../../src/db/prepareEmbedded.js";
import { seedFile } from "../../src/db/seed.js";
import { projectRoot } from "../helpers/process.js";

const startFlags = /exec node (.*) scripts\/start\.mjs/.exec(JSON.parse(execFileSync("npm", ["pkg", "get", "scripts.start"], { cwd: projectRoot, encoding: "utf8" })))![1].split(" ");

describe("a first start's database step (issue 30)", () => {
  it.runIf(process.platform === "linux")("creates and migrates the database from the seed with a peak RSS under 256 MB", () => {
    // npm install builds the seed; a checkout installed without scripts gets it here.
    if (!seedFile()) execFileSync(process.execPath, ["scripts/build-pglite-seed.mjs"], { cwd: projectRoot });
    expect(seedFile()).toBeDefined();
    const dir = join(mkdtempSync(join(tmpdir(), "snakes-first-memory-")), "pglite.new");
    const child = spawnSync(process.execPath, [...startFlags, "--import", "tsx", "src/db/prepareEmbedded.ts", dir], { cwd: projectRoot, encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const report = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as ChildReport;
    return listMigrations().then(({ migrationDirectories }) => {
      expect(report.applied).toHaveLength(migrationDirectories.length);
      expect(report.peakRssMb).toBeLessThan(256);
    });
  }, 180_000);
});
