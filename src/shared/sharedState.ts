// State every process of a deployment must agree on: live-match seat leases, rate-limit counters
// and news of ended sessions. With REDIS_URL it lives in Redis (one connection, plus one for the
// session-events subscription); otherwise the single process keeps it in memory. With REDIS_URL the
// process waits here until Redis answers (one line per 10 s naming REDIS_URL and its address).
import type { Redis } from "ioredis";
import type { Logger } from "../ops/logger.js";
import { MemoryWindowCounters, RedisWindowCounters, type WindowCounters } from "./counters.js";
import { MatchSeats, MemoryLeaseStore, RedisLeaseStore } from "./matchSeats.js";
import { LocalSessionEvents, RedisSessionEvents, type SessionEvents } from "./sessionEvents.js";
import { RedisLink, setActiveRedisLink } from "./redisLink.js";
import { listenWhileWaiting, type WaitingServer } from "../process/waitingServer.js";

export interface SharedState {
  matchSeats: MatchSeats;
  counters: WindowCounters;
  sessionEvents: SessionEvents;
  /** Scaled out: the Redis link (every connection, failures, start-up wait) and our own connection. */
  redis?: { link: RedisLink; client: Redis };
  close(): Promise<void>;
}

/** Opens the shared state; ioredis is loaded only when there is a Redis to talk to. */
export interface SharedStateOptions {
  /** Wait until Redis answers (default). A one-shot command (npm run admin) does not: its Redis calls fail fast instead. */
  wait?: boolean;
  /** While waiting for Redis at start, answer on this port: /health 200, /ready and the rest 503 (src/process/waitingServer.ts). */
  whileWaiting?: { port: number; host?: string };
}

export async function openSharedState(redisUrl: string | undefined, logger: Logger, options: SharedStateOptions = {}): Promise<SharedState> {
  if (!redisUrl) {
    return {
      matchSeats: new MatchSeats(new MemoryLeaseStore()),
      counters: new MemoryWindowCounters(),
      sessionEvents: new LocalSessionEvents(),
      close: async () => {},
    };
  }
  // Every connection reconnects forever, fails fast while Redis is away and reports its failures
  // instead of printing them (./redisLink.ts). The process waits for Redis at start.
  const link = new RedisLink(redisUrl, logger);
  const redis = await link.create("shared");
  const sessionEvents = new RedisSessionEvents(redis, link, logger);
  let waiting: WaitingServer | undefined;
  const { whileWaiting, wait = true } = options;
  try {
    if (wait) {
      await link.waitUntilReady(async () => {
        if (whileWaiting && whileWaiting.port !== 0) waiting = await listenWhileWaiting(whileWaiting.port, whileWaiting.host, () => ["redis"]);
      });
    }
  } finally {
    await waiting?.close();
  }
  setActiveRedisLink(link);
  return {
    matchSeats: new MatchSeats(new RedisLeaseStore(redis, link)),
    counters: new RedisWindowCounters(redis, "ratelimit:", link),
    sessionEvents,
    redis: { link, client: redis },
    close: async () => {
      setActiveRedisLink(undefined);
      await link.close();
    },
  };
}
