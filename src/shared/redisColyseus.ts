// Colyseus on Redis, scaled out (issue 29): its presence and driver on connections of our Redis
// link, and what this process republishes for Colyseus when Redis returns (it may come back empty):
// its subscriptions (the IPC channels other processes reach it and its rooms by), its room count
// (Colyseus' `roomcount` hash, which places new rooms and lists live processes) and the listings of
// its rooms (what matchmaking offers and mode status counts), together with removing the listings
// of its rooms that closed while Redis was away. Redis may come back with older data: leases naming
// rooms that ended are taken back by the live rooms (./matchSeats.ts, judged by the rooms' IPC
// subscriptions), and the listings, room counts and room-naming keys (party codes) of processes and
// rooms that are not alive are dropped before matchmaking opens (`dropGhosts`).
import { matchMaker, RoomInternalState, type IRoomCache, type Room } from "@colyseus/core";
import type { Dependencies } from "../dependencies.js";
import type { Logger } from "../ops/logger.js";
import type { MatchSeats } from "./matchSeats.js";
import { ResilientRedisDriver } from "./redisDriver.js";
import { activeRedisLink, type RedisLink } from "./redisLink.js";
import { ResilientRedisPresence } from "./redisPresence.js";
import { activeRedisRecovery, RedisRecovery, republishOnRedisReturn, setActiveRedisRecovery, sweepOnRedisReturn, type ReturnPeers } from "./redisRecovery.js";

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

/** Keys whose value is a room id (party codes → their arena), dropped at Redis' return when that room is not alive, unless the value is one of `keep`. */
export interface RoomKeys {
  pattern: string;
  keep: string[];
}

/** Whether a room is one of this process's live rooms. */
function isLocal(localRooms: ReadonlySet<Room>, roomId: string): boolean {
  for (const r of localRooms) if (r.roomId === roomId && (r as unknown as RoomInternals)._internalState === RoomInternalState.CREATED) return true;
  return false;
}

/**
 * At Redis' return, after every live process has subscribed again: drops the listings and room
 * counts of processes that are not alive (no `p:<processId>` subscription) and the room-naming keys
 * whose room is not alive (no `$<roomId>` subscription), so that Redis restored from older data
 * routes no joiner to a ghost and mode status counts only live rooms.
 */
export async function dropGhosts(presence: ResilientRedisPresence, driver: ResilientRedisDriver, roomKeys: RoomKeys[]) {
  const { processes, rooms } = await presence.alive();
  processes.add(matchMaker.processId);
  const listings = await driver.allListings();
  const counted = await presence.countedProcesses();
  const ghosts = [...new Set([...listings.map((l) => l.processId), ...counted])].filter((p) => p && !processes.has(p));
  for (const processId of ghosts) await driver.removeListingsOf(processId);
  await presence.uncount(ghosts);
  let keys = 0;
  for (const { pattern, keep } of roomKeys) keys += await presence.dropKeys(pattern, (value) => !keep.includes(value) && !rooms.has(value));
  return { processes: ghosts, listings: listings.filter((l) => ghosts.includes(l.processId)).length, keys };
}

/** Registers what this process republishes for Colyseus and its seat leases; returns the unregister. */
export function republishColyseus(ctx: RecoveryContext, presence: ResilientRedisPresence, driver: ResilientRedisDriver, localRooms: ReadonlySet<Room>, roomKeys: RoomKeys[] = []): () => void {
  // A lease naming a room that is not alive loses to a live room (Redis came back with older data).
  ctx.matchSeats.judgeLivenessBy(async ({ roomId }) => isLocal(localRooms, roomId) || (await presence.roomAlive(roomId)));
  const offs = [
    () => ctx.matchSeats.judgeLivenessBy(undefined),
    sweepOnRedisReturn("ghosts", () => dropGhosts(presence, driver, roomKeys)),
    republishOnRedisReturn("subscriptions", () => presence.resubscribe()),
    republishOnRedisReturn("seat leases", async () => {
      const { takenBack, conflicts } = await ctx.matchSeats.republish();
      if (takenBack.length) ctx.logger.warn({ takenBack }, "Redis came back with leases naming rooms that are not alive: the live rooms took them back");
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

/** Where a process confirms it has republished into an incarnation of Redis (./redisRecovery.ts). */
const CONFIRM_PREFIX = "recovery:republished:";

/** The processes of the deployment telling one another they have republished, through Redis. */
export function returnPeers(presence: ResilientRedisPresence): ReturnPeers {
  return {
    epoch: () => presence.epoch(),
    present: async () => {
      const [processes, counted] = await Promise.all([presence.aliveProcesses(), presence.countedProcesses()]);
      const present = new Set([...processes, ...counted]);
      present.delete(matchMaker.processId);
      return present;
    },
    confirm: (epoch, ttlMs) => presence.setFor(`${CONFIRM_PREFIX}${matchMaker.processId}`, epoch, ttlMs),
    confirmed: async (processes, epoch) => {
      const values = await presence.values(processes.map((p) => `${CONFIRM_PREFIX}${p}`));
      return new Set(processes.filter((_, i) => values[i] === epoch));
    },
  };
}

/**
 * Probes Redis twice a second on this process (/ready, 503s) and republishes what this process owns
 * there when it returns (./redisRecovery.ts). Returns the stop function.
 */
export function startRedisRecovery(ctx: RecoveryContext, localRooms: ReadonlySet<Room>, roomKeys: RoomKeys[] = []): () => void {
  const link = activeRedisLink();
  const { presence, driver } = matchMaker;
  if (!link || !(presence instanceof ResilientRedisPresence) || !(driver instanceof ResilientRedisDriver)) return () => {};
  const unregister = republishColyseus(ctx, presence, driver, localRooms, roomKeys);
  const recovery = new RedisRecovery(link, ctx.dependencies, ctx.logger, () => link.ping()).confirmReturnsWith(returnPeers(presence)).start();
  setActiveRedisRecovery(recovery);
  return () => {
    unregister();
    if (activeRedisRecovery() === recovery) setActiveRedisRecovery(undefined);
  };
}
