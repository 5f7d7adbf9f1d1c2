// The server the fuzz suite attacks: the real entry point, started exactly as `npm start` starts it
// (package.json's "start" command line, with this Node), on the embedded database in a fresh,
// migrated DATA_DIR. Its JSON log lines are kept so properties can check what it logged and at which level.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, migratedDataDir, projectRoot, runEntry, waitFor } from "../helpers/process.js";

const exitWithParent = fileURLToPath(new URL("../helpers/exitWithParent.mjs", import.meta.url));

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface FuzzServer {
  /** The server process (its own, not a wrapper's): RSS is read from /proc/<pid>/status. */
  pid: number;
  base: string;
  wsBase: string;
  dataDir: string;
  /** Every JSON log line so far. */
  logs: LogLine[];
  /** Output that was not a JSON log line (a crash would show here). */
  rawOutput(): string;
  alive(): boolean;
  /** Resolves with the first log line (already logged or still to come) that `match` accepts. */
  waitForLine(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** `npm run admin -- <args>` against this server; resolves with its stdout lines parsed as JSON. */
  admin(args: string[]): Promise<unknown[]>;
  /** The server process's resident memory now (VmRSS), in MB. */
  rssMb(): number;
  /** Whether GET /health answers 200 within `ms`. */
  healthWithin(ms: number): Promise<boolean>;
  /** SIGTERM (default), or SIGKILL for a server that no longer answers. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** package.json's start command without its leading `[exec] node`: the flags and script `npm start` runs. */
function startArguments(): string[] {
  const pkg = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.replace(/^exec\s+/, "").split(/\s+/);
  if (node !== "node") throw new Error(`npm start does not start with node: ${pkg.scripts.start}`);
  return args;
}

export async function startFuzzServer(env: Record<string, string> = {}): Promise<FuzzServer> {
  const port = await freePort();
  const dataDir = await migratedDataDir("snakes-fuzz-"); // already migrated: the suite is not about a first start
  const serverEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    PORT: String(port),
    SAMPLE_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    LOG_LEVEL: "info", // one "request" line per request: a case waits for its own
    CORS_ORIGINS: "http://fuzz.test",
    JWT_SECRET: "fuzz-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
    // One address and one player send thousands of requests: the per-account limits would answer 429.
    RATE_LIMIT_REGISTER: "1000000/1m",
    RATE_LIMIT_WRITES: "1000000/1m",
    // The room properties join from this machine's one address thousands of times.
    RATE_LIMIT_MATCHMAKE: "1000000/1m",
    RATE_LIMIT_MATCHMAKE_ADDRESS: "1000000/1m",
    MAX_CONNECTIONS_PER_ADDRESS: "1000000",
    ...env,
  };
  const child: ChildProcess = spawn(process.execPath, ["--import", exitWithParent, ...startArguments()], {
    cwd: projectRoot,
    env: serverEnv,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  let raw = "";
  let pending = "";
  const take = (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        const parsed = JSON.parse(line) as LogLine;
        logs.push(parsed);
        for (const w of waiters) w(parsed);
      } catch {
        raw += `${line}\n`;
      }
    }
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", (d: Buffer) => (raw += d.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const up = waitFor(async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 120_000, `fuzz server on ${port}`);
  await Promise.race([up, exited.then(() => Promise.reject(new Error(`the fuzz server exited while starting:\n${raw}`)))]);
  return {
    pid: child.pid!,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    async healthWithin(ms) {
      try {
        return (await fetch(`${base}/health`, { signal: AbortSignal.timeout(ms) })).ok;
      } catch {
        return false;
      }
    },
    base,
    wsBase: `ws://127.0.0.1:${port}`,
    dataDir,
    logs,
    rawOutput: () => raw,
    alive: () => child.exitCode === null && child.signalCode === null,
    waitForLine(match, timeoutMs) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching log line within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (line: LogLine) => {
          if (!match(line)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(line);
        };
        waiters.add(waiter);
      });
    },
    async admin(args) {
      const proc = runEntry("src/admin/cli.ts", serverEnv, args);
      const code = await proc.exited;
      if (code !== 0) throw new Error(`npm run admin -- ${args.join(" ")}: exit ${code}\n${proc.stderr()}`);
      return proc
        .stdout()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown);
    },
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
