// npm run loadtest -- SCENARIO [--clients N] [--duration S] [--url URL] [--ramp] [options]
// One entry point for every load scenario (loadtest/scenarios/). See loadtest/README.md.
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { throwawayDatabase } from "./harness/database.js";
import { measure, measureWindows, type MeasureOptions } from "./harness/measure.js";
import { formatTable, tableRow, writeReport, type Report } from "./harness/report.js";
import type { Scenario } from "./harness/scenario.js";
import { hasTaskset, pinSelf, serverGroup, startServer, type ServerUnderTest } from "./harness/server.js";
import { scenarios } from "./scenarios/index.js";

const USAGE = `usage: npm run loadtest -- SCENARIO [options]

scenarios:
${Object.values(scenarios)
  .map((s) => `  ${s.name.padEnd(12)} ${s.summary}`)
  .join("\n")}

options:
  --clients N        simulated players / connections (default: the scenario's)
  --duration S       measured window in seconds (default 20)
  --warmup S         seconds of load before the window opens (default 3)
  --url URL          measure a running server instead of starting one
  --windows N        N consecutive windows on one load (one report each; default 1)
  --ramp             find the most clients with p99 <= 50 ms, no loss, tick within budget
                     (each step one window: it passes or fails, no second try)
  --postgres URL     server on a throwaway database of this PostgreSQL server (default: embedded)
  --redis URL        server with Redis presence/driver
  --processes N      N server processes (needs --postgres and --redis), pinned round-robin to the
                     cores; clients matchmake through the first, rooms spread over all
  --profile DIR      write a CPU profile of the server during the measured window into DIR
  --results DIR      where the JSON report goes (default loadtest/results)
  --server-root DIR  run the server of another checkout (e.g. /work/main) to compare with this one
  --node-flags "F"   Node flags added to npm start's for the started server (an experiment)
  --unpinned         pin nothing: server and client share every core
  any other --key value is handed to the scenario (e.g. http --endpoint autosave)`;

const RAMP_P99_MS = 50;

function parseArgs(argv: string[]) {
  const [name, ...rest] = argv;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const key = rest[i];
    if (!key.startsWith("--")) throw new Error(`unexpected argument "${key}"`);
    const next = rest[i + 1];
    // --node-flags takes Node flags as its value ("--single-threaded-gc").
    if (key === "--node-flags" && next !== undefined) flags["node-flags"] = rest[++i];
    else if (next === undefined || next.startsWith("--")) flags[key.slice(2)] = "true";
    else flags[key.slice(2)] = rest[++i];
  }
  return { name, flags };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function number(flags: Record<string, string>, key: string, fallback: number): number {
  if (flags[key] === undefined) return fallback;
  const n = Number(flags[key]);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${key} must be a positive number`);
  return n;
}

function passes(r: Report, scenario: Scenario): boolean {
  const p99 = r.latency_ms?.p99 ?? Infinity;
  const lossFree = r.loss_pct === null || r.loss_pct <= 0;
  const tickOk = scenario.tickBudgetMs === null || r.tick_ms === null || r.tick_ms.p99 <= scenario.tickBudgetMs;
  return p99 <= RAMP_P99_MS && lossFree && tickOk && r.errors === 0;
}

const roundTo = (n: number, step: number) => Math.max(step, Math.round(n / step) * step);

/** Grows the client count by half while a run passes, then bisects between the last pass and the first failure. */
/**
 * Waits until the server has closed the last step's rooms: a room still emptying would take a next
 * step's first players by quick play and leave its room short of seats. Rooms whose players are
 * away keep their seats for the reconnection window, so this can take that long.
 */
async function lastStepGone(o: MeasureOptions): Promise<void> {
  if (!o.server) return;
  const until = performance.now() + 60_000;
  let rooms = (await o.server.probe("read"))?.rooms ?? 0;
  if (rooms > 0) log(`ramp: waiting for the last step's ${rooms} rooms to close`);
  while (rooms > 0) {
    if (performance.now() > until) throw new Error(`the last step's ${rooms} rooms did not close within 60 s`);
    await new Promise((r) => setTimeout(r, 250));
    rooms = (await o.server.probe("read"))?.rooms ?? 0;
  }
}

async function ramp(scenario: Scenario, o: MeasureOptions): Promise<Report> {
  const steps: Report[] = [];
  // One window per step, and a step passes only when it passes: a capacity that needs a second try
  // is a capacity with a tail.
  const run = async (clients: number) => {
    if (steps.length) await lastStepGone(o);
    const r = await measure(scenario, { ...o, clients });
    steps.push(r);
    const ok = passes(r, scenario);
    log(`ramp: ${clients} clients → p99 ${r.latency_ms?.p99 ?? "-"} ms, loss ${r.loss_pct ?? "-"} %, tick p99 ${r.tick_ms?.p99 ?? "-"} ms, errors ${r.errors}: ${ok ? "pass" : "fail"}${r.client.was_limit ? " (client-limited)" : ""}`);
    console.log(formatTable([tableRow(r)]));
    return { r, ok };
  };
  let best: Report | null = null;
  let failAt: number | null = null;
  let clients = roundTo(o.clients, scenario.clientStep);
  for (;;) {
    const { r, ok } = await run(clients);
    if (!ok) {
      failAt = clients;
      break;
    }
    best = r;
    if (r.client.was_limit) break; // more clients would measure the client, not the server
    clients = roundTo(clients * 1.5, scenario.clientStep);
  }
  let low = best?.clients ?? 0;
  let high = failAt;
  while (high !== null && high - low > Math.max(scenario.clientStep, Math.ceil(low * 0.05))) {
    const mid = roundTo((low + high) / 2, scenario.clientStep);
    if (mid <= low || mid >= high) break;
    const { r, ok } = await run(mid);
    if (ok) {
      best = r;
      low = mid;
      if (r.client.was_limit) break;
    } else high = mid;
  }
  const criteria = `latency p99 <= ${RAMP_P99_MS} ms, no loss, no errors${scenario.tickBudgetMs ? `, tick p99 <= ${scenario.tickBudgetMs} ms` : ""}`;
  const chosen = best ?? steps[0];
  // Capacity by CPU: measured where the client still kept up, so the figure is the server's.
  const clean = steps.filter((s) => !s.client.was_limit).sort((a, b) => b.clients - a.clients)[0];
  const capacity = clean
    ? { clients: clean.clients, cpu_ms_per_1k_inputs: clean.server.cpu_ms_per_1k_inputs, players_per_core_by_cpu: clean.server.players_per_core_by_cpu }
    : null;
  if (capacity) log(`ramp: at ${capacity.clients} clients (the largest step the client drove cleanly) ${capacity.cpu_ms_per_1k_inputs} CPU-ms per 1,000 inputs: ${capacity.players_per_core_by_cpu} players per core by CPU`);
  return { ...chosen, ramp: { max_clients: best ? best.clients : null, criteria, capacity, steps } };
}

/** Consecutive windows as one report: the worst window's figures on top, every window beneath. */
function summarise(windows: Report[]): Report {
  const p99 = (r: Report) => r.latency_ms?.p99 ?? -1;
  const worst = windows.reduce((a, b) => (p99(b) > p99(a) ? b : a));
  const cpu = windows.map((w) => w.server.cpu_ms_per_1k_inputs);
  const known = cpu.filter((c): c is number => c !== null).sort((a, b) => a - b);
  const summary = {
    p99_ms: windows.map((w) => w.latency_ms?.p99 ?? null),
    server_loop_lag_max_ms: windows.map((w) => w.server_loop_lag_max_ms),
    cpu_ms_per_1k_inputs: cpu,
    cpu_ms_per_1k_inputs_median: known.length ? known[Math.floor((known.length - 1) / 2)] : null,
  };
  log(`windows: p99 ${summary.p99_ms.join(", ")} ms; server loop lag max ${summary.server_loop_lag_max_ms.join(", ")} ms; CPU-ms / 1k inputs ${cpu.join(", ")} (median ${summary.cpu_ms_per_1k_inputs_median})`);
  return { ...worst, windows, windows_summary: summary };
}

async function main() {
  const { name, flags } = parseArgs(process.argv.slice(2));
  if (!name || name === "--help" || flags.help) {
    console.log(USAGE);
    return;
  }
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`unknown scenario "${name}"\n\n${USAGE}`);
  const known = ["clients", "duration", "warmup", "url", "ramp", "postgres", "redis", "profile", "results", "server-root", "processes", "windows", "node-flags", "unpinned"];
  const args = Object.fromEntries(Object.entries(flags).filter(([k]) => !known.includes(k)));
  const resultsDir = flags.results ?? fileURLToPath(new URL("./results", import.meta.url));

  // The clients on core 1, the server on core 0: the two never compete for a core.
  const unpinned = flags.unpinned === "true";
  const clientCore = !unpinned && cpus().length > 1 && pinSelf(1) ? 1 : null;
  const extraNodeFlags = flags["node-flags"]?.split(/\s+/).filter(Boolean) ?? [];
  let server: ServerUnderTest | null = null;
  let database: { url: string; drop(): Promise<void> } | null = null;
  try {
    let base = flags.url?.replace(/\/$/, "");
    if (!base) {
      // Load clients are a few accounts on one address: the per-address and per-account limits
      // stay on (their cost is measured) but high enough never to refuse the load.
      const env: Record<string, string> = {
        CORS_ORIGINS: "http://127.0.0.1",
        COOKIE_SECURE: "false",
        RATE_LIMIT_REGISTER: "100000/1m",
        RATE_LIMIT_WRITES: "100000000/1m",
        RATE_LIMIT_MATCHMAKE: "100000000/1m",
        MAX_CONNECTIONS_PER_ADDRESS: "1000000",
      };
      if (flags.postgres) {
        database = await throwawayDatabase(flags.postgres);
        env.DATABASE_URL = database.url;
      }
      if (flags.redis) env.REDIS_URL = flags.redis;
      const processes = number(flags, "processes", 1);
      if (processes > 1 && !(flags.postgres && flags.redis)) throw new Error("--processes needs --postgres and --redis (the processes share them)");
      log(`starting ${processes > 1 ? `${processes} server processes` : "the server"}${hasTaskset && !unpinned ? ` pinned to core${processes > 1 ? "s" : ""} ${Array.from({ length: processes }, (_, i) => i % cpus().length).join(", ")}` : " unpinned"} (${flags.postgres ? "PostgreSQL" : "embedded database"}${flags.redis ? ", Redis" : ""})${extraNodeFlags.length ? ` with ${extraNodeFlags.join(" ")}` : ""}…`);
      // One after the other: the first applies the migrations to the fresh database.
      const servers: ServerUnderTest[] = [];
      for (let i = 0; i < processes; i++) servers.push(await startServer({ env, root: flags["server-root"], core: unpinned ? null : i % cpus().length, publicAddress: processes > 1, extraNodeFlags }));
      server = processes > 1 ? serverGroup(servers) : servers[0];
      base = server.base;
    }
    const options: MeasureOptions = {
      base,
      server,
      clients: number(flags, "clients", scenario.defaultClients),
      durationS: number(flags, "duration", 20),
      warmupS: flags.warmup === undefined ? 3 : Number(flags.warmup),
      args,
      clientCore,
      profileDir: flags.profile,
      log,
    };
    const windows = number(flags, "windows", 1);
    const report = flags.ramp ? await ramp(scenario, options) : windows > 1 ? summarise(await measureWindows(scenario, options, windows)) : await measure(scenario, options);
    if (!flags.ramp && !report.windows) console.log(formatTable([tableRow(report)]));
    if (report.scenario_metrics) console.log(`${scenario.name}: ${JSON.stringify(report.scenario_metrics)}`);
    if (report.ramp) console.log(`ramp: most clients meeting ${report.ramp.criteria}: ${report.ramp.max_clients ?? "none"}`);
    if (report.note) console.log(`note: ${report.note}`);
    const file = writeReport(resultsDir, report);
    log(`report written to ${file}`);
    console.log(JSON.stringify(report));
  } finally {
    await server?.stop();
    if (flags.profile) log(`summarise the profile: npm run loadtest:profile -- ${flags.profile}`);
    await database?.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
