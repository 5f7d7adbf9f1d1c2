// Idle memory of the server as `npm start` runs it, on the embedded database: starts the exact
// command of package.json's "start" script (or --command), on a fresh DATA_DIR, waits until it is
// ready, lets it idle, and samples its resident memory from /proc. Two runs: the first start
// (PGlite creates the database and applies the migrations) and a restart on that database (the
// usual case). The processes the server keeps beside itself (children still running once it is
// ready) are listed with their memory, and counted in idle_total_mb. Not a test: a measurement,
// printed as a table and, last line, JSON.
//
//   npm run --silent loadtest:memory [-- --idle 20 --command "node --import tsx src/index.ts"]
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, waitFor } from "../test/helpers/process.js";
import { projectRoot, startCommand } from "./harness/server.js";

const { values } = parseArgs({
  options: { idle: { type: "string", default: "20" }, command: { type: "string" }, help: { type: "boolean" } },
});
if (values.help) {
  console.log('npm run --silent loadtest:memory -- [--idle SECONDS] [--command "node … src/index.ts"]');
  process.exit(0);
}
const idleSeconds = Number(values.idle);
const start = startCommand(projectRoot);
const command = values.command ?? ["node", ...start.flags, start.entry].join(" ");
const [program, ...args] = command.trim().split(/\s+/);
if (program !== "node") throw new Error(`expected a "node …" command, got: ${command}`);

interface Sample {
  rssMb: number;
  anonMb: number;
  fileMb: number;
}

/** Resident memory of a process (MB): total, anonymous (heaps, Wasm memory) and file-backed (the node binary). */
function sample(pid: number): Sample & { peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (key: string) => Math.round(Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) / 1024);
  return { rssMb: mb("VmRSS"), anonMb: mb("RssAnon"), fileMb: mb("RssFile"), peakMb: mb("VmHWM") };
}

/** The processes a process keeps (its children, theirs, …), e.g. a compiler service left running. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) if (parent === p) (found.push(child), walk(child));
  };
  walk(pid);
  return found;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).map((w) => w.split("/").pop()).join(" ").slice(0, 60);
  } catch {
    return "?";
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function run(dataDir: string, label: string) {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: String(port), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((r) => child.once("exit", r));
  try {
    const started = performance.now();
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      return (await fetch(`http://127.0.0.1:${port}/ready`)).ok ? true : undefined;
    }, 180_000, "the server");
    const readyS = (performance.now() - started) / 1000;
    const samples: Sample[] = [];
    for (let s = 0; s < idleSeconds; s++) {
      await new Promise((r) => setTimeout(r, 1000));
      samples.push(sample(child.pid!));
    }
    const last = sample(child.pid!);
    const tail = samples.slice(Math.floor(samples.length / 2)); // after start-up settles
    // What the server keeps beside itself counts too.
    const kept = descendants(child.pid!).flatMap((pid) => {
      try {
        return [{ pid, command: commandOf(pid), rss_mb: sample(pid).rssMb }];
      } catch {
        return [];
      }
    });
    const idle = median(tail.map((x) => x.rssMb));
    return {
      run: label,
      ready_s: Math.round(readyS * 10) / 10,
      idle_rss_mb: idle,
      kept_processes: kept.map((k) => `${k.command} (${k.rss_mb} MB)`).join(", ") || "none",
      idle_total_mb: idle + kept.reduce((n, k) => n + k.rss_mb, 0),
      idle_rss_max_mb: Math.max(...tail.map((x) => x.rssMb)),
      anon_mb: median(tail.map((x) => x.anonMb)),
      file_mb: median(tail.map((x) => x.fileMb)),
      peak_rss_mb: last.peakMb,
    };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "snakes-memory-"));
try {
  const rows = [await run(dataDir, "first start (creates the database)"), await run(dataDir, "restart (existing database)")];
  console.error(`command: ${command}; idle ${idleSeconds} s; RSS median over the second half of the idle period`);
  console.table(rows);
  console.log(JSON.stringify({ scenario: "memory", command, idle_s: idleSeconds, at: new Date().toISOString(), runs: rows }));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
