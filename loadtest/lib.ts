// Shared pieces of the load scenarios: a server in its own process (so the load generator does not
// share its event loop), CPU/RSS sampling of that process from /proc, and percentile summaries.
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, runEntry, waitFor, type ServerProcess } from "../test/helpers/process.js";

export interface ServerUnderTest {
  proc: ServerProcess;
  port: number;
  base: string;
  ws: string;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<ServerUnderTest> {
  const port = await freePort();
  const proc = runEntry("src/index.ts", {
    PORT: String(port),
    SAMPLE_PORT: env.SAMPLE_PORT ?? "0",
    DATA_DIR: mkdtempSync(join(tmpdir(), "snakes-load-")),
    LOG_LEVEL: "warn",
    NODE_ENV: "test",
    JWT_SECRET: "loadtest-secret-0123456789abcdefghijklmnopqrstuv",
    ...env,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 60_000, "server start");
  return { proc, port, base, ws: `ws://127.0.0.1:${port}`, stop: async () => void (await proc.stop("SIGTERM")) };
}

/** CPU seconds (user+sys) and RSS bytes of a process, from /proc. */
export function processUsage(pid: number): { cpuSeconds: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
  const rssPages = Number(fields[21]);
  return { cpuSeconds: ticks / 100, rssBytes: rssPages * 4096 };
}

export function summarize(samples: number[]): { n: number; p50: number; p95: number; p99: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN);
  return { n: s.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s.length ? s[s.length - 1] : NaN };
}

export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "-");

export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
