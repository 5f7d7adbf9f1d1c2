// `npm start`: run the game server and the sample information server until SIGTERM/SIGINT.
import { ConfigError, loadConfig, loadDotEnv } from "./config.js";
import { createLogger } from "./logger.js";
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

const logger = createLogger(config.logLevel);
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
} catch (err) {
  logger.fatal({ err }, "could not start");
  process.exit(1);
}
