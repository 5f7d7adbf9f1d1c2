// The Redis recovery gate (issue 29): matchmaking stays closed while Redis is away and after its
// return until what this process owns was republished and every process had time to; the leases a
// process holds are written again; every connection reconnects forever.
import { describe, expect, it } from "vitest";
import { Dependencies } from "../../src/dependencies.js";
import type { Logger } from "../../src/ops/logger.js";
import { MatchSeats, MemoryLeaseStore } from "../../src/shared/matchSeats.js";
import { isRedisUnreachable, redisOptions, RedisLink } from "../../src/shared/redisLink.js";
import { RedisRecovery, REDIS_SETTLE_MS, republishOnRedisReturn, sweepOnRedisReturn, type ReturnPeers } from "../../src/shared/redisRecovery.js";

const silent = { error() {}, warn() {}, info() {} } as unknown as Logger;

function setup() {
  let now = 1_000_000;
  const deps = new Dependencies(silent, () => now);
  const link = new RedisLink("redis://127.0.0.1:6399", silent);
  link.bind(deps);
  let answers = true;
  const recovery = new RedisRecovery(link, deps, silent, async () => {
    if (!answers) throw new Error("connect ECONNREFUSED 127.0.0.1:6399");
  }, () => now);
  return { deps, link, recovery, advance: (ms: number) => (now += ms), setAnswers: (v: boolean) => (answers = v) };
}

/** The other processes as Redis shows them to process A: who is present, who confirmed which incarnation. */
function fakePeers(epoch = "run-1") {
  const state = { epoch, present: new Set<string>(), confirmations: new Map<string, string>() };
  const peers: ReturnPeers = {
    epoch: async () => state.epoch,
    present: async () => new Set(state.present),
    confirm: async (e) => void state.confirmations.set("A", e),
    confirmed: async (processes, e) => new Set(processes.filter((p) => state.confirmations.get(p) === e)),
  };
  return { state, peers };
}

describe("Redis recovery (issue 29)", () => {
  it("closes matchmaking while Redis is away and reopens it only after the republish and the settle time", async () => {
    const { deps, link, recovery, advance, setAnswers } = setup();
    const order: string[] = [];
    const off = republishOnRedisReturn("test", async () => void order.push(recovery.matchmakingOpen() ? "open" : "closed"));
    try {
      expect(recovery.matchmakingOpen()).toBe(true);
      setAnswers(false);
      await recovery.tick();
      expect(deps.down()).toEqual(["redis"]);
      expect(() => recovery.requireMatchmaking()).toThrow(expect.objectContaining({ status: 503, code: "dependency_unavailable" }));
      await expect(link.call(async () => "never runs")).rejects.toMatchObject({ code: "dependency_unavailable" });
      setAnswers(true);
      await recovery.tick();
      expect(order).toEqual(["closed"]);
      expect(deps.down()).toEqual([]);
      expect(recovery.matchmakingOpen()).toBe(false);
      advance(REDIS_SETTLE_MS);
      expect(recovery.matchmakingOpen()).toBe(true);
      await recovery.tick();
      expect(order).toHaveLength(1); // nothing to republish without an outage
    } finally {
      off();
    }
  });

  it("after the settle, what names processes and rooms that are not alive is dropped before matchmaking opens (Redis back with older data)", async () => {
    const { recovery, advance, setAnswers } = setup();
    const swept: string[] = [];
    let failOnce = true;
    const off = sweepOnRedisReturn("ghosts", async () => {
      if (failOnce) {
        failOnce = false;
        throw new Error("connect ECONNREFUSED 127.0.0.1:6399"); // Redis gone again: retried
      }
      swept.push(recovery.matchmakingOpen() ? "open" : "closed");
      return { processes: ["gone"] };
    });
    try {
      setAnswers(false);
      await recovery.tick();
      setAnswers(true);
      await recovery.tick(); // back: republished, settling
      advance(REDIS_SETTLE_MS);
      expect(recovery.matchmakingOpen()).toBe(false); // settled, not yet swept
      await recovery.tick(); // the sweep fails: Redis down again
      expect(recovery.matchmakingOpen()).toBe(false);
      await recovery.tick(); // back again: republished
      expect(swept).toEqual([]);
      advance(REDIS_SETTLE_MS);
      await recovery.tick();
      expect(swept).toEqual(["closed"]);
      expect(recovery.matchmakingOpen()).toBe(true);
      await recovery.tick();
      expect(swept).toHaveLength(1); // once per return
    } finally {
      off();
    }
  });

  it("a republish Redis interrupts is retried on the next probe", async () => {
    const { recovery, advance, setAnswers } = setup();
    let attempts = 0;
    const off = republishOnRedisReturn("flaky", async () => {
      if (++attempts === 1) throw new Error("Connection is closed.");
    });
    try {
      setAnswers(false);
      await recovery.tick();
      setAnswers(true);
      await recovery.tick();
      advance(REDIS_SETTLE_MS);
      expect(recovery.matchmakingOpen()).toBe(false);
      await recovery.tick();
      advance(REDIS_SETTLE_MS);
      expect(attempts).toBe(2);
      expect(recovery.matchmakingOpen()).toBe(true);
    } finally {
      off();
    }
  });

  it("a waiting call is answered 503 as soon as Redis is found down", async () => {
    const { recovery, setAnswers } = setup();
    const never = new Promise<never>(() => {});
    const answered = recovery.whileUp(never, 5);
    setAnswers(false);
    await recovery.tick();
    await expect(answered).rejects.toMatchObject({ code: "dependency_unavailable" });
  });

  it("seat leases this process holds are written again; releases Redis missed are done; a lease taken meanwhile is reported", async () => {
    const store = new MemoryLeaseStore();
    const seats = new MatchSeats(store);
    const room = { roomName: "boss", roomId: "b1" };
    expect(await seats.claim(1, room)).toEqual({ ok: true });
    expect(await seats.claim(2, room)).toEqual({ ok: true });
    expect(await seats.claim(3, room)).toEqual({ ok: true });
    // Redis comes back empty; meanwhile another room took account 3.
    for (const id of [1, 2, 3]) await store.release(`match:seat:${id}`, "boss/b1");
    await store.acquire("match:seat:3", "pvp/p9", 45);
    const { conflicts } = await seats.republish();
    expect(await seats.holderOf(1)).toEqual(room);
    expect(await seats.holderOf(2)).toEqual(room);
    expect(conflicts).toEqual([{ userId: 3, ours: room, theirs: { roomName: "pvp", roomId: "p9" } }]);
    await seats.release(1, room);
    expect(await seats.holderOf(1)).toBeNull();
    await seats.republish();
    expect(await seats.holderOf(1)).toBeNull();
  });

  it("connections reconnect forever and fail fast while disconnected; Redis' failures are told apart from other errors", () => {
    const options = redisOptions();
    expect(options.retryStrategy!(10_000)).toBeGreaterThan(0);
    expect(options.enableOfflineQueue).toBe(false);
    expect(options.commandTimeout).toBeLessThan(2000);
    expect(isRedisUnreachable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isRedisUnreachable(Object.assign(new Error("Reached the max retries per request limit"), { name: "MaxRetriesPerRequestError" }))).toBe(true);
    expect(isRedisUnreachable(new Error("Command timed out"))).toBe(true);
    expect(isRedisUnreachable(new Error("ERR wrong number of arguments"))).toBe(false);
  });

  it("opens as soon as every other process has confirmed its republish into this Redis, not after a fixed settle (issue 35)", async () => {
    const { recovery, setAnswers } = setup();
    const { state, peers } = fakePeers("run-2");
    recovery.confirmReturnsWith(peers);
    const order: string[] = [];
    const offSweep = sweepOnRedisReturn("ghosts", async () => void order.push("swept"));
    const offRepublish = republishOnRedisReturn("leases", async () => void order.push("republished"));
    try {
      setAnswers(false);
      await recovery.tick();
      setAnswers(true);
      state.present.add("B");
      state.confirmations.set("B", "run-1"); // from the Redis before the restart (a reloaded snapshot): does not count
      await recovery.tick();
      expect(state.confirmations.get("A"), "this process confirmed the incarnation it republished into").toBe("run-2");
      expect(recovery.matchmakingOpen(), "B has not republished into this Redis yet").toBe(false);
      await recovery.tick();
      expect(recovery.matchmakingOpen()).toBe(false);
      state.confirmations.set("B", "run-2");
      await recovery.tick(); // no time has passed
      expect(order).toEqual(["republished", "swept"]);
      expect(recovery.matchmakingOpen()).toBe(true);
    } finally {
      offSweep();
      offRepublish();
    }
  });

  it("waits for the processes it saw alive before the outage even if the returned Redis does not list them, and at most the settle for one that never confirms", async () => {
    const { recovery, advance, setAnswers } = setup();
    const { state, peers } = fakePeers();
    recovery.confirmReturnsWith(peers);
    state.present = new Set(["B", "C"]);
    state.confirmations.set("B", "run-1").set("C", "run-1");
    await recovery.tick(); // open: notes B and C
    expect(recovery.matchmakingOpen()).toBe(true);
    setAnswers(false);
    await recovery.tick();
    setAnswers(true);
    // Redis came back empty (another incarnation): nobody listed, nobody confirmed yet.
    state.epoch = "run-2";
    state.present = new Set();
    state.confirmations.clear();
    await recovery.tick();
    expect(recovery.matchmakingOpen(), "B and C have not republished").toBe(false);
    state.confirmations.set("B", "run-2");
    state.present.add("B");
    await recovery.tick();
    expect(recovery.matchmakingOpen(), "C (killed during the outage, say) has not confirmed").toBe(false);
    advance(REDIS_SETTLE_MS - 1);
    await recovery.tick();
    expect(recovery.matchmakingOpen()).toBe(false);
    advance(1);
    await recovery.tick();
    expect(recovery.matchmakingOpen(), "the settle bounds the wait").toBe(true);
  });
});
