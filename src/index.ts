// `npm start`: run the game server and the sample information server until SIGTERM/SIGINT.
import { ConfigError, loadConfig, loadDotEnv } from "./config.js";
import { createLogger, prettyLogsWanted, stdoutLog } from "./ops/logger.js";
import { startApplication } from "./app.js";
import { DataDirError } from "./process/dataDir.js";
import { PreMigrationBackupError } from "./backup/preMigration.js";
import { stopOnSignals } from "./process/shutdown.js";
import { isSecondCopy, refuseSecondCopy } from "./startChecks.js";

let config;
try {
  loadDotEnv();
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError || err instanceof DataDirError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}

// stdout is written without ever blocking on its reader (src/ops/logger.ts: stdoutLog).
const stdout = stdoutLog();
const logger = createLogger(config.logLevel, {}, prettyLogsWanted(config.nodeEnv, process.stdout.isTTY) ? { pretty: true } : { destination: stdout.destination });
/**
 * Exits once the log lines are out: waiting a second at most for a reader that stopped reading (a
 * full pipe), a tenth on a second signal, never for one that is gone (a broken pipe).
 */
const exit = (code: number, urgent = false): never => {
  stdout.flush(urgent ? 100 : 1000);
  process.exit(code);
};

try {
  // Before anything else (no database is created or opened, nothing listens): a second copy is one line.
  await refuseSecondCopy(config);
  const app = await startApplication(config, { logger });
  const { onSignal, started } = stopOnSignals({ app, logger, drainSeconds: config.shutdownDrainSeconds, deadlineSeconds: config.shutdownDeadlineSeconds, exit });
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // Not a second signal when a SIGTERM to the whole group (systemd) already began the shutdown.
  if (process.env.npm_lifecycle_event) onParentGone(() => !started() && onSignal("SIGTERM"));
} catch (err) {
  if (err instanceof DataDirError || err instanceof PreMigrationBackupError || isSecondCopy(err)) {
    console.error(err.message); // a configuration error or a second copy: one line, no stack
    exit(2);
  }
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
