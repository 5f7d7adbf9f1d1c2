// One measured run: start the scenario's clients, warm up, open the window, sample the server and
// this process, close the window, drain the updates still in flight, build the report.
import { cpus, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ProbeReading } from "./probe.js";
import { Recorder, type Window } from "./recorder.js";
import { formatTable, tableRow, type Report } from "./report.js";
import type { Scenario } from "./scenario.js";
import type { ProcessUsage, ServerUnderTest } from "./server.js";
import { percentiles, round } from "./stats.js";

export interface MeasureOptions {
  base: string;
  server: ServerUnderTest | null;
  clients: number;
  durationS: number;
  warmupS: number;
  args: Record<string, string>;
  clientCore: number | null;
  /** Write a CPU profile of the server during the window into this directory. */
  profileDir?: string;
  log(line: string): void;
}

/** The client was the limit: its CPU near a full core, or its event loop late. */
export const CLIENT_CPU_LIMIT_PCT = 90;
export const CLIENT_LAG_LIMIT_MS = 30;
const DRAIN_QUIET_MS = 500;
const DRAIN_MAX_MS = 5000;
/** How long a closed window keeps collecting its late deliveries while the next one runs. */
const LATE_DELIVERIES_MS = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measure(scenario: Scenario, o: MeasureOptions): Promise<Report> {
  return (await measureWindows(scenario, o, 1))[0];
}

interface WindowStart {
  server: ProcessUsage | undefined;
  cpu: NodeJS.CpuUsage;
  lag: ReturnType<typeof monitorEventLoopDelay>;
  t0: number;
}

/**
 * `count` consecutive windows on one load (it never pauses between them): one report per window.
 * A window's report is finished once its late deliveries are in: a few seconds into the next
 * window, or after the drain that follows the last.
 */
export async function measureWindows(scenario: Scenario, o: MeasureOptions, count: number): Promise<Report[]> {
  const recorder = new Recorder();
  o.log(`${scenario.name}: connecting ${o.clients} clients…`);
  const load = await scenario.start({ base: o.base, clients: o.clients, recorder, args: o.args, log: o.log });
  try {
    o.log(`${scenario.name}: warming up ${o.warmupS} s, then measuring ${count > 1 ? `${count} windows of ` : ""}${o.durationS} s`);
    await sleep(o.warmupS * 1000);

    if (o.profileDir) await o.server?.startProfile();
    const begin = async (): Promise<WindowStart> => {
      await o.server?.probe("reset");
      const lag = monitorEventLoopDelay({ resolution: 5 });
      lag.enable();
      return { server: o.server?.usage(), cpu: process.cpuUsage(), lag, t0: performance.now() };
    };
    const reports: Report[] = [];
    let started = await begin();
    recorder.open();
    for (let i = 0; i < count; i++) {
      await sleep(Math.max(0, o.durationS * 1000 - (performance.now() - started.t0)));
      recorder.close();
      const window = recorder.window;
      const seconds = (performance.now() - started.t0) / 1000;
      started.lag.disable();
      const cpu = process.cpuUsage(started.cpu);
      const server1 = o.server?.usage();
      const probe = await o.server?.probe("read");
      const end: WindowEnd = { ...started, seconds, cpu, server1, probe, scenarioMetrics: load.metrics?.(seconds) };
      const last = i + 1 === count;
      if (!last) {
        started = await begin();
        recorder.open();
        // The closed window's late deliveries arrive while the next one runs.
        await sleep(Math.min(LATE_DELIVERIES_MS, o.durationS * 500));
      } else {
        if (o.profileDir && o.server) o.log(`server CPU profile of the window: ${await o.server.stopProfile(o.profileDir)}`);
        load.stop();
        await drain(window);
      }
      reports.push(windowReport(scenario, o, window, recorder.measuresDelivery, end));
      if (count > 1) console.log(formatTable([tableRow(reports[i])]));
    }
    return reports;
  } finally {
    await load.close();
  }
}

interface WindowEnd extends WindowStart {
  seconds: number;
  cpu: NodeJS.CpuUsage;
  server1: ProcessUsage | undefined;
  probe: ProbeReading | undefined;
  scenarioMetrics: Record<string, unknown> | undefined;
}

function windowReport(scenario: Scenario, o: MeasureOptions, w: Window, measuresDelivery: boolean, e: WindowEnd): Report {
  const { seconds, cpu, probe, scenarioMetrics } = e;
  const server0 = e.server;
  const server1 = e.server1;
  const serverCpuS = server0 && server1 ? server1.cpuSeconds - server0.cpuSeconds : null;
  const serverSysS = server0 && server1 ? server1.sysSeconds - server0.sysSeconds : null;
  const clientCpuPct = ((cpu.user + cpu.system) / 1e6 / seconds) * 100;
  const lagP99 = e.lag.percentile(99) / 1e6;
  const limit = clientCpuPct >= CLIENT_CPU_LIMIT_PCT ? "cpu" : lagP99 > CLIENT_LAG_LIMIT_MS ? "lag" : null;
  const wasLimit = limit !== null;
  const serverCpuPct = serverCpuS === null ? null : (serverCpuS / seconds) * 100;
  const timing = (kind: string) => {
    const t = scenario.roomName ? probe?.timings[`${kind}:${scenario.roomName}`] : undefined;
    return t ? { p50: round(t.p50, 3), p99: round(t.p99, 3) } : null;
  };
  const lat = percentiles(w.latencies.view());
  const perS = (n: number) => round(n / seconds, 1);
  return {
    scenario: scenario.name,
    clients: o.clients,
    duration_s: round(seconds, 2),
    msgs_in_per_s: perS(w.messagesIn),
    msgs_out_per_s: perS(w.messagesOut),
    latency_ms: lat && { p50: round(lat.p50), p95: round(lat.p95), p99: round(lat.p99), max: round(lat.max) },
    loss_pct: measuresDelivery && w.expected > 0 ? round(((w.expected - w.received) / w.expected) * 100, 4) : null,
    tick_ms: timing("tick"),
    bytes_per_client_per_s: round(w.bytesIn / o.clients / seconds, 0),
    server: {
      cpu_pct: serverCpuPct === null ? null : round(serverCpuPct, 1),
      cpu_ms_per_1k_inputs: serverCpuS === null || w.inputs === 0 ? null : round((serverCpuS * 1000) / (w.inputs / 1000), 1),
      peak_rss_mb: server1 ? round(server1.peakRssBytes / 2 ** 20, 0) : null,
      players_per_core_by_cpu: serverCpuPct ? Math.floor((o.clients * 100) / serverCpuPct) : null,
      kernel_pct_of_cpu: serverCpuS && serverSysS !== null ? round((serverSysS / serverCpuS) * 100, 1) : null,
    },
    client: { cpu_pct: round(clientCpuPct, 1), loop_lag_p99_ms: round(lagP99), was_limit: wasLimit, limit },
    errors: w.errors,
    inputs_per_s: perS(w.inputs),
    patch_ms: timing("patch"),
    server_loop_lag_p99_ms: probe ? round(probe.loopDelayP99Ms) : null,
    server_loop_lag_max_ms: probe ? round(probe.loopDelayMaxMs) : null,
    server_writes_per_1k_inputs: probe && w.inputs > 0 ? round((probe.socketWrites * 1000) / w.inputs, 0) : null,
    error_kinds: Object.fromEntries(w.errorSamples),
    cores: { server: o.server?.pinnedCore ?? null, client: o.clientCore },
    options: o.args,
    server_node_flags: o.server?.nodeFlags ?? null,
    machine_load_1m: loadavg()[0],
    note: [
      wasLimit &&
        (limit === "cpu"
          ? `the load client was the limit (CPU ${round(clientCpuPct, 0)} %, loop lag p99 ${round(lagP99, 1)} ms): the server may hold more`
          : `the load client's event loop lagged (p99 ${round(lagP99, 1)} ms at ${round(clientCpuPct, 0)} % CPU): another process probably shared its core; repeat on a quiet machine`),
      o.profileDir && "profiled run: the server's figures include the profiler's overhead",
      loadavg()[0] > cpus().length + 0.5 && `machine load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores: other processes competed; repeat on a quiet machine`,
    ]
      .filter(Boolean)
      .join("; ") || null,
    at: new Date().toISOString(),
    ...(scenarioMetrics ? { scenario_metrics: scenarioMetrics } : {}),
  };
}

/** Waits until every expected update arrived, or none arrived for DRAIN_QUIET_MS. */
async function drain(window: Window): Promise<void> {
  if (window.expected === 0) return;
  const deadline = performance.now() + DRAIN_MAX_MS;
  let last = -1;
  while (window.received < window.expected && window.received !== last && performance.now() < deadline) {
    last = window.received;
    await sleep(DRAIN_QUIET_MS);
  }
}
