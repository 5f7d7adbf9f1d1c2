// What a backup does to a playing server (issue 34; numbers in docs/performance.md): a server
// started as `npm start` starts it (pinned to core 0), holding --accounts game accounts, takes
// --writes autosaves a second from signed-in players and plays a boss room of 10 bots
// (loadtest/scenarios/boss.ts), while `npm run --silent admin -- backup` runs as an operator would
// run it. Reported: the backup's own line (duration, how long the database was held, size), size per
// 1,000 accounts, the writes' latency before / during / after it and how many failed, the server's
// event-loop delay and boss tick time in each phase, the boss room's tick gap as its players see it
// (the longest interval between two state patches, which the room sends at the end of every
// simulation step, 30 a second), and this client's own CPU and event-loop lag (pinned to core 1),
// so a run where the client was the limit says so.
//
//   node --import tsx loadtest/backup.ts [--accounts 10000] [--writes 200] [--writers 40] [--phase 10] [--postgres URL]
//
// Not a test: a measurement, printed as a table and, last line, JSON.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { openDatabase } from "../src/db/client.js";
import { applyMigrations } from "../src/db/migrate.js";
import { throwawayDatabase } from "./harness/database.js";
import { Recorder } from "./harness/recorder.js";
import { fillAccounts } from "./harness/seed.js";
import { hasTaskset, pinSelf, projectRoot, startServer } from "./harness/server.js";
import { percentiles, round } from "./harness/stats.js";
import { boss } from "./scenarios/boss.js";

const { values } = parseArgs({
  options: {
    accounts: { type: "string", default: "10000" },
    writes: { type: "string", default: "200" },
    phase: { type: "string", default: "10" },
    writers: { type: "string", default: "40" },
    postgres: { type: "string" },
  },
});
const accounts = Number(values.accounts);
const writesPerSecond = Number(values.writes);
const phaseMs = Number(values.phase) * 1000;
const writerCount = Number(values.writers);
const log = (line: string) => process.stderr.write(`${line}\n`);

const clientPinned = pinSelf(1);

// The database, filled before the server starts (as a deployment that has been running a while).
const dataDir = mkdtempSync(join(tmpdir(), "snakes-backup-bench-"));
const backupFile = join(mkdtempSync(join(tmpdir(), "snakes-backup-bench-out-")), "bench.jsonl.gz");
const throwaway = values.postgres ? await throwawayDatabase(values.postgres) : undefined;
log(`filling ${accounts} accounts into ${throwaway ? "a PostgreSQL database" : "an embedded database"}…`);
if (throwaway) {
  const db = await openDatabase({ databaseUrl: throwaway.url });
  await applyMigrations(db.adapterFactory);
  await db.close();
  const client = new pg.Client({ connectionString: throwaway.url });
  await client.connect();
  await fillAccounts({ exec: (sql) => client.query(sql) }, accounts);
  await client.end();
} else {
  const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
  await applyMigrations(db.adapterFactory);
  await fillAccounts(db.pglite!, accounts);
  await db.close();
}
const dbEnv: Record<string, string> = throwaway ? { DATABASE_URL: throwaway.url } : {};
const server = await startServer({ env: { DATA_DIR: dataDir, BACKUP_EVERY: "off", CORS_ORIGINS: "http://127.0.0.1", ...dbEnv } });
log(`server on ${server.base} (pid ${server.pid}, core ${JSON.stringify(server.pinnedCore)}); client ${clientPinned ? "on core 1" : "unpinned"}`);

// Writers: signed-in players, each its own cookie; the load is open-loop (a write every 1/rate s,
// whatever the answers take), so a pause shows as latency, not as fewer requests.
const cookies: string[] = [];
for (let i = 0; i < writerCount; i++) {
  const res = await fetch(`${server.base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i + 1}` },
    body: JSON.stringify({ username: `writer${i}`, password: "backup-bench-1" }),
  });
  if (res.status !== 201) throw new Error(`register writer${i}: ${res.status} ${await res.text()}`);
  cookies.push(res.headers.get("set-cookie")!.split(";")[0]);
  await fetch(`${server.base}/api/snakes/`, { method: "POST", headers: { cookie: cookies[i], "content-type": "application/json" }, body: "{}" });
}

type Phase = "before" | "during" | "after";
let phase: Phase = "before";

// A boss room playing beside them, its players seated before the writes begin (on a busy machine
// their joins would otherwise wait behind 200 writes a second); its tick gap: the longest time between two state patches
// (Colyseus ROOM_STATE_PATCH) received by any of its players, per phase.
const ROOM_STATE_PATCH = 15;
let lastPatchAt = 0;
const tickGapMs: Record<Phase, number> = { before: 0, during: 0, after: 0 };
const onFrame = (code: number) => {
  if (code !== ROOM_STATE_PATCH) return;
  const now = performance.now();
  // Every player gets each patch: the gap is between distinct ticks (the 10 copies arrive together).
  if (lastPatchAt && now - lastPatchAt > 1) tickGapMs[phase] = Math.max(tickGapMs[phase], now - lastPatchAt);
  lastPatchAt = now;
};
const recorder = new Recorder();
const battle = await boss.start({ base: server.base, clients: 10, recorder, args: {}, log, onFrame });

const latencies: Record<Phase, number[]> = { before: [], during: [], after: [] };
const failures: Record<Phase, number> = { before: 0, during: 0, after: 0 };
const failureSamples: string[] = [];
/** [sent at, latency] of the writes during the backup: where in the backup the slow ones were sent. */
const timeline: Array<[number, number]> = [];
let sent = 0;
let writing = true;
const inFlight = new Set<Promise<void>>();
const writeOnce = (n: number) => {
  const started = performance.now();
  const at = phase;
  const p = fetch(`${server.base}/api/snakes/`, {
    method: "PUT",
    headers: { cookie: cookies[n % writerCount], "content-type": "application/json" },
    body: JSON.stringify({ time_played: n }),
  })
    .then(async (res) => {
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      latencies[at].push(performance.now() - started);
      if (at === "during") timeline.push([started, performance.now() - started]);
    })
    .catch((err: Error) => {
      failures[at]++;
      if (failureSamples.length < 5) failureSamples.push(`${at}: ${err.message}`);
    })
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
};
const writeTicker = (() => {
  const t0 = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - t0) / 1000) * writesPerSecond);
    while (writing && sent < due) writeOnce(sent++);
  }, 5);
  return () => clearInterval(timer);
})();

const clientLag = monitorEventLoopDelay({ resolution: 10 });
clientLag.enable();
const clientCpuStart = process.cpuUsage();
const clientWallStart = performance.now();

const serverPhase: Record<Phase, { loopDelayMaxMs: number; loopDelayP99Ms: number; tickP99Ms?: number; tickN?: number }> = {} as never;
const readServer = async (p: Phase) => {
  const r = await server.probe("read");
  serverPhase[p] = { loopDelayMaxMs: round(r?.loopDelayMaxMs ?? NaN), loopDelayP99Ms: round(r?.loopDelayP99Ms ?? NaN), tickP99Ms: r?.timings["tick:boss"] ? round(r.timings["tick:boss"].p99) : undefined, tickN: r?.timings["tick:boss"]?.n };
  await server.probe("reset");
};

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
await server.probe("reset");
tickGapMs.before = 0;
await wait(phaseMs);
await readServer("before");

// The operator's command, as `npm run --silent admin -- backup` runs it (tsx), on the client's core.
phase = "during";
const backupStarted = performance.now();
const admin = spawn(hasTaskset ? "taskset" : process.execPath, [...(hasTaskset ? ["-c", "1", process.execPath] : []), "--import", "tsx", "src/admin/cli.ts", "backup", "--out", backupFile], {
  cwd: projectRoot,
  env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dataDir, ...dbEnv },
  stdio: ["ignore", "pipe", "inherit"],
});
let adminOut = "";
admin.stdout!.on("data", (d) => (adminOut += d));
const code = await new Promise<number | null>((r) => admin.once("close", r));
const commandMs = performance.now() - backupStarted;
const slowest = timeline.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([at, ms]) => `sent +${Math.round(at - backupStarted)} ms: ${Math.round(ms)} ms`);
log(`slowest writes during the backup: ${slowest.join("; ")}`);
await readServer("during");
if (code !== 0) throw new Error(`admin backup exited ${code}: ${adminOut}`);
const summary = JSON.parse(adminOut.trim().split("\n").at(-1)!) as { bytes: number; ms: number; snapshotMs: number; rows: Record<string, number>; readerPeakRssMb?: number };

phase = "after";
await wait(phaseMs);
await readServer("after");
writing = false;
writeTicker();
await Promise.all(inFlight);
const clientCpu = process.cpuUsage(clientCpuStart);
const clientWall = performance.now() - clientWallStart;
clientLag.disable();
battle.stop();
await battle.close();
await server.stop();
await throwaway?.drop();
rmSync(dataDir, { recursive: true, force: true });

const writeRow = (p: Phase) => {
  const q = percentiles(latencies[p]);
  return { writes: latencies[p].length + failures[p], failed: failures[p], p50_ms: round(q?.p50 ?? NaN), p99_ms: round(q?.p99 ?? NaN), max_ms: round(q?.max ?? NaN) };
};
const result = {
  engine: throwaway ? "postgres" : "pglite",
  accounts,
  writes_per_second: writesPerSecond,
  backup: {
    command_ms: Math.round(commandMs),
    backup_ms: summary.ms,
    database_held_ms: summary.snapshotMs,
    bytes: summary.bytes,
    kb_per_1000_accounts: round(summary.bytes / 1024 / (accounts / 1000), 1),
    rows: Object.values(summary.rows).reduce((a, b) => a + b, 0),
    reader_peak_rss_mb: summary.readerPeakRssMb ?? null,
  },
  writes: { before: writeRow("before"), during: writeRow("during"), after: writeRow("after") },
  boss_tick_gap_ms: { before: round(tickGapMs.before), during: round(tickGapMs.during), after: round(tickGapMs.after) },
  failure_samples: failureSamples,
  server: serverPhase,
  client: {
    pinned_core: clientPinned ? 1 : null,
    cpu_percent: round(((clientCpu.user + clientCpu.system) / 1000 / clientWall) * 100, 1),
    loop_lag_p99_ms: round(clientLag.percentile(99) / 1e6),
    loop_lag_max_ms: round(clientLag.max / 1e6),
  },
};
const table = [
  `backup of ${accounts} accounts (${result.engine}): ${summary.ms} ms (database held ${summary.snapshotMs} ms), ${summary.bytes} bytes (${result.backup.kb_per_1000_accounts} KB per 1,000 accounts); the command took ${result.backup.command_ms} ms${summary.readerPeakRssMb ? `; the reading process peaked at ${summary.readerPeakRssMb} MB` : ""}`,
  `phase    writes  failed  p50 ms  p99 ms  max ms  server loop max ms  boss tick p99 ms  boss tick gap ms`,
  ...(["before", "during", "after"] as Phase[]).map((p) => {
    const w = result.writes[p];
    return `${p.padEnd(8)} ${String(w.writes).padStart(6)}  ${String(w.failed).padStart(6)}  ${String(w.p50_ms).padStart(6)}  ${String(w.p99_ms).padStart(6)}  ${String(w.max_ms).padStart(6)}  ${String(serverPhase[p].loopDelayMaxMs).padStart(18)}  ${String(serverPhase[p].tickP99Ms ?? "-").padStart(16)}  ${String(result.boss_tick_gap_ms[p]).padStart(16)}`;
  }),
  `client: ${result.client.cpu_percent} % CPU of its core, event-loop lag p99 ${result.client.loop_lag_p99_ms} ms, max ${result.client.loop_lag_max_ms} ms${result.client.cpu_percent > 80 ? " (the client was near its limit)" : ""}`,
];
console.log(table.join("\n"));
console.log(JSON.stringify(result));
process.exit(0);
