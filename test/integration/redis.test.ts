// With REDIS_URL the matchmaker keeps its room listings in Redis (presence + driver), which is what
// lets several processes share matchmaking. Runs when TEST_REDIS_URL is set (CI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { defineRoom } from "@colyseus/core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { IdentityRoom } from "../helpers/rooms.js";
import { MatchSeats, RedisLeaseStore, type SeatHolder } from "../../src/shared/matchSeats.js";

const h = (roomId: string): SeatHolder => ({ roomName: "boss", roomId });
import { FixedWindowLimiter } from "../../src/http/rateLimit.js";
import { RedisWindowCounters } from "../../src/shared/counters.js";
import { sweepOrphanedRooms } from "../../src/rooms/orphanedRooms.js";
import { SessionRegistry } from "../../src/auth/sessions.js";
import { RedisSessionEvents } from "../../src/shared/sessionEvents.js";
import { createLogger } from "../../src/ops/logger.js";
import { RedisLink } from "../../src/shared/redisLink.js";
import { testRedisUrl } from "../helpers/redis.js";

const redisUrl = testRedisUrl("redis");

describe.skipIf(!redisUrl)("Redis presence and driver", () => {
  let t: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    t = await startTestApp({ redisUrl }, { rooms: { identity: defineRoom(IdentityRoom) } });
    redis = new Redis(redisUrl!);
  });
  afterAll(async () => {
    await t?.stop();
    redis?.disconnect();
  });

  it("lists rooms in Redis while they live and removes them when they close", async () => {
    const { cookie } = await t.account();
    const room = await t.sdk(cookie).create("identity", {});
    const cached = await redis.hget("roomcaches", room.roomId);
    expect(cached).toBeTruthy();
    expect(JSON.parse(cached!)).toMatchObject({ name: "identity", roomId: room.roomId });
    await room.leave();
    const deadline = Date.now() + 5000;
    while ((await redis.hget("roomcaches", room.roomId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await redis.hget("roomcaches", room.roomId)).toBeNull();
  });
});

describe.skipIf(!redisUrl)("boss room records of dead processes, scaled out (issue 10, fault 3)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ redisUrl });
  });
  afterAll(() => t?.stop());

  it("closes active records of rooms no live process lists, and only those", async () => {
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    const ghostId = `ghost_${process.pid}_${Date.now()}`;
    const { user } = await t.account();
    const ghost = await t.prisma.bossRoom.create({ data: { roomId: ghostId, createdAt: twoMinutesAgo, players: { create: { userId: user.id } } } });
    const youngGhost = await t.prisma.bossRoom.create({ data: { roomId: `${ghostId}_young` } });
    const live = await t.joinNewRoom("boss", { bullets: 20 });
    await t.prisma.bossRoom.update({ where: { roomId: live.roomId }, data: { createdAt: twoMinutesAgo } });

    expect(await sweepOrphanedRooms(t.app.ctx)).toEqual([ghostId]);
    const rows = await t.prisma.bossRoom.findMany({ where: { id: { in: [ghost.id, youngGhost.id] } }, include: { players: true }, orderBy: { id: "asc" } });
    expect(rows[0]).toMatchObject({ isActive: false, isCompleted: false });
    expect(rows[0].players[0].leftAt).toBeInstanceOf(Date);
    expect(rows[1].isActive).toBe(true); // young: its room may still be starting on another process
    expect((await t.prisma.bossRoom.findUniqueOrThrow({ where: { roomId: live.roomId } })).isActive).toBe(true);
    await live.leave();
  });
});

describe.skipIf(!redisUrl)("ended sessions reach every process at once (issue 10, fault 7)", () => {
  let t: TestApp;
  const events: RedisSessionEvents[] = [];
  const connections: Redis[] = [];
  beforeAll(async () => {
    t = await startTestApp({ redisUrl });
  });
  afterAll(async () => {
    await Promise.all(events.map((e) => e.close()));
    connections.forEach((c) => c.disconnect());
    await t?.stop();
  });

  /** Another process's view of the sessions: its own cache (a minute long) and Redis connection. */
  async function otherProcess(): Promise<SessionRegistry> {
    const redis = new Redis(redisUrl!);
    connections.push(redis);
    const e = new RedisSessionEvents(redis, new RedisLink(redisUrl!, createLogger("silent")), createLogger("silent"));
    events.push(e);
    await e.ready();
    return new SessionRegistry(t.prisma, e, 60_000);
  }

  it("a logout or an operator's logout on one process ends the session on the others without waiting for their cache", async () => {
    const other = await otherProcess();
    const { user, cookie } = await t.account();
    const token = cookie.slice("jwt=".length);
    const claims = await t.app.ctx.tokens.verify(token);
    if (claims.status !== "ok") throw new Error("token did not verify");
    const subject = { kind: "account" as const, id: user.id };
    expect(await other.check(subject, claims)).toMatchObject({ ok: true }); // now cached there for a minute
    await t.app.ctx.sessions.revoke(subject, claims); // this session's logout, on "this" process
    await expect.poll(async () => (await other.check(subject, claims)).ok, { timeout: 5000 }).toBe(false);

    const fresh = await t.app.ctx.tokens.verify(await t.app.ctx.tokens.sign(user.id));
    if (fresh.status !== "ok") throw new Error("token did not verify");
    expect((await other.check(subject, fresh)).ok).toBe(true);
    await t.app.ctx.sessions.endAllSessions(subject);
    await expect.poll(async () => (await other.check(subject, fresh)).ok, { timeout: 5000 }).toBe(false);
  });
});

describe.skipIf(!redisUrl)("live-match seat leases in Redis (two processes' lease stores)", () => {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  const prefix = `test:seat:${process.pid}:${Date.now()}:`;
  const claimsOf = (ttlSeconds: number) => {
    const connection = new Redis(redisUrl!);
    connections.push(connection);
    return new MatchSeats(new RedisLeaseStore(connection), prefix, ttlSeconds);
  };

  it("one seat per account across processes; released or expired leases free it; failed claims never extend one", async () => {
    const a = claimsOf(1);
    const b = claimsOf(1);
    const results = await Promise.all([a.claim(1, h("roomA")), b.claim(1, h("roomB"))]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const [winner, loser] = results[0].ok ? [a, b] : [b, a];
    const [won, lost] = results[0].ok ? ["roomA", "roomB"] : ["roomB", "roomA"];
    expect(await loser.claim(1, h(lost))).toEqual({ ok: false, holder: h(won) });
    await loser.release(1, h(lost)); // not the holder: nothing happens
    await loser.renew([1], h(lost));
    expect(await loser.claim(1, h(lost))).toEqual({ ok: false, holder: h(won) });
    await winner.release(1, h(won));
    expect(await loser.claim(1, h(lost))).toEqual({ ok: true });

    // A holder that stops renewing (a crashed process) loses the lease one TTL later, even while
    // another process keeps trying to claim it.
    await a.claim(2, h("crashed"));
    const started = Date.now();
    let retaken = await b.claim(2, h("elsewhere"));
    while (!retaken.ok && Date.now() - started < 5000) {
      await new Promise((r) => setTimeout(r, 100));
      retaken = await b.claim(2, h("elsewhere"));
    }
    expect(retaken).toEqual({ ok: true });
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe.skipIf(!redisUrl)("rate limits in Redis (two processes' counters)", () => {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  const prefix = `test:rl:${process.pid}:${Date.now()}:`; // one key space for both "processes"
  const limiterOf = (windowMs: number) => {
    const connection = new Redis(redisUrl!);
    connections.push(connection);
    return new FixedWindowLimiter(new RedisWindowCounters(connection, prefix), "login-ip", 3, windowMs);
  };

  it("counts hits from every process in one window, peeks without counting, and resets with the window", async () => {
    const [a, b] = [limiterOf(2000), limiterOf(2000)];
    expect(await a.hit("1.2.3.4")).toBe(0);
    expect(await b.hit("1.2.3.4")).toBe(0);
    expect(await b.blockedFor("1.2.3.4")).toBe(0);
    expect(await a.hit("1.2.3.4")).toBe(0);
    const wait = await b.hit("1.2.3.4");
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2000);
    expect(await a.blockedFor("1.2.3.4")).toBeGreaterThan(0);
    expect(await a.hit("5.6.7.8")).toBe(0);
    await new Promise((r) => setTimeout(r, wait + 50)); // a fixed wait: the block is a wall-clock window
    expect(await a.blockedFor("1.2.3.4")).toBe(0);
    expect(await b.hit("1.2.3.4")).toBe(0);
  });

  it("takes hits back (a forgiven typo, issue 40) without moving the window's end, never below 0", async () => {
    const connection = new Redis(redisUrl!);
    connections.push(connection);
    const counters = new RedisWindowCounters(connection, prefix);
    for (let i = 0; i < 5; i++) await counters.hit("typos", 60_000);
    const before = await counters.peek("typos");
    expect(await counters.subtract("typos", 2)).toBe(3);
    const after = await counters.peek("typos");
    expect(after.count).toBe(3);
    expect(after.resetInMs).toBeGreaterThan(0);
    expect(after.resetInMs).toBeLessThanOrEqual(before.resetInMs);
    expect(await counters.subtract("typos", 10)).toBe(0);
    expect(await counters.peek("typos")).toEqual({ count: 0, resetInMs: 0 });
    expect(await counters.subtract("never-hit", 1)).toBe(0);
  });
});
