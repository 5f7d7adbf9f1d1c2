// `npm start`: run the game server and the sample information server until SIGTERM/SIGINT.
import { ConfigError, loadConfig, loadDotEnv } from "./config.js";
import { createLogger, prettyLogsWanted } from "./logger.js";
import { startApplication } from "./app.js";
import { DataDirError } from "./dataDir.js";

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

const logger = createLogger(config.logLevel, {}, { pretty: prettyLogsWanted(config.nodeEnv, process.stdout.isTTY) });
try {
  const app = await startApplication(config, { logger });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    logger.info({ signal }, "shutting down: no new connections, rooms finish, database closes");
    app.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "error during shutdown");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // Not a second signal when a SIGTERM to the whole group (systemd) already began the shutdown.
  if (process.env.npm_lifecycle_event) onParentGone(() => signals === 0 && onSignal("SIGTERM"));
} catch (err) {
  if (err instanceof DataDirError) {
    console.error(err.message); // a configuration error: one line, no stack
    process.exit(2);
  }
  logger.fatal({ err }, "could not start");
  process.exit(1);
}

/**
 * Under `npm start` this process is npm's grandchild (npm → sh → node), and neither npm nor sh
 * passes a SIGTERM on: a process manager stopping npm would leave the server serving as an orphan.
 * When the parent goes away, this process is re-parented; it then shuts down as on SIGTERM.
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
