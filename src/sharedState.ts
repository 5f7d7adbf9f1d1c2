// State every process of a deployment must agree on: boss seat leases and rate-limit counters.
// With REDIS_URL it lives in Redis (one connection, shared by both); otherwise the single process
// keeps it in memory.
import { Redis } from "ioredis";
import { MemoryWindowCounters, RedisWindowCounters, type WindowCounters } from "./http/rateLimit.js";
import { MemoryLeaseStore, RedisLeaseStore, SeatClaims } from "./rooms/seatClaims.js";

export interface SharedState {
  seatClaims: SeatClaims;
  counters: WindowCounters;
  close(): Promise<void>;
}

export function openSharedState(redisUrl: string | undefined): SharedState {
  if (!redisUrl) {
    return { seatClaims: new SeatClaims(new MemoryLeaseStore()), counters: new MemoryWindowCounters(), close: async () => {} };
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  return {
    seatClaims: new SeatClaims(new RedisLeaseStore(redis)),
    counters: new RedisWindowCounters(redis),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
