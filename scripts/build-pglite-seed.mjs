// Builds the embedded database's seed: the folder PGlite's initdb makes, as a tar (~40 MB), once per
// PGlite version, into node_modules/.cache/snakes-game/. Runs on `npm install` (postinstall).
// A first start unpacks the seed instead of running initdb (src/db/seed.ts): initdb runs a second
// PostgreSQL instance and the initdb program beside the first, in Wasm memory a process never gives
// back (a first start's child peaked at 600-735 MB RSS; from the seed, ~190 MB: docs/operations.md).
// Building it needs that memory once, here. It never fails the install: without a seed (installed
// with --ignore-scripts, or this build was killed) the first start runs initdb itself.
// Written under a temporary name and renamed: a start never reads half a seed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const self = fileURLToPath(import.meta.url);

/** Where the seed of the installed PGlite version lives (src/db/seed.ts reads the same name). */
function seedPath() {
  const { version } = JSON.parse(readFileSync(join(root, "node_modules/@electric-sql/pglite/package.json"), "utf8"));
  return join(root, "node_modules", ".cache", "snakes-game", `pglite-seed-${version}.tar`);
}

if (process.argv[2] === "--build") {
  const file = seedPath();
  const { PGlite } = await import("@electric-sql/pglite");
  const pg = await PGlite.create("memory://");
  const dump = await pg.dumpDataDir("none");
  await pg.close();
  mkdirSync(join(file, ".."), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  process.exit(0);
} else if (!existsSync(seedPath())) {
  // In a child: killed for want of memory, it takes nothing else with it.
  const child = spawnSync(process.execPath, [self, "--build"], { stdio: ["ignore", "inherit", "pipe"], encoding: "utf8" });
  if (child.status !== 0) {
    const why = child.signal ?? (child.stderr.trim().split("\n").at(-1) || child.error?.message || `exit ${child.status}`);
    console.warn(`could not build the embedded database's seed (${why}): the first start will run initdb itself (~600 MB)`);
  }
}
