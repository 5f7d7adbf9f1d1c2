// State every process of a deployment must agree on: boss seat leases and rate-limit counters.
// With REDIS_URL it lives in Redis (one connection, shared by both); otherwise the single process
// keeps it in memory.
import { Redis } from "ioredis";
import type { Logger } from "./logger.js";
import { MemoryWindowCounters, RedisWindowCounters, type WindowCounters } from "./http/rateLimit.js";
import { MemoryLeaseStore, RedisLeaseStore, SeatClaims } from "./rooms/seatClaims.js";

export interface SharedState {
  seatClaims: SeatClaims;
  counters: WindowCounters;
  close(): Promise<void>;
}

export function openSharedState(redisUrl: string | undefined, logger: Logger): SharedState {
  if (!redisUrl) {
    return { seatClaims: new SeatClaims(new MemoryLeaseStore()), counters: new MemoryWindowCounters(), close: async () => {} };
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  // ioredis reconnects by itself; without a listener it would print every failure to stderr.
  redis.on("error", (err) => logger.warn({ err }, "shared state: Redis connection error"));
  return {
    seatClaims: new SeatClaims(new RedisLeaseStore(redis)),
    counters: new RedisWindowCounters(redis),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
