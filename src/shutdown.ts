// How the server stops on SIGTERM/SIGINT (docs/operations.md#stopping-and-deploying): the first
// signal drains and stops the application, bounded by a deadline after which the process says what
// it still waited for and exits 1; a later signal exits at once. Wired to the process in index.ts.
import type { Logger } from "./logger.js";
import type { Application } from "./app.js";

/**
 * A second signal this soon after the first is the same stop delivered twice: Ctrl-C reaches both
 * npm and the server (npm passes it on), as does a stop sent to the whole process group (systemd).
 */
export const SAME_SIGNAL_MS = 1000;

export interface StopOptions {
  app: Pick<Application, "stop" | "pending">;
  logger: Logger;
  drainSeconds: number;
  deadlineSeconds: number;
  /** Ends the process (index.ts: flush the logs, then process.exit); `urgent`: a second signal, flush briefly. */
  exit(code: number, urgent?: boolean): void;
}

/** Returns the signal handler; `started()` says whether a stop has begun. */
export function stopOnSignals(o: StopOptions): { onSignal(signal: NodeJS.Signals): void; started(): boolean } {
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      o.logger.warn({ signal, pending: o.app.pending() }, "second signal: exiting now");
      return o.exit(1, true);
    }
    firstSignalAt = Date.now();
    o.logger.info(
      { signal, drain_seconds: o.drainSeconds, deadline_seconds: o.deadlineSeconds },
      "shutting down: no new rooms or seats, running matches finish, the others' players are sent elsewhere, the database closes",
    );
    // Bounded whatever happens: past the deadline the process says what it still waited for and exits.
    setTimeout(() => {
      o.logger.error({ pending: o.app.pending(), deadline_seconds: o.deadlineSeconds }, "shutdown deadline passed: exiting with work still pending");
      o.exit(1);
    }, o.deadlineSeconds * 1000).unref();
    o.app.stop().then(
      () => o.exit(0),
      (err: unknown) => {
        o.logger.error({ err }, "error during shutdown");
        o.exit(1);
      },
    );
  };
  return { onSignal, started: () => firstSignalAt !== undefined };
}
