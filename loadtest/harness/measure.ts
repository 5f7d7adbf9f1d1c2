// One measured run: start the scenario's clients, warm up, open the window, sample the server and
// this process, close the window, drain the updates still in flight, build the report.
import { cpus, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Recorder } from "./recorder.js";
import type { Report } from "./report.js";
import type { Scenario } from "./scenario.js";
import type { ServerUnderTest } from "./server.js";
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measure(scenario: Scenario, o: MeasureOptions): Promise<Report> {
  const recorder = new Recorder();
  o.log(`${scenario.name}: connecting ${o.clients} clients…`);
  const load = await scenario.start({ base: o.base, clients: o.clients, recorder, args: o.args, log: o.log });
  try {
    o.log(`${scenario.name}: warming up ${o.warmupS} s, then measuring ${o.durationS} s`);
    await sleep(o.warmupS * 1000);

    const lag = monitorEventLoopDelay({ resolution: 5 });
    if (o.profileDir) await o.server?.startProfile();
    await o.server?.probe("reset");
    const server0 = o.server?.usage();
    const cpu0 = process.cpuUsage();
    lag.enable();
    recorder.open();
    const t0 = performance.now();
    await sleep(o.durationS * 1000);
    recorder.close();
    const seconds = (performance.now() - t0) / 1000;
    lag.disable();
    const cpu = process.cpuUsage(cpu0);
    const server1 = o.server?.usage();
    const probe = await o.server?.probe("read");
    if (o.profileDir && o.server) o.log(`server CPU profile of the window: ${await o.server.stopProfile(o.profileDir)}`);
    const scenarioMetrics = load.metrics?.(seconds);
    load.stop();
    await drain(recorder);

    const serverCpuS = server0 && server1 ? server1.cpuSeconds - server0.cpuSeconds : null;
    const serverSysS = server0 && server1 ? server1.sysSeconds - server0.sysSeconds : null;
    const clientCpuPct = ((cpu.user + cpu.system) / 1e6 / seconds) * 100;
    const lagP99 = lag.percentile(99) / 1e6;
    const limit = clientCpuPct >= CLIENT_CPU_LIMIT_PCT ? "cpu" : lagP99 > CLIENT_LAG_LIMIT_MS ? "lag" : null;
    const wasLimit = limit !== null;
    const serverCpuPct = serverCpuS === null ? null : (serverCpuS / seconds) * 100;
    const timing = (kind: string) => {
      const t = scenario.roomName ? probe?.timings[`${kind}:${scenario.roomName}`] : undefined;
      return t ? { p50: round(t.p50, 3), p99: round(t.p99, 3) } : null;
    };
    const lat = percentiles(recorder.latencies.view());
    const perS = (n: number) => round(n / seconds, 1);
    return {
      scenario: scenario.name,
      clients: o.clients,
      duration_s: round(seconds, 2),
      msgs_in_per_s: perS(recorder.messagesIn),
      msgs_out_per_s: perS(recorder.messagesOut),
      latency_ms: lat && { p50: round(lat.p50), p95: round(lat.p95), p99: round(lat.p99), max: round(lat.max) },
      loss_pct: recorder.measuresDelivery && recorder.expected > 0 ? round(((recorder.expected - recorder.received) / recorder.expected) * 100, 4) : null,
      tick_ms: timing("tick"),
      bytes_per_client_per_s: round(recorder.bytesIn / o.clients / seconds, 0),
      server: {
        cpu_pct: serverCpuPct === null ? null : round(serverCpuPct, 1),
        cpu_ms_per_1k_inputs: serverCpuS === null || recorder.inputs === 0 ? null : round((serverCpuS * 1000) / (recorder.inputs / 1000), 1),
        peak_rss_mb: server1 ? round(server1.peakRssBytes / 2 ** 20, 0) : null,
        players_per_core_by_cpu: serverCpuPct ? Math.floor((o.clients * 100) / serverCpuPct) : null,
        kernel_pct_of_cpu: serverCpuS && serverSysS !== null ? round((serverSysS / serverCpuS) * 100, 1) : null,
      },
      client: { cpu_pct: round(clientCpuPct, 1), loop_lag_p99_ms: round(lagP99), was_limit: wasLimit, limit },
      errors: recorder.errors,
      inputs_per_s: perS(recorder.inputs),
      patch_ms: timing("patch"),
      server_loop_lag_p99_ms: probe ? round(probe.loopDelayP99Ms) : null,
      server_loop_lag_max_ms: probe ? round(probe.loopDelayMaxMs) : null,
      server_writes_per_1k_inputs: probe && recorder.inputs > 0 ? round((probe.socketWrites * 1000) / recorder.inputs, 0) : null,
      error_kinds: Object.fromEntries(recorder.errorSamples),
      cores: { server: o.server?.pinnedCore ?? null, client: o.clientCore },
      options: o.args,
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
  } finally {
    await load.close();
  }
}

/** Waits until every expected update arrived, or none arrived for DRAIN_QUIET_MS. */
async function drain(recorder: Recorder): Promise<void> {
  if (!recorder.measuresDelivery) return;
  const deadline = performance.now() + DRAIN_MAX_MS;
  let last = -1;
  while (recorder.received < recorder.expected && recorder.received !== last && performance.now() < deadline) {
    last = recorder.received;
    await sleep(DRAIN_QUIET_MS);
  }
}
