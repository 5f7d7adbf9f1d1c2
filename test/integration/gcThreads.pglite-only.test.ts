// npm start runs V8 with --single-threaded-gc (package.json): on a server confined to one core the
// GC's concurrent helper threads took turns with the event loop and doubled the move → peer p99
// (docs/performance.md, the third pass); and with a 32 MB young generation, which cut the CPU per
// input by up to 17 % and shortened the tail (the fourth pass). Read from the server process's own command line in /proc.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, npmStart, waitFor, type NpmStart } from "../helpers/process.js";

const started: NpmStart[] = [];
afterAll(() => started.forEach((s) => s.kill()));

describe.runIf(existsSync("/proc/self/cmdline"))("npm start: the garbage collector", () => {
  it("runs the server with --single-threaded-gc and a 32 MB young generation", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: mkdtempSync(join(tmpdir(), "snakes-gc-")), LOG_LEVEL: "warn" };
    const s = npmStart(env);
    started.push(s);
    await waitFor(async () => ((await fetch(`http://127.0.0.1:${env.PORT}/health`)).ok ? true : undefined), 150_000, `npm start\n${s.stdout()}`);
    const { server } = await s.tree();
    const args = readFileSync(`/proc/${server}/cmdline`, "utf8").split("\0");
    expect(args).toContain("--single-threaded-gc");
    expect(args).toContain("--max-semi-space-size=32");
  }, 150_000); // a first start creates the embedded database: slow on a busy machine
});
