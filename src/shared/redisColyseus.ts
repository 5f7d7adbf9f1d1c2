// Colyseus on Redis, scaled out (issue 29): its presence and driver on connections of our Redis
// link, and what this process republishes for Colyseus when Redis returns (it may come back empty):
// its subscriptions (the IPC channels other processes reach it and its rooms by), its room count
// (Colyseus' `roomcount` hash, which places new rooms and lists live processes) and the listings of
// its rooms (what matchmaking offers and mode status counts), together with removing the listings
// of its rooms that closed while Redis was away.
import { matchMaker, RoomInternalState, type IRoomCache, type Room } from "@colyseus/core";
import type { Dependencies } from "../dependencies.js";
import type { Logger } from "../logger.js";
import type { MatchSeats } from "./matchSeats.js";
import { ResilientRedisDriver } from "./redisDriver.js";
import { activeRedisLink, type RedisLink } from "./redisLink.js";
import { ResilientRedisPresence } from "./redisPresence.js";
import { activeRedisRecovery, RedisRecovery, republishOnRedisReturn, setActiveRedisRecovery } from "./redisRecovery.js";

/** Colyseus' presence and driver on our connections; waits (logging) until they are connected. */
export async function colyseusOnRedis(link: RedisLink): Promise<{ presence: ResilientRedisPresence; driver: ResilientRedisDriver }> {
  const presence = new ResilientRedisPresence(await link.create("presence-pub"), link);
  const driver = new ResilientRedisDriver(await link.create("driver"), link);
  await link.waitUntilReady();
  return { presence, driver };
}

type RoomInternals = { _listing?: IRoomCache; _internalState: RoomInternalState };

/** What the republishing needs of the application context (not the context itself: shared/ sits below it). */
interface RecoveryContext {
  matchSeats: MatchSeats;
  logger: Logger;
  dependencies: Dependencies;
}

/** Registers what this process republishes for Colyseus and its seat leases; returns the unregister. */
export function republishColyseus(ctx: RecoveryContext, presence: ResilientRedisPresence, driver: ResilientRedisDriver, localRooms: ReadonlySet<Room>): () => void {
  const offs = [
    republishOnRedisReturn("subscriptions", () => presence.resubscribe()),
    republishOnRedisReturn("seat leases", async () => {
      const conflicts = await ctx.matchSeats.republish();
      if (conflicts.length) ctx.logger.warn({ conflicts }, "while Redis was away another room took seats of accounts playing here: both matches go on");
      return conflicts;
    }),
    republishOnRedisReturn("room listings", async () => {
      const live = [...localRooms].map((r) => r as unknown as RoomInternals).filter((r) => r._internalState === RoomInternalState.CREATED && r._listing?.roomId);
      const ids = new Set(live.map((r) => r._listing!.roomId));
      await driver.persistAll(live.map((r) => r._listing!));
      const stale = (await driver.listingsOf(matchMaker.processId)).filter((l) => !ids.has(l.roomId));
      await driver.removeAll(stale.map((l) => l.roomId));
      await presence.writeRoomCount(matchMaker.processId, `${matchMaker.stats.local.roomCount},${matchMaker.stats.local.ccu}`);
    }),
  ];
  return () => offs.forEach((off) => off());
}

/**
 * Probes Redis twice a second on this process (/ready, 503s) and republishes what this process owns
 * there when it returns (./redisRecovery.ts). Returns the stop function.
 */
export function startRedisRecovery(ctx: RecoveryContext, localRooms: ReadonlySet<Room>): () => void {
  const link = activeRedisLink();
  const { presence, driver } = matchMaker;
  if (!link || !(presence instanceof ResilientRedisPresence) || !(driver instanceof ResilientRedisDriver)) return () => {};
  const unregister = republishColyseus(ctx, presence, driver, localRooms);
  const recovery = new RedisRecovery(link, ctx.dependencies, ctx.logger, () => link.ping()).start();
  setActiveRedisRecovery(recovery);
  return () => {
    unregister();
    if (activeRedisRecovery() === recovery) setActiveRedisRecovery(undefined);
  };
}
