// State every process of a deployment must agree on: live-match seat leases, rate-limit counters
// and news of ended sessions. With REDIS_URL it lives in Redis (one connection, plus one for the
// session-events subscription); otherwise the single process keeps it in memory.
import { Redis } from "ioredis";
import type { Logger } from "../logger.js";
import { MemoryWindowCounters, RedisWindowCounters, type WindowCounters } from "./counters.js";
import { MatchSeats, MemoryLeaseStore, RedisLeaseStore } from "./matchSeats.js";
import { LocalSessionEvents, RedisSessionEvents, type SessionEvents } from "./sessionEvents.js";

export interface SharedState {
  matchSeats: MatchSeats;
  counters: WindowCounters;
  sessionEvents: SessionEvents;
  close(): Promise<void>;
}

export function openSharedState(redisUrl: string | undefined, logger: Logger): SharedState {
  if (!redisUrl) {
    return {
      matchSeats: new MatchSeats(new MemoryLeaseStore()),
      counters: new MemoryWindowCounters(),
      sessionEvents: new LocalSessionEvents(),
      close: async () => {},
    };
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  // ioredis reconnects by itself; without a listener it would print every failure to stderr.
  redis.on("error", (err) => logger.warn({ err }, "shared state: Redis connection error"));
  const sessionEvents = new RedisSessionEvents(redis, logger);
  return {
    matchSeats: new MatchSeats(new RedisLeaseStore(redis)),
    counters: new RedisWindowCounters(redis),
    sessionEvents,
    close: async () => {
      await sessionEvents.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
