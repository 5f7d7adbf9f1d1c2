// Start-up in one place, shared by `npm start` and the integration tests:
// config → database (+ pending migrations) → game server → sample server; and the reverse on stop.
import { embeddedDatabaseDir, type Config } from "./config.js";
import { createContext, setAppContext, type AppContext } from "./context.js";
import { openDatabase, type Database } from "./db/client.js";
import { applyPendingMigrations } from "./db/migrate.js";
import { createLogger, type Logger } from "./logger.js";
import { startGameServer, type GameServer, type GameServerOptions } from "./server.js";
import { startSampleServer, type SampleServer } from "./sample/server.js";
import { openSharedState, type SharedState } from "./shared/sharedState.js";
import { closeRoomsOfDeadProcess, startOrphanSweeps } from "./orphanedRooms.js";

export interface Application {
  ctx: AppContext;
  game: GameServer;
  sample?: SampleServer;
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Use this database instead of opening the configured one (tests). */
  db?: Database;
  host?: string;
  rooms?: GameServerOptions["rooms"];
}

export async function startApplication(config: Config, options: StartOptions = {}): Promise<Application> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, pgliteDataDir: embeddedDatabaseDir(config) }));
  let game: GameServer | undefined;
  let sample: SampleServer | undefined;
  let shared: SharedState | undefined;
  try {
    const applied = await applyPendingMigrations(db);
    logger.info({ database: db.describe, applied }, applied.length ? "applied migrations" : "database schema up to date");
    shared = openSharedState(config.redisUrl, logger);
    const ctx = createContext(config, db, logger, shared);
    setAppContext(ctx);
    if (!config.redisUrl) await closeRoomsOfDeadProcess(ctx);
    game = await startGameServer(ctx, { port: config.port, host: options.host, rooms: options.rooms });
    const stopSweeps = config.redisUrl ? startOrphanSweeps(ctx) : () => {};
    // performance.now() counts from process start: the whole start-up, imports included.
    logger.info({ port: game.port, startup_ms: Math.round(performance.now()) }, "game server listening (REST + WebSocket)");
    if (config.samplePort !== 0) {
      sample = await startSampleServer(config.samplePort, logger, options.host);
      logger.info({ port: sample.port }, "sample information server listening");
    }
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        stopSweeps();
        await sample?.close();
        await game!.shutdown();
        await shared!.close();
        await db.close();
        setAppContext(undefined);
        logger.info("stopped");
      })());
    return { ctx, game, sample, stop };
  } catch (err) {
    await sample?.close().catch(() => {});
    await game?.shutdown().catch(() => {});
    await shared?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}
