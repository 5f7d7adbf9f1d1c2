// Colyseus' Redis matchmaker driver (room listings), made to survive Redis outages (issue 29).
//
// @colyseus/redis-driver 0.18.3 shares one HGETALL among concurrent listing queries and forgets it
// only when it succeeds: once a query fails (Redis down), every later query gets the same rejected
// promise, and /matchmake and mode status fail until the process restarts. Its own ioredis client
// also gives queued commands up after 20 reconnection attempts. Here (upstream report text in
// docs/scaling.md):
// - a failed shared query is forgotten, so the next one asks Redis again;
// - reads fail fast with the 503 while Redis is down;
// - writes (a listing's client count, lock, metadata, removal) never reject: Colyseus awaits some
//   inside a client's join and leave and fires others without a catch, and a match must go on while
//   Redis is down. The listing in memory is already up to date (the driver changes it before
//   writing), so src/shared/redisRecovery.ts persists it again when Redis returns;
// - its connection is ours (src/shared/redisLink.ts: reconnect forever, no offline queue).
import type { Redis } from "ioredis";
import { RedisDriver } from "@colyseus/redis-driver";
import type { IRoomCache } from "@colyseus/core";
import type { RedisLink } from "./redisLink.js";

/** The driver's private query cache (0.18.3), reached to forget a rejected query. */
interface QueryCache {
  _concurrentRoomCacheRequest?: Promise<Record<string, string>>;
  _roomCacheRequestByName: Record<string, Promise<IRoomCache[]> | undefined>;
  getRooms(roomName?: string): Promise<IRoomCache[]>;
}

/** Fixes only the cached rejection: what the unit test compares with the plain driver. */
export class ForgetfulRedisDriver extends RedisDriver {
  constructor(client: Redis) {
    super(client);
    const self = this as unknown as QueryCache;
    const getRooms = self.getRooms.bind(this);
    self.getRooms = (roomName?: string) => {
      const byName = getRooms(roomName);
      const shared = self._concurrentRoomCacheRequest;
      byName.catch(() => {
        // Forget exactly the failed requests (a newer one may have replaced them meanwhile).
        if (self._roomCacheRequestByName[roomName as string] === byName) delete self._roomCacheRequestByName[roomName as string];
        if (self._concurrentRoomCacheRequest === shared) self._concurrentRoomCacheRequest = undefined;
      });
      return byName;
    };
  }
}

type Operations = Parameters<RedisDriver["update"]>[1];

export class ResilientRedisDriver extends ForgetfulRedisDriver {
  constructor(
    client: Redis,
    private readonly link: RedisLink,
  ) {
    super(client);
    link.watch("driver", client);
  }

  /** A write whose failure is reported, not thrown (the listing is republished on Redis' return). */
  private async quiet(op: () => Promise<boolean>): Promise<boolean> {
    try {
      return await op();
    } catch (err) {
      this.link.failed(err);
      return false;
    }
  }

  override has(roomId: string) {
    return this.link.call(() => super.has(roomId));
  }

  override query(conditions: Partial<IRoomCache>, sortOptions?: Parameters<RedisDriver["query"]>[1]) {
    return this.link.call(() => super.query(conditions, sortOptions));
  }

  override findByIds(roomIds: string[]) {
    return this.link.call(() => super.findByIds(roomIds));
  }

  override findOne(conditions: Partial<IRoomCache>, sortOptions?: Parameters<RedisDriver["findOne"]>[1]) {
    return this.link.call(() => super.findOne(conditions, sortOptions));
  }

  override cleanup(processId: string) {
    return this.link.call(() => super.cleanup(processId));
  }

  override update(room: IRoomCache, operations: Operations) {
    return this.quiet(() => super.update(room, operations));
  }

  override persist(room: IRoomCache, create?: boolean) {
    return this.quiet(() => super.persist(room, create));
  }

  override remove(roomId: string) {
    return this.quiet(() => super.remove(roomId));
  }

  /** Writes listings as they stand (republishing); rejects when Redis does not answer. */
  async persistAll(listings: IRoomCache[]): Promise<void> {
    for (const listing of listings) if (listing.roomId) await super.persist(listing);
  }

  /** The listings a process has in Redis; rejects when Redis does not answer. */
  listingsOf(processId: string): Promise<IRoomCache[]> {
    return super.query({ processId });
  }

  /** Every listing in Redis; rejects when Redis does not answer. */
  allListings(): Promise<IRoomCache[]> {
    return super.query({});
  }

  /** Removes a process's listings (one that is not alive); rejects when Redis does not answer. */
  removeListingsOf(processId: string): Promise<void> {
    return super.cleanup(processId);
  }

  /** Removes listings (republishing: those of this process's rooms that closed while Redis was down). */
  async removeAll(roomIds: string[]): Promise<void> {
    for (const roomId of roomIds) await super.remove(roomId);
  }
}
