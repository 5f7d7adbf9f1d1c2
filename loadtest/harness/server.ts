// The server under test, started exactly as `npm start` starts it (the same Node flags and entry,
// read from the checkout's package.json), in its own process pinned to core 0 when taskset exists,
// with the probe preloaded. CPU and memory come from that process's own /proc entries, so every
// figure is the one users get.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { buildSync } from "esbuild";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort, waitFor } from "../../test/helpers/process.js";
import type { ProbeReading } from "./probe.js";

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const probeSource = fileURLToPath(new URL("./probe.ts", import.meta.url));

/**
 * The `npm start` command of a checkout, split into Node's flags and the entry script: package.json
 * says `[exec] node FLAGS… ENTRY` (today `exec node --liftoff-only --max-semi-space-size=32
 * --single-threaded-gc scripts/start.mjs`; `exec` is the shell's, so that npm's child is the server).
 */
export function startCommand(root: string): { flags: string[]; entry: string } {
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: { start?: string } }).scripts?.start ?? "";
  const words = script.trim().replace(/^exec\s+/, "").split(/\s+/);
  if (words[0] !== "node" || words.length < 2 || words.slice(1).some((w) => /["'$&|;<>]/.test(w))) {
    throw new Error(`package.json "start" is not "node [flags] entry": ${JSON.stringify(script)}`);
  }
  return { flags: words.slice(1, -1), entry: words[words.length - 1] };
}

/** The probe as plain JavaScript (the server runs without tsx, as under `npm start`). */
function builtProbe(dir: string): string {
  const out = join(dir, "probe.mjs");
  buildSync({ entryPoints: [probeSource], outfile: out, format: "esm", platform: "node", target: "node22", logLevel: "warning" });
  return out;
}

export const hasTaskset = spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0;

/** Pins this process (every thread) to one core, when taskset exists; returns whether it did. */
export function pinSelf(core: number): boolean {
  if (!hasTaskset) return false;
  return spawnSync("taskset", ["-a", "-p", "-c", String(core), String(process.pid)], { stdio: "ignore" }).status === 0;
}

export interface ServerOptions {
  env?: Record<string, string>;
  /** The core to pin the server to; null: not pinned (every core, as an unconfined deployment runs). */
  core?: number | null;
  /** Node flags added after npm start's own (an experiment, e.g. a V8 flag under evaluation). */
  extraNodeFlags?: string[];
  /** The checkout whose server runs (default: this one), e.g. to compare with main. */
  root?: string;
  /** Set PUBLIC_ADDRESS to this process's own address (several processes behind one matchmaker). */
  publicAddress?: boolean;
  /** Each line the server prints on stdout (its JSON log), instead of passing them through. */
  onStdout?: (line: string) => void;
}

export interface ProcessUsage {
  cpuSeconds: number;
  /** The kernel's part of cpuSeconds (system calls: socket reads and writes, epoll). */
  sysSeconds: number;
  rssBytes: number;
  peakRssBytes: number;
}

export interface ServerUnderTest {
  base: string;
  pid: number;
  pinnedCore: number | number[] | null;
  /** The Node flags the server runs with: npm start's, plus any experiment's. */
  nodeFlags: string[];
  usage(): ProcessUsage;
  probe(what: "reset" | "read"): Promise<ProbeReading | undefined>;
  /** Starts a CPU profile of the server; stopProfile writes it into `dir` and returns the file. */
  startProfile(): Promise<void>;
  stopProfile(dir: string): Promise<string>;
  stop(): Promise<void>;
}

/** CPU seconds (user+sys, all threads), RSS and peak RSS of a process, from /proc. */
export function processUsage(pid: number): ProcessUsage {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in USER_HZ (100)
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds: ticks / 100, sysSeconds: Number(fields[12]) / 100, rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

export async function startServer(options: ServerOptions = {}): Promise<ServerUnderTest> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "snakes-load-"));
  const core = options.core === undefined ? 0 : options.core;
  const pinned = hasTaskset && core !== null;
  const root = options.root ? resolve(options.root) : projectRoot;
  const start = startCommand(root);
  const flags = [...start.flags, ...(options.extraNodeFlags ?? [])];
  const probeDir = mkdtempSync(join(tmpdir(), "snakes-probe-"));
  const nodeArgs = [...flags, "--import", pathToFileURL(builtProbe(probeDir)).href, start.entry];
  const command = pinned ? "taskset" : process.execPath;
  const args = pinned ? ["-c", String(core), process.execPath, ...nodeArgs] : nodeArgs;
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      PORT: String(port),
      SAMPLE_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      JWT_SECRET: "7f3c9a1e5b2d8f4a6c0e9b7d3f1a5c8e2b6d4f0a9c7e5b3d1f8a6c4e2b0d9f7a",
      // The load comes from one address and a few accounts: the per-address and per-account limits
      // (RATE_LIMIT_REGISTER, RATE_LIMIT_WRITES) would refuse it.
      RATE_LIMIT_REGISTER: "1000000/1m",
      RATE_LIMIT_WRITES: "100000000/1m",
      RATE_LIMIT_MATCHMAKE: "100000000/1m",
      MAX_CONNECTIONS_PER_ADDRESS: "1000000",
      // Hundreds of clients join before a window opens; on a busy machine a seat can wait longer
      // than Colyseus' 15 s default for its connection, and the run would fail before measuring.
      COLYSEUS_SEAT_RESERVATION_TIME: "60",
      ...(options.publicAddress ? { PUBLIC_ADDRESS: `127.0.0.1:${port}` } : {}),
      ...options.env,
    },
    stdio: ["ignore", options.onStdout ? "pipe" : "inherit", "inherit", "ipc"],
  });
  if (options.onStdout && child.stdout) {
    let rest = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop()!;
      for (const line of lines) options.onStdout!(line);
    });
  }
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  // Ctrl-C or a kill of the load run must not leave the server running.
  const onSignal = (signal: NodeJS.Signals) => {
    child.kill("SIGKILL");
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      return (await fetch(`${base}/ready`)).ok ? true : undefined;
    }, 120_000, "the server under test");
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  const pid = child.pid!;
  const ask = (what: string, extra: object = {}) =>
    new Promise<{ reading?: ProbeReading; file?: string }>((resolve) => {
      const onMessage = (msg: { loadtest?: string; reading?: ProbeReading; file?: string }) => {
        if (msg?.loadtest !== what) return;
        child.off("message", onMessage);
        resolve(msg);
      };
      child.on("message", onMessage);
      child.send({ loadtest: what, ...extra });
    });
  return {
    base,
    pid,
    pinnedCore: pinned ? core : null,
    nodeFlags: flags,
    usage: () => processUsage(pid),
    probe: async (what) => (await ask(what)).reading,
    startProfile: async () => void (await ask("profile-start")),
    stopProfile: async (dir) => (await ask("profile-stop", { dir: resolve(dir) })).file!,
    async stop() {
      process.off("exit", stopOnExit);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (child.exitCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(probeDir, { recursive: true, force: true });
    },
  };
}

/**
 * Several server processes measured as one (a scaled-out run): CPU summed, memory and tick times
 * the worst of them; clients enter through the first process's matchmaker.
 */
export function serverGroup(servers: ServerUnderTest[]): ServerUnderTest {
  const [first] = servers;
  return {
    base: first.base,
    pid: first.pid,
    pinnedCore: servers.map((s) => s.pinnedCore as number),
    nodeFlags: first.nodeFlags,
    usage: () => {
      const all = servers.map((s) => s.usage());
      return {
        cpuSeconds: all.reduce((n, u) => n + u.cpuSeconds, 0),
        sysSeconds: all.reduce((n, u) => n + u.sysSeconds, 0),
        rssBytes: Math.max(...all.map((u) => u.rssBytes)),
        peakRssBytes: Math.max(...all.map((u) => u.peakRssBytes)),
      };
    },
    probe: async (what) => {
      const readings = (await Promise.all(servers.map((s) => s.probe(what)))).filter((r): r is ProbeReading => r !== undefined);
      if (readings.length === 0) return undefined;
      const timings: ProbeReading["timings"] = {};
      for (const r of readings) {
        for (const [key, t] of Object.entries(r.timings)) {
          const seen = timings[key];
          timings[key] = seen ? { p50: Math.max(seen.p50, t.p50), p99: Math.max(seen.p99, t.p99), n: seen.n + t.n } : t;
        }
      }
      return { timings, loopDelayP99Ms: Math.max(...readings.map((r) => r.loopDelayP99Ms)), loopDelayMaxMs: Math.max(...readings.map((r) => r.loopDelayMaxMs)), socketWrites: readings.reduce((n, r) => n + r.socketWrites, 0), rooms: readings.reduce((n, r) => n + r.rooms, 0) };
    },
    startProfile: () => first.startProfile(),
    stopProfile: (dir) => first.stopProfile(dir),
    stop: async () => void (await Promise.all(servers.map((s) => s.stop()))),
  };
}
