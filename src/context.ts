// What every route and room needs: configuration, the database, tokens, the logger, and the state
// shared by every process of the deployment (boss seat leases, rate-limit counters).
// Colyseus instantiates rooms itself, so rooms reach the context through `appContext()`;
// one game server runs per process, which makes a process-wide context the honest model.
import type { Config } from "./config.js";
import type { Database, PrismaClient } from "./db/client.js";
import type { Logger } from "./logger.js";
import { TokenService } from "./auth/tokens.js";
import type { SeatClaims } from "./rooms/seatClaims.js";
import type { WindowCounters } from "./http/rateLimit.js";
import type { SharedState } from "./sharedState.js";

export interface AppContext {
  config: Config;
  db: Database;
  prisma: PrismaClient;
  tokens: TokenService;
  logger: Logger;
  seatClaims: SeatClaims;
  counters: WindowCounters;
}

export function createContext(config: Config, db: Database, logger: Logger, shared: Pick<SharedState, "seatClaims" | "counters">): AppContext {
  const { seatClaims, counters } = shared;
  return { config, db, prisma: db.prisma, tokens: new TokenService(config.jwtSecret, config.jwtTtlSeconds), logger, seatClaims, counters };
}

let current: AppContext | undefined;

export function setAppContext(ctx: AppContext | undefined): void {
  current = ctx;
}

export function appContext(): AppContext {
  if (!current) throw new Error("application context used before the server started");
  return current;
}
