// Whether PostgreSQL answers, as the process sees it. Every statement reports its outcome
// (Database.watch, src/db/client.ts): one that could not reach the server marks the database down in
// the dependency tracker (src/dependencies.ts: 503 database_unavailable, /ready 503, one error line
// per interval), the first one that is answered marks it back up (one info line). While it is down,
// a probe (SELECT 1) runs every DATABASE_PROBE_INTERVAL_MS, so its return is seen even when no
// request comes. At start-up, the process waits for the database; its port answers /ready 503 meanwhile.
import type { Database } from "./client.js";
import type { Dependencies } from "../dependencies.js";
import type { Logger } from "../ops/logger.js";
import { databaseAddress, isDatabaseUnreachable } from "./unreachable.js";
import { listenWhileWaiting, type WaitingServer } from "../process/waitingServer.js";

/** How often an unreachable database is probed. */
export const DATABASE_PROBE_INTERVAL_MS = 2000;
/** How long /ready and the probe wait for `SELECT 1` (a frozen server must not hang them). */
export const DATABASE_PROBE_TIMEOUT_MS = 1000;
/** At most one "waiting for the database" line per this interval at start-up. */
export const STARTUP_WAIT_LOG_INTERVAL_MS = 10_000;

/** Connects the database's statements to the dependency tracker; returns the stop of its probe. */
export function watchDatabase(db: Database, dependencies: Dependencies, databaseUrl: string | undefined): () => void {
  if (db.kind !== "postgres") return () => {};
  if (databaseUrl) dependencies.describe("database", { variable: "DATABASE_URL", address: databaseAddress(databaseUrl) });
  let probe: NodeJS.Timeout | undefined;
  const stopProbe = () => {
    clearInterval(probe);
    probe = undefined;
  };
  db.watch({
    answered: () => {
      stopProbe();
      dependencies.ok("database");
    },
    unreachable: (err) => {
      dependencies.failed("database", err);
      probe ??= setInterval(() => void probeDatabase(db, dependencies), DATABASE_PROBE_INTERVAL_MS).unref();
    },
  });
  return stopProbe;
}

/**
 * `SELECT 1`, answered within DATABASE_PROBE_TIMEOUT_MS or counted as unreachable (/ready and the
 * probe; PostgreSQL). Its outcome reaches the tracker through the statement's own report; a timeout
 * is reported here.
 */
export async function probeDatabase(db: Database, dependencies: Dependencies): Promise<boolean> {
  // The embedded database cannot be unreachable; under load its one connection may be busy for a while.
  if (db.kind !== "postgres") return db.prisma.$queryRaw`SELECT 1`.then(() => true, () => false);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), DATABASE_PROBE_TIMEOUT_MS)));
  try {
    const outcome = await Promise.race([db.prisma.$queryRaw`SELECT 1`.then(() => "ok" as const), timeout]);
    if (outcome === "ok") return true;
    dependencies.failed("database", new Error(`no answer to SELECT 1 within ${DATABASE_PROBE_TIMEOUT_MS} ms`));
    return false;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Start-up: waits until PostgreSQL answers, logging one line per STARTUP_WAIT_LOG_INTERVAL_MS that
 * names DATABASE_URL and host:port (never credentials). Any other failure (a wrong password, a
 * missing database) is thrown at once: waiting would not fix it.
 */
export async function waitForDatabase(
  db: Database,
  databaseUrl: string,
  logger: Logger,
  options: { retryMs?: number; whileWaiting?: { port: number; host?: string } } = {},
): Promise<void> {
  const { retryMs = 1000, whileWaiting } = options;
  const startedAt = Date.now();
  let lastLineAt = -Infinity;
  // Meanwhile the port answers /health 200 and /ready 503 (src/process/waitingServer.ts), as while waiting for Redis.
  let waiting: WaitingServer | undefined;
  for (;;) {
    try {
      await db.prisma.$queryRaw`SELECT 1`;
      await waiting?.close();
      if (lastLineAt !== -Infinity) logger.info({ variable: "DATABASE_URL", address: databaseAddress(databaseUrl), waited_s: Math.round((Date.now() - startedAt) / 1000) }, "database reachable: starting");
      return;
    } catch (err) {
      if (!isDatabaseUnreachable(err)) {
        await waiting?.close();
        throw err;
      }
      if (!waiting && whileWaiting && whileWaiting.port !== 0) waiting = await listenWhileWaiting(whileWaiting.port, whileWaiting.host, () => ["database"]);
      if (Date.now() - lastLineAt >= STARTUP_WAIT_LOG_INTERVAL_MS) {
        lastLineAt = Date.now();
        logger.error(
          { variable: "DATABASE_URL", address: databaseAddress(databaseUrl), waited_s: Math.round((Date.now() - startedAt) / 1000) },
          `waiting for the database at ${databaseAddress(databaseUrl)} (DATABASE_URL): not reachable yet; the server starts once it answers`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
