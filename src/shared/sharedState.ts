// State every process of a deployment must agree on: live-match seat leases and rate-limit counters.
// With REDIS_URL it lives in Redis (one connection, shared by both); otherwise the single process
// keeps it in memory.
import { Redis } from "ioredis";
import type { Logger } from "../logger.js";
import { MemoryWindowCounters, RedisWindowCounters, type WindowCounters } from "./counters.js";
import { MatchSeats, MemoryLeaseStore, RedisLeaseStore } from "./matchSeats.js";

export interface SharedState {
  matchSeats: MatchSeats;
  counters: WindowCounters;
  close(): Promise<void>;
}

export function openSharedState(redisUrl: string | undefined, logger: Logger): SharedState {
  if (!redisUrl) {
    return { matchSeats: new MatchSeats(new MemoryLeaseStore()), counters: new MemoryWindowCounters(), close: async () => {} };
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  // ioredis reconnects by itself; without a listener it would print every failure to stderr.
  redis.on("error", (err) => logger.warn({ err }, "shared state: Redis connection error"));
  return {
    matchSeats: new MatchSeats(new RedisLeaseStore(redis)),
    counters: new RedisWindowCounters(redis),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
