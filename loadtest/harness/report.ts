// The report of one measured window: the keys of issue 11 (a key that does not apply is null), a
// few context keys, the printed table, and the JSON file under loadtest/results/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Percentiles } from "./stats.js";

export interface Report {
  scenario: string;
  clients: number;
  duration_s: number;
  msgs_in_per_s: number;
  msgs_out_per_s: number;
  latency_ms: Percentiles | null;
  loss_pct: number | null;
  tick_ms: { p50: number; p99: number } | null;
  bytes_per_client_per_s: number;
  /** players_per_core_by_cpu: clients × 100 / cpu_pct, what one core would carry at this load's CPU per client. */
  /** kernel_pct_of_cpu: the share of the server's CPU spent in the kernel (its system calls). */
  server: {
    cpu_pct: number | null;
    cpu_ms_per_1k_inputs: number | null;
    peak_rss_mb: number | null;
    players_per_core_by_cpu: number | null;
    kernel_pct_of_cpu: number | null;
  };
  /** limit: why the client was the limit ("cpu": its core near full; "lag": its event loop late), else null. */
  client: { cpu_pct: number; loop_lag_p99_ms: number; was_limit: boolean; limit: "cpu" | "lag" | null };
  errors: number;
  // context
  inputs_per_s: number;
  patch_ms: { p50: number; p99: number } | null;
  server_loop_lag_p99_ms: number | null;
  /** The server's longest event-loop delay in the window. */
  server_loop_lag_max_ms: number | null;
  /** The server's socket writes (system calls) per 1,000 inputs: what the machine's load does not change. */
  server_writes_per_1k_inputs: number | null;
  error_kinds: Record<string, number>;
  /** The core each server process was pinned to (one per process with --processes), and the client's. */
  cores: { server: number | number[] | null; client: number | null };
  options: Record<string, string>;
  /** The Node flags of the server under test (npm start's, plus --node-flags); null with --url. */
  server_node_flags: string[] | null;
  /** 1-minute load average at the end of the window: above the core count, others competed. */
  machine_load_1m: number;
  note: string | null;
  at: string;
  /**
   * capacity: the server's CPU per 1,000 inputs at the largest step the client drove cleanly (not
   * client-limited), and the players one core would carry at that cost; null if no step was clean.
   */
  ramp?: {
    max_clients: number | null;
    criteria: string;
    capacity: { clients: number; cpu_ms_per_1k_inputs: number | null; players_per_core_by_cpu: number | null } | null;
    steps: Report[];
  };
  /**
   * --windows N: every window of the run, in order (the top-level figures are the window with the
   * highest latency p99, the one a target on every window is decided by), and what a target reads.
   */
  windows?: Report[];
  windows_summary?: { p99_ms: (number | null)[]; server_loop_lag_max_ms: (number | null)[]; cpu_ms_per_1k_inputs: (number | null)[]; cpu_ms_per_1k_inputs_median: number | null };
  /** What the scenario measured beyond the common keys (e.g. slitherrush: snapshots per client per second). */
  scenario_metrics?: Record<string, unknown>;
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits));

export function tableRow(r: Report): Record<string, string> {
  return {
    clients: String(r.clients),
    "in/s": fmt(r.msgs_in_per_s, 0),
    "out/s": fmt(r.msgs_out_per_s, 0),
    "lat p50": fmt(r.latency_ms?.p50),
    p95: fmt(r.latency_ms?.p95),
    p99: fmt(r.latency_ms?.p99),
    max: fmt(r.latency_ms?.max),
    "loss %": fmt(r.loss_pct, 3),
    "tick p50/p99": r.tick_ms ? `${fmt(r.tick_ms.p50, 2)}/${fmt(r.tick_ms.p99, 2)}` : "-",
    "B/client/s": fmt(r.bytes_per_client_per_s, 0),
    "srv cpu %": fmt(r.server.cpu_pct, 0),
    "ms/1k in": fmt(r.server.cpu_ms_per_1k_inputs, 1),
    "per core": fmt(r.server.players_per_core_by_cpu, 0),
    "rss MB": fmt(r.server.peak_rss_mb, 0),
    "cli cpu %": fmt(r.client.cpu_pct, 0),
    "cli lag p99": fmt(r.client.loop_lag_p99_ms),
    errors: String(r.errors),
    "": r.client.was_limit ? `CLIENT-LIMITED (${r.client.limit})` : "",
  };
}

/** A plain aligned table (console.table quotes strings and adds an index column). */
export function formatTable(rows: Array<Record<string, string>>): string {
  if (rows.length === 0) return "";
  const keys = Object.keys(rows[0]);
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(width[i])).join("  ").trimEnd();
  return [line(keys), ...rows.map((r) => line(keys.map((k) => r[k])))].join("\n");
}

export function writeReport(dir: string, report: Report): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${report.scenario}-${report.at.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
  return file;
}
