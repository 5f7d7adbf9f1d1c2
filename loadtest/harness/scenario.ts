// The scenario interface: what a load scenario (loadtest/scenarios/<name>.ts) implements. The
// harness starts the server, pins the processes, times the window, samples CPU, memory, tick
// time and event-loop lag, and writes the report; a scenario only connects its clients, drives
// their inputs and tells the Recorder what it sent and what arrived (see loadtest/README.md).
import type { Recorder } from "./recorder.js";

export interface ScenarioContext {
  /** http://host:port of the server (matchmaker, REST). */
  base: string;
  /** How many simulated players (or HTTP connections) to run. */
  clients: number;
  recorder: Recorder;
  /** Scenario-specific flags: `--endpoint autosave` arrives as { endpoint: "autosave" }. */
  args: Record<string, string>;
  /** Progress lines (stderr; stdout is kept for the table and the JSON report). */
  log(line: string): void;
  /** Every frame any of the scenario's clients receives (protocol code, bytes), where the scenario passes it on (boss). */
  onFrame?(code: number, bytes: number): void;
}

export interface RunningLoad {
  /** Stop producing inputs: the window has closed (updates still in flight keep arriving). */
  stop(): void;
  /** Disconnect every client. */
  close(): Promise<void>;
  /** Figures only this scenario knows, for the window just closed (the report's `scenario_metrics`). */
  metrics?(windowSeconds: number): Record<string, unknown>;
}

export interface Scenario {
  name: string;
  /** One line for `npm run loadtest -- --help` and the report. */
  summary: string;
  defaultClients: number;
  /** Client counts are multiples of this (a full room); --ramp steps by it at least. */
  clientStep: number;
  /** Colyseus room type whose simulation tick the report shows (tick_ms), or null. */
  roomName: string | null;
  /** The room's tick budget in ms (1000 / tick rate) for --ramp, or null when it has no tick. */
  tickBudgetMs: number | null;
  /** Connects ctx.clients clients and starts their inputs; resolves once all are playing. */
  start(ctx: ScenarioContext): Promise<RunningLoad>;
}
