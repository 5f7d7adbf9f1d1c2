// Start-up in one place, shared by `npm start` and the integration tests:
// config → database (+ pending migrations) → game server → admin listener (embedded database) →
// sample server; and the reverse on stop.
import { join } from "node:path";
import { usePasswordHashCost } from "./auth/passwords.js";
import { embeddedDatabaseDir, type Config } from "./config.js";
import { createContext, setAppContext, type AppContext } from "./context.js";
import { openDatabase, type Database } from "./db/client.js";
import { applyPendingMigrations } from "./db/migrate.js";
import { embeddedDatabaseExists, openPreparedEmbeddedDatabase } from "./db/prepareEmbedded.js";
import { seedFile } from "./db/seed.js";
import { createLogger, type Logger } from "./ops/logger.js";
import { startGameServer, type GameServer, type GameServerOptions } from "./server.js";
import { startSampleServer, type SampleServer } from "./sample/server.js";
import { openSharedState, type SharedState } from "./shared/sharedState.js";
import { closeRoomsOfDeadProcess, startOrphanSweeps } from "./rooms/orphanedRooms.js";
import { newAdminToken, publishAdminEndpoint } from "./admin/endpoint.js";
import { startAdminServer, type AdminServer } from "./http/adminServer.js";
import { usingDataDir } from "./process/dataDir.js";
import { waitForDatabase, watchDatabase } from "./db/health.js";
import { defaultBackupDir, sweepPartials, takeBackup, useBackupKey } from "./backup/index.js";
import { PRE_MIGRATION_SUBDIR, SCHEDULED_SUBDIR, scheduleBackups, type BackupSchedule } from "./backup/schedule.js";
import { backupBeforeMigrating } from "./backup/preMigration.js";
import { countBackupFailure, recordBackup } from "./ops/metrics.js";

export interface Application {
  ctx: AppContext;
  game: GameServer;
  sample?: SampleServer;
  /** Drains and stops everything (rooms get config.shutdownDrainSeconds); once, however often called. */
  stop(): Promise<void>;
  /** What a stop still waits for: its current step and this process's open rooms. */
  pending(): { step: string; rooms: ReturnType<GameServer["openRooms"]> };
}

export interface StartOptions {
  logger?: Logger;
  /** Use this database instead of opening the configured one (tests). */
  db?: Database;
  /** Overrides config.host (tests). */
  host?: string;
  rooms?: GameServerOptions["rooms"];
  /** How the game server's definition is served (tests: @colyseus/testing's boot()). */
  listen?: GameServerOptions["listen"];
}

export async function startApplication(config: Config, options: StartOptions = {}): Promise<Application> {
  const logger = options.logger ?? createLogger(config.logLevel);
  usePasswordHashCost(config.passwordHashCost);
  for (const warning of config.warnings ?? []) logger.warn(warning);
  // What a backup killed or failed earlier left half-written on the backup disk goes first (issue 41).
  if (!options.db) await sweepBackupPartials(defaultBackupDir(config), logger);
  useBackupKey(config); // the backups this process writes are signed with it
  let db: Database;
  let prepared: string[] | undefined;
  if (options.db) db = options.db;
  else if (config.databaseUrl) db = await openDatabase({ databaseUrl: config.databaseUrl });
  else {
    const dir = embeddedDatabaseDir(config);
    // How long it takes depends on the machine: the line says what it does, the next one how long it took.
    const creating = !embeddedDatabaseExists(dir);
    const began = performance.now();
    if (creating) {
      const seed = seedFile() !== undefined;
      logger.info({ dir, seed }, `first start: creating the embedded database, once (${seed ? "from the seed npm install built" : "with initdb: npm install built no seed"})`);
    }
    ({ db, applied: prepared } = await openPreparedEmbeddedDatabase(dir, { beforeMigrating: (d) => backupBeforeMigrating(d, defaultBackupDir(config), logger) }));
    if (creating) {
      const ms = Math.round(performance.now() - began);
      logger.info({ dir, ms }, `first start: the embedded database was created in ${(ms / 1000).toFixed(1)} s`);
    }
  }
  const host = options.host ?? config.host;
  let game: GameServer | undefined;
  let sample: SampleServer | undefined;
  let shared: SharedState | undefined;
  let unpublishAdmin = () => {};
  let admin: AdminServer | undefined;
  let unwatchDatabase = () => {};
  let backups: BackupSchedule | undefined;
  try {
    // PostgreSQL not answering yet (started together with it, or it is down): wait, one line per 10 s,
    // answering /ready 503 on the port meanwhile.
    if (db.kind === "postgres" && config.databaseUrl && !options.db) {
      await waitForDatabase(db, config.databaseUrl, logger, { whileWaiting: options.listen ? undefined : { port: config.port, host } });
    }
    if (!prepared && !options.db) await backupBeforeMigrating(db, defaultBackupDir(config), logger);
    const applied = prepared ?? (await applyPendingMigrations(db));
    logger.info({ database: db.describe, applied }, applied.length ? "applied migrations" : "database schema up to date");
    // Scaled out, the process waits here for Redis, answering /ready 503 on its port meanwhile.
    shared = await openSharedState(config.redisUrl, logger, options.listen ? {} : { whileWaiting: { port: config.port, host } });
    const ctx = createContext(config, db, logger, shared);
    setAppContext(ctx);
    unwatchDatabase = watchDatabase(db, ctx.dependencies, config.databaseUrl);
    if (!config.redisUrl) await closeRoomsOfDeadProcess(ctx);
    game = await startGameServer(ctx, { port: config.port, host, rooms: options.rooms, listen: options.listen });
    // Owning the embedded database on disk, this process runs operator commands for `npm run admin`:
    // on a loopback listener of its own, named with its token in DATA_DIR/admin.json.
    if (db.kind === "pglite" && !options.db) {
      const token = newAdminToken();
      admin = await startAdminServer(ctx, token, host);
      const endpoint = { pid: process.pid, url: admin.url, token };
      unpublishAdmin = usingDataDir(config.dataDir, "writing admin.json", () => publishAdminEndpoint(config.dataDir, endpoint));
    }
    const stopSweeps = config.redisUrl ? startOrphanSweeps(ctx) : () => {};
    backups = startBackupSchedule(config, db, logger);
    // performance.now() counts from process start: the whole start-up, imports included.
    logger.info({ port: game.port, startup_ms: Math.round(performance.now()) }, "game server listening (REST + WebSocket)");
    if (config.samplePort !== 0) {
      sample = await startSampleServer(config.samplePort, logger, host);
      logger.info({ port: sample.port }, "sample information server listening");
    }
    logger.info(readyLine(host, game.port, config.monitorUser !== undefined));
    let stopping: Promise<void> | undefined;
    let step = "running";
    const stop = () =>
      (stopping ??= (async () => {
        unpublishAdmin();
        const adminClosed = admin?.close(); // takes no new command; the ones in flight finish below
        stopSweeps();
        step = "closing the sample server";
        await sample?.close();
        step = "draining the rooms";
        await game!.shutdown(config.shutdownDrainSeconds * 1000);
        step = "finishing a backup in flight";
        await backups?.stop();
        step = "answering the admin commands in flight";
        await adminClosed;
        step = "closing the shared state";
        await shared!.close();
        step = "closing the database";
        unwatchDatabase();
        await db.close();
        step = "stopped";
        setAppContext(undefined);
        logger.info("stopped");
      })());
    return { ctx, game, sample, stop, pending: () => ({ step, rooms: game!.openRooms() }) };
  } catch (err) {
    unpublishAdmin();
    await admin?.close();
    unwatchDatabase();
    await backups?.stop();
    await sample?.close().catch(() => {});
    await game?.shutdown().catch(() => {});
    await shared?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}

/** Removes the temporary files of backups no live process writes, in BACKUP_DIR and its two folders. */
async function sweepBackupPartials(dir: string, logger: Logger): Promise<void> {
  for (const folder of [dir, join(dir, SCHEDULED_SUBDIR), join(dir, PRE_MIGRATION_SUBDIR)]) {
    const removed = await sweepPartials(folder).catch(() => []);
    if (removed.length) logger.info({ dir: folder, removed }, "removed what earlier backups left half-written");
  }
}

/** BACKUP_EVERY's schedule over this process's database, or none when it is off. */
function startBackupSchedule(config: Config, db: Database, logger: Logger): BackupSchedule | undefined {
  if (config.backupEverySeconds === undefined) return undefined;
  const dir = defaultBackupDir(config);
  logger.info({ dir, every_s: config.backupEverySeconds, keep: config.backupKeep }, "scheduled backups on");
  return scheduleBackups({
    everyMs: config.backupEverySeconds * 1000,
    keep: config.backupKeep,
    dir,
    backup: (target) => takeBackup(db, target),
    logger,
    onSuccess: recordBackup,
    onFailure: countBackupFailure,
  });
}

/** The one line that tells a person where to go once both ports serve. */
export function readyLine(host: string, port: number, monitor: boolean): string {
  const base = `http://${loopbackHost(host)}:${port}`;
  const everywhere = host === "0.0.0.0" || host === "::";
  return `ready: play at ${base}/play/${monitor ? `, monitor at ${base}/monitor` : ""}${everywhere ? ` (listening on every interface, HOST=${host})` : ""}`;
}

/** Where a local command reaches this server: the address it listens on, loopback when it listens on all. */
function loopbackHost(host: string | undefined): string {
  if (!host || host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
