// How the server stops on SIGTERM/SIGINT (docs/operations.md#stopping-and-deploying): the first
// signal drains and stops the application, bounded by a deadline after which the process says what
// it still waited for and exits 1; a later signal exits at once. While it waits, the person at the
// terminal is told once that a second Ctrl-C stops at once, then what is left every 10 s (the same
// lines are info lines in the JSON log). Wired to the process in index.ts.
import type { Logger } from "../ops/logger.js";

/**
 * A second signal this soon after the first is the same stop delivered twice: Ctrl-C reaches both
 * npm and the server (npm passes it on), as does a stop sent to the whole process group (systemd).
 */
export const SAME_SIGNAL_MS = 1000;

/** How often a stop that waits says what is left (after a first line at SAME_SIGNAL_MS). */
export const PROGRESS_INTERVAL_MS = 10_000;

/** What a stop drives (app.ts' Application): declared here, so that process/ imports nothing above it. */
export interface StoppableApp {
  /** Drains and stops everything; once, however often called. */
  stop(): Promise<void>;
  /** What a stop still waits for: its current step and this process's open rooms. */
  pending(): { step: string; rooms: { room: string; clients: number }[] };
}

export interface StopOptions {
  app: StoppableApp;
  logger: Logger;
  drainSeconds: number;
  deadlineSeconds: number;
  /** Ends the process (index.ts: flush the logs, then process.exit); `urgent`: a second signal, flush briefly. */
  exit(code: number, urgent?: boolean): void;
}

/** Returns the signal handler; `started()` says whether a stop has begun. */
export function stopOnSignals(o: StopOptions): { onSignal(signal: NodeJS.Signals): void; started(): boolean } {
  let firstSignalAt: number | undefined;
  const timers: { hint?: NodeJS.Timeout; ticks?: NodeJS.Timeout } = {};
  const quiet = () => {
    clearTimeout(timers.hint);
    clearInterval(timers.ticks);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      quiet();
      o.logger.warn({ signal, pending: o.app.pending() }, "second signal: exiting now");
      return o.exit(1, true);
    }
    const since = (firstSignalAt = Date.now());
    o.logger.info(
      { signal, drain_seconds: o.drainSeconds, deadline_seconds: o.deadlineSeconds },
      "shutting down: no new rooms or seats, running matches finish, the others' players are sent elsewhere, the database closes",
    );
    // A stop over within the second says nothing more. One that waits (a duel, a boss battle) says
    // once, when a second signal starts to count, how to stop at once; then what is left, every 10 s.
    timers.hint = setTimeout(() => {
      const p = progress(o, since);
      o.logger.info(p.fields, `${p.line}; Ctrl-C again (or a second signal) stops at once`);
    }, SAME_SIGNAL_MS);
    timers.ticks = setInterval(() => {
      const p = progress(o, since);
      o.logger.info(p.fields, p.line);
    }, PROGRESS_INTERVAL_MS);
    timers.hint.unref();
    timers.ticks.unref();
    // Bounded whatever happens: past the deadline the process says what it still waited for and exits.
    setTimeout(() => {
      quiet();
      o.logger.error({ pending: o.app.pending(), deadline_seconds: o.deadlineSeconds }, "shutdown deadline passed: exiting with work still pending");
      o.exit(1);
    }, o.deadlineSeconds * 1000).unref();
    o.app.stop().then(
      () => {
        quiet();
        o.exit(0);
      },
      (err: unknown) => {
        quiet();
        o.logger.error({ err }, "error during shutdown");
        o.exit(1);
      },
    );
  };
  return { onSignal, started: () => firstSignalAt !== undefined };
}

/**
 * What a stop in progress waits for: log fields (its step, the rooms still open by type, their
 * players, the drain's time left) and the same as one line a person reads, e.g.
 * "draining: 2 matches left (boss 1, pvp 1), 12 players; called off in 287 s at the latest".
 */
export function progress(o: Pick<StopOptions, "app" | "drainSeconds">, since: number, now = Date.now()): { fields: Record<string, unknown>; line: string } {
  const { step, rooms } = o.app.pending();
  const byRoom: Record<string, number> = {};
  let players = 0;
  for (const r of rooms) {
    byRoom[r.room] = (byRoom[r.room] ?? 0) + 1;
    players += r.clients;
  }
  const drainLeft = Math.max(0, Math.ceil(o.drainSeconds - (now - since) / 1000));
  const fields = { step, rooms_open: rooms.length, by_room: byRoom, players, drain_left_seconds: drainLeft };
  if (step !== "draining the rooms") return { fields, line: `stopping: ${step}` };
  const kinds = Object.keys(byRoom)
    .sort()
    .map((room) => `${room} ${byRoom[room]}`)
    .join(", ");
  const left = `${plural(rooms.length, "match", "matches")} left${kinds ? ` (${kinds})` : ""}, ${plural(players, "player", "players")}`;
  const limit = drainLeft > 0 ? `called off in ${drainLeft} s at the latest` : "the drain limit has passed: closing them";
  return { fields, line: `draining: ${left}; ${limit}` };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
