// `npm start`: run the game server and the sample information server until SIGTERM/SIGINT.
import { ConfigError, loadConfig, loadDotEnv } from "./config.js";
import { createLogger, prettyLogsWanted, stdoutLog } from "./logger.js";
import { startApplication } from "./app.js";

let config;
try {
  loadDotEnv();
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}

// stdout is written without ever blocking on its reader (src/logger.ts: stdoutLog).
const stdout = stdoutLog();
const logger = createLogger(config.logLevel, {}, prettyLogsWanted(config.nodeEnv, process.stdout.isTTY) ? { pretty: true } : { destination: stdout.destination });
/** Exits once the log lines are out (waiting a second at most for a reader that stopped reading). */
const exit = (code: number): never => {
  stdout.flush(1000);
  process.exit(code);
};

/**
 * A second signal this soon after the first is the same stop delivered twice: Ctrl-C reaches both
 * npm and the server (npm passes it on), as does a stop sent to the whole process group (systemd).
 */
const SAME_SIGNAL_MS = 1000;

try {
  const app = await startApplication(config, { logger });
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      logger.warn({ signal, pending: app.pending() }, "second signal: exiting now");
      exit(1);
    }
    firstSignalAt = Date.now();
    logger.info(
      { signal, drain_seconds: config.shutdownDrainSeconds, deadline_seconds: config.shutdownDeadlineSeconds },
      "shutting down: no new rooms or seats, running matches finish, the others' players are sent elsewhere, the database closes",
    );
    // Bounded whatever happens: past the deadline the process says what it still waited for and exits.
    setTimeout(() => {
      logger.error({ pending: app.pending(), deadline_seconds: config.shutdownDeadlineSeconds }, "shutdown deadline passed: exiting with work still pending");
      exit(1);
    }, config.shutdownDeadlineSeconds * 1000).unref();
    app.stop().then(
      () => exit(0),
      (err) => {
        logger.error({ err }, "error during shutdown");
        exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // Not a second signal when a SIGTERM to the whole group (systemd) already began the shutdown.
  if (process.env.npm_lifecycle_event) onParentGone(() => firstSignalAt === undefined && onSignal("SIGTERM"));
} catch (err) {
  logger.fatal({ err }, "could not start");
  exit(1);
}

/**
 * Under `npm start` this process is npm's child (the start script `exec`s node, so no shell sits in
 * between to swallow a SIGINT) and npm passes SIGTERM and SIGINT on. If npm itself goes without
 * passing anything on (SIGKILL), this process is re-parented: it then shuts down as on SIGTERM
 * instead of serving on as an orphan.
 */
function onParentGone(callback: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    callback();
  }, 250);
  timer.unref();
}
