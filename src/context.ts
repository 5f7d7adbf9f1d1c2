// What every route and room needs: configuration, the database, tokens, the logger, and the state
// shared by every process of the deployment (live-match seat leases, rate-limit counters).
// Colyseus instantiates rooms itself, so rooms reach the context through `appContext()`;
// one game server runs per process, which makes a process-wide context the honest model.
import type { Config } from "./config.js";
import type { Database, PrismaClient } from "./db/client.js";
import type { Logger } from "./ops/logger.js";
import { TokenService } from "./auth/tokens.js";
import type { MatchSeats } from "./shared/matchSeats.js";
import type { WindowCounters } from "./shared/counters.js";
import type { SharedState } from "./shared/sharedState.js";
import { SessionRegistry } from "./auth/sessions.js";
import { StorageHealth } from "./process/storageHealth.js";
import { fileSystemFull } from "./process/dataDir.js";
import { Dependencies } from "./dependencies.js";
import { TrustedProxies } from "./net/proxy.js";
import { LastSeen } from "./auth/lastSeen.js";

export interface AppContext {
  config: Config;
  db: Database;
  prisma: PrismaClient;
  tokens: TokenService;
  logger: Logger;
  matchSeats: MatchSeats;
  counters: WindowCounters;
  /** Which sessions are live (cached; shared news of ended sessions when scaled out). */
  sessions: SessionRegistry;
  /** Whether the database's storage has room for writes. */
  storage: StorageHealth;
  /** Whether Redis and the database answer now (503s, /ready, one log line per interval, work on their return). */
  dependencies: Dependencies;
  /** TRUST_PROXY: whose X-Forwarded-For counts; the one source of a request's client address. */
  proxies: TrustedProxies;
  /** Accounts' "last seen" (sign-ins, throttled per request). */
  lastSeen: LastSeen;
}

export function createContext(config: Config, db: Database, logger: Logger, shared: Pick<SharedState, "matchSeats" | "counters" | "sessionEvents">): AppContext {
  const { matchSeats, counters, sessionEvents } = shared;
  return {
    config,
    db,
    prisma: db.prisma,
    tokens: new TokenService(config.jwtSecret, config.jwtTtlSeconds),
    logger,
    matchSeats,
    counters,
    sessions: new SessionRegistry(db.prisma, sessionEvents),
    storage:
      db.kind === "pglite"
        ? new StorageHealth(logger, `DATA_DIR ${config.dataDir}`, () => fileSystemFull(config.dataDir))
        : new StorageHealth(logger, `the PostgreSQL server (${db.describe})`),
    dependencies: new Dependencies(logger),
    proxies: new TrustedProxies(config.trustProxy),
    lastSeen: new LastSeen(db.prisma, logger),
  };
}

let current: AppContext | undefined;

export function setAppContext(ctx: AppContext | undefined): void {
  current = ctx;
}

export function appContext(): AppContext {
  if (!current) throw new Error("application context used before the server started");
  return current;
}
