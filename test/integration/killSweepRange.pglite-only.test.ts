// A stress variant of the kill sweep (killSweep.pglite-only.test.ts) for one stretch of an upgrade:
// a kill before EVERY write of KILL_SWEEP_RANGE ("from-to", write numbers of the upgrade's run, as
// the sweep's log lists them), each followed by a normal start that must succeed with the data.
// Skipped unless the range is given: `KILL_SWEEP_RANGE=480-500 npx vitest run --project
// integration:pglite test/integration/killSweepRange.pglite-only.test.ts`. How issue 30's brick was
// pinned down (a kill before write 489 or 490 of 667: the reopen's empty postmaster.pid).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOlderFolder, copyOf, expectIntact, PLAYER, start } from "../helpers/embeddedStarts.js";

const range = process.env.KILL_SWEEP_RANGE;

describe.runIf(range)("a kill before every write of a stretch of an upgrade", () => {
  const [from, to] = (range ?? "0-0").split("-").map(Number);
  const scratch = mkdtempSync(join(tmpdir(), "snakes-killrange-"));
  const older = join(scratch, "older");
  beforeAll(() => buildOlderFolder(older), 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it(`writes ${range}: each kill, then a normal start succeeds with the data`, async () => {
    const bricked: string[] = [];
    for (let at = from; at <= to; at++) {
      const dataDir = copyOf(older, join(scratch, `upgrade-${at}`));
      const killed = await start(dataDir, at);
      const again = await start(dataDir);
      console.log(`killed before write ${at} (${killed.log.at(-1)?.path.replace(scratch, "")}): the next start ${again.code === 0 ? "succeeded" : `failed: ${again.err.trim().split("\n").at(-1)}`}`);
      if (again.code !== 0) bricked.push(`${at}: ${again.err}`);
      else await expectIntact(dataDir, PLAYER);
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(bricked).toEqual([]);
  }, 3_600_000);
});
