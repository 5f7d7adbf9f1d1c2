// Issue 30: stopping never hangs on the log. `npm start | tee server.log` at a terminal: Ctrl-C
// sends SIGINT to the whole foreground group, tee dies first, and every log write after that fails
// with EPIPE. The server used to sit for ever in sonic-boom's flushSync (it retries every error other
// than EAGAIN every 100 ms), deaf to any later signal. Here the same group is built with a real pipe
// and a real tee, and the server must be gone within 10 s; likewise after SIGTERM with a reader that
// is already gone. (A second signal: test/unit/shutdown.test.ts; the destination: test/unit/stdoutLog.test.ts.)
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, migratedDataDir, projectRoot, waitFor } from "../helpers/process.js";

const groups: ChildProcess[] = [];
afterEach(() => {
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
};
const descendants = (pid: number): number[] => childrenOf(pid).flatMap((c) => [c, ...descendants(c)]);
const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

/** `npm start | tee LOG` in a process group of its own, as a shell at a terminal runs it. */
async function startPiped(extraEnv: Record<string, string> = {}) {
  const log = join(mkdtempSync(join(tmpdir(), "snakes-tee-")), "server.log");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    PORT: String(await freePort()),
    SAMPLE_PORT: "0",
    DATA_DIR: await migratedDataDir("snakes-tee-"),
    LOG_LEVEL: "info",
    LOG: log,
    ...extraEnv,
  };
  const group = spawn("sh", ["-c", 'npm start | tee "$LOG"'], { cwd: projectRoot, env, stdio: ["ignore", "ignore", "pipe"], detached: true });
  groups.push(group);
  let stderr = "";
  group.stderr!.on("data", (d) => (stderr += d));
  await waitFor(async () => ((await fetch(`http://127.0.0.1:${env.PORT}/health`)).ok ? true : undefined), 150_000, `npm start | tee on ${env.PORT}\n${stderr}`);
  const find = (re: RegExp) => waitFor(async () => descendants(group.pid!).find((p) => re.test(cmdline(p))), 10_000, `${re} in the group`);
  const server = await find(/^\S*node\s.*scripts\/start\.mjs$/);
  const tee = await find(/^tee /);
  await waitFor(async () => (readFileSync(log, "utf8").includes('"ready: play at') ? true : undefined), 10_000, "the ready line in the log");
  return { group, server, tee, port: env.PORT, stderr: () => stderr };
}

/** Resolves with the milliseconds the server took to go; fails past `limitMs`. */
async function goneWithin(server: number, limitMs: number): Promise<number> {
  const t0 = Date.now();
  await waitFor(async () => (alive(server) ? undefined : true), limitMs, `server ${server} to exit (it hung)`);
  return Date.now() - t0;
}

describe("stopping never hangs on the log (issue 30)", () => {
  it("Ctrl-C on `npm start | tee log` (SIGINT to the whole group, tee dies first) ends the server within 10 s", async () => {
    const { group, server, stderr } = await startPiped();
    process.kill(-group.pid!, "SIGINT");
    await goneWithin(server, 10_000);
    // Whatever could not be written is said on stderr, once, not retried.
    await waitFor(async () => (/log lines dropped|stdout cannot be written/.test(stderr()) ? true : undefined), 5000, `the drop report on stderr:\n${stderr()}`);
  }, 200_000);

  it("a reader that is already gone, then SIGTERM to the server: it stops within 10 s and says on stderr that stdout broke", async () => {
    const { server, tee, port, stderr } = await startPiped();
    process.kill(tee, "SIGKILL");
    await waitFor(async () => (alive(tee) ? undefined : true), 5000, "tee to go");
    // Each request is a log line: the first meets the broken pipe while the server runs.
    for (let i = 0; i < 20; i++) await fetch(`http://127.0.0.1:${port}/health`);
    await waitFor(async () => (/stdout cannot be written \(EPIPE\)/.test(stderr()) ? true : undefined), 10_000, `the EPIPE line on stderr:\n${stderr()}`);
    process.kill(server, "SIGTERM");
    await goneWithin(server, 10_000);
    await waitFor(async () => (/\d+ log lines dropped: stdout could not be written \(EPIPE\)/.test(stderr()) ? true : undefined), 5000, `the count on stderr:\n${stderr()}`);
  }, 200_000);
});
