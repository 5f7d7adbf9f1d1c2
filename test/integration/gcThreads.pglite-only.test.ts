// npm start runs V8's garbage-collector helper threads at the lowest priority (scripts/start.mjs):
// on a server confined to one core they must not take turns with the event loop (the p99 tail of
// docs/performance.md). Read from the server process's own threads in /proc.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, npmStart, waitFor, type NpmStart } from "../helpers/process.js";

const started: NpmStart[] = [];
afterAll(() => started.forEach((s) => s.kill()));

/** Name and nice value of each thread of a process. */
function threads(pid: number): Array<{ name: string; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    return { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim(), nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) };
  });
}

describe.runIf(existsSync("/proc/self/task"))("npm start: GC helper threads", () => {
  it("run at nice 19 while the event loop's thread and the rest keep the normal priority", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: mkdtempSync(join(tmpdir(), "snakes-gc-threads-")), LOG_LEVEL: "warn" };
    const s = npmStart(env);
    started.push(s);
    await waitFor(async () => ((await fetch(`http://127.0.0.1:${env.PORT}/health`)).ok ? true : undefined), 150_000, `npm start\n${s.stdout()}`);
    const { server } = await s.tree();
    const all = threads(server);
    const helpers = all.filter((t) => t.name === "V8Worker");
    expect(helpers.length).toBeGreaterThan(0);
    expect(helpers.every((t) => t.nice === 19)).toBe(true);
    expect(all.find((t) => t.name === "MainThread")?.nice).toBe(0);
    expect(all.filter((t) => t.name !== "V8Worker").every((t) => t.nice === 0)).toBe(true);
  }, 150_000); // a first start creates the embedded database: slow on a busy machine
});
