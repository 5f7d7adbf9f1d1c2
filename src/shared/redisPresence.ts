// Colyseus' Redis presence, made to survive Redis outages (issue 29). @colyseus/redis-presence
// 0.18.5 rejects whatever Redis does not answer, and Colyseus calls several of its writes without
// awaiting them (the process's room count on every join and leave, unsubscribes, the publish of an
// IPC request) or inside `new Promise(async …)` executors (IPC requests, the concurrent-create
// lock): a rejection there is an unhandled rejection (the process dies) or a promise that never
// settles (a /matchmake that hangs). So here:
// - writes and (un)subscriptions never reject: a failure is reported to the Redis link (503s,
//   /ready, one log line per interval) and what it meant to write is republished when Redis returns
//   (src/shared/redisRecovery.ts: the room count, listings, subscriptions);
// - reads fail fast with the 503 while Redis is down;
// - its two connections are ours (src/shared/redisLink.ts: reconnect forever, no offline queue,
//   bounded answers) and their error listeners report instead of logging each failure.
import type { Redis } from "ioredis";
import { RedisPresence } from "@colyseus/redis-presence";
import type { RedisLink } from "./redisLink.js";

type Callback = (...args: any[]) => void;

export class ResilientRedisPresence extends RedisPresence {
  constructor(
    pub: Redis,
    private readonly link: RedisLink,
  ) {
    super(pub);
    link.watch("presence-pub", this.pub as Redis);
    link.watch("presence-sub", this.sub as Redis);
    // Every joinOrCreate waiting on another's creation subscribes to the same channel: a party
    // rejoining at once is more than EventEmitter's default of 10, which printed a warning to stderr.
    this.setMaxListeners(0);
  }

  /** A write whose failure is reported, not thrown: what it wrote is republished on Redis' return. */
  private async quiet<T>(op: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await op();
    } catch (err) {
      this.link.failed(err);
      return fallback;
    }
  }

  /** The topics this process means to listen on (what it resubscribes on Redis' return). */
  topics(): string[] {
    return this.subscriptions.eventNames().filter((t): t is string => typeof t === "string");
  }

  /** Subscribes again to every topic it means to listen on; rejects when Redis does not answer. */
  async resubscribe(): Promise<void> {
    const topics = this.topics();
    if (topics.length) await (this.sub as Redis).subscribe(...topics);
  }

  /** Colyseus' `roomcount` entry of a process (Colyseus' stats.persist, but rejecting when Redis does not answer). */
  async writeRoomCount(processId: string, value: string): Promise<void> {
    await (this.pub as Redis).hset("roomcount", processId, value);
  }

  /** The processes and rooms alive now: those subscribed to their IPC channel (`p:<processId>`, `$<roomId>`); rejects when Redis does not answer. */
  async alive(): Promise<{ processes: Set<string>; rooms: Set<string> }> {
    const pub = this.pub as Redis;
    const [processes, rooms] = await Promise.all([pub.pubsub("CHANNELS", "p:*"), pub.pubsub("CHANNELS", "$*")]);
    return { processes: new Set((processes as string[]).map((c) => c.slice(2))), rooms: new Set((rooms as string[]).map((c) => c.slice(1))) };
  }

  /** This Redis' incarnation (its run_id: another after a restart, a failover, a restore); rejects when Redis does not answer. */
  async epoch(): Promise<string> {
    const info = await (this.pub as Redis).info("server");
    const runId = /^run_id:(\w+)/m.exec(info)?.[1];
    if (!runId) throw new Error("INFO server has no run_id");
    return runId;
  }

  /** Writes `key` → `value` for `ttlMs`; rejects when Redis does not answer. */
  async setFor(key: string, value: string, ttlMs: number): Promise<void> {
    await (this.pub as Redis).set(key, value, "PX", ttlMs);
  }

  /** The values of `keys` (null where missing); rejects when Redis does not answer. */
  async values(keys: string[]): Promise<Array<string | null>> {
    return keys.length ? (this.pub as Redis).mget(...keys) : [];
  }

  /** The processes alive now (subscribed to `p:<processId>`); rejects when Redis does not answer. */
  async aliveProcesses(): Promise<Set<string>> {
    return new Set(((await (this.pub as Redis).pubsub("CHANNELS", "p:*")) as string[]).map((c) => c.slice(2)));
  }

  /** Whether one room is alive now (subscribed to its IPC channel); rejects when Redis does not answer. */
  async roomAlive(roomId: string): Promise<boolean> {
    const [, n] = (await this.link.call(() => (this.pub as Redis).pubsub("NUMSUB", `$${roomId}`))) as [string, number];
    return Number(n) > 0;
  }

  /** The processes listed in Colyseus' `roomcount` hash; rejects when Redis does not answer. */
  async countedProcesses(): Promise<string[]> {
    return (this.pub as Redis).hkeys("roomcount");
  }

  /** Removes processes from Colyseus' `roomcount` hash (new rooms are placed by it). */
  async uncount(processIds: string[]): Promise<void> {
    if (processIds.length) await (this.pub as Redis).hdel("roomcount", ...processIds);
  }

  /**
   * Deletes the keys matching `pattern` whose value `drop` picks (each only if it still holds that
   * value: a key rewritten meanwhile stays); returns how many.
   */
  async dropKeys(pattern: string, drop: (value: string) => boolean): Promise<number> {
    const pub = this.pub as Redis;
    let n = 0;
    let cursor = "0";
    do {
      const [next, keys] = await pub.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      if (keys.length === 0) continue;
      const values = await pub.mget(...keys);
      for (let i = 0; i < keys.length; i++) {
        const value = values[i];
        if (value !== null && drop(value)) n += Number(await pub.eval(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`, 1, keys[i], value));
      }
    } while (cursor !== "0");
    return n;
  }

  override async subscribe(topic: string, callback: Callback) {
    // The intent is kept even when Redis does not answer: it is subscribed again on reconnection.
    await this.quiet(() => super.subscribe(topic, callback), this);
    return this;
  }

  override async unsubscribe(topic: string, callback?: Callback) {
    await this.quiet(() => super.unsubscribe(topic, callback), this);
    return this;
  }

  override publish(topic: string, data: any) {
    return this.quiet(() => super.publish(topic, data), undefined);
  }

  override hset(key: string, field: string, value: string) {
    return this.quiet(() => super.hset(key, field, value), false);
  }

  override hdel(key: string, field: string) {
    return this.quiet(() => super.hdel(key, field), false);
  }

  /** Used by the concurrent-create lock: on failure "nobody else is creating" (the next read fails fast). */
  override hincrbyex(key: string, field: string, value: number, expireInSeconds: number) {
    return this.quiet(() => super.hincrbyex(key, field, value, expireInSeconds), value);
  }

  override hincrby(key: string, field: string, value: number) {
    return this.quiet(() => super.hincrby(key, field, value), value);
  }

  override setex(key: string, value: string, seconds: number) {
    return this.quiet(() => super.setex(key, value, seconds), undefined);
  }

  override get(key: string) {
    return this.link.call(() => super.get(key));
  }

  override hget(key: string, field: string) {
    return this.link.call(() => super.hget(key, field));
  }

  override hgetall(key: string) {
    return this.link.call(() => super.hgetall(key));
  }

  override exists(key: string) {
    return this.link.call(() => super.exists(key));
  }

  override channels(pattern?: string) {
    return this.link.call(() => super.channels(pattern));
  }
}
