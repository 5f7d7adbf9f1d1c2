// Issue 29, fault 3: Redis comes back EMPTY (restarted without its data after a 5 s outage) while
// two processes have a boss battle (an account seated in it) and a SlitherRush party running. Each
// process republishes what it owns: the one-live-match rule holds again before any new match is
// placed (the seated account cannot start a second match), the running matches are counted in mode
// status, joinById of the running room works, and the party's code leads to its arena.
import { MatchMakeError } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, probe, report, until, type GameServer } from "./harness.js";
import { expectQuiet, follow, quietness, sdk, secondMatch, sleep, type Player } from "./common.js";

const OUTAGE_MS = 5000;

describe("Redis back empty after a 5 s outage", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6463, pgPort: 55463 });
    [a, b] = await Promise.all([cluster.startServer("A"), cluster.startServer("B")]);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("republishes listings, counts, seat leases and party codes: the seated account gets no second match", async () => {
    const players: Player[] = [];
    try {
      // A boss battle with its owner (an account) and a guest; a SlitherRush party of two.
      const seated = await account(cluster, a, 50);
      const boss = follow("boss owner", await sdk(a, seated.cookie).create("boss", {}));
      players.push(boss, follow("boss guest", await sdk(b).joinById(boss.room.roomId, { username: "guest", bullets: 20 })));
      const leader = follow("party leader", await sdk(a).joinOrCreate("slitherrush", { username: "leader", party: "create" }));
      players.push(leader);
      const code: string = (await leader.log.waitFor("slitherrush_joined")).party_code;
      players.push(follow("party member", await sdk(b).joinOrCreate("slitherrush", { username: "member", party: code })));
      const status = async (server: GameServer) => (await probe(`${server.base}/api/modes/status`, { timeoutMs: 2500 })).json;
      await until(async () => ((await status(b))?.boss?.totalPlayers >= 2 && (await status(b))?.slitherrush?.totalPlayers >= 2 ? true : undefined), 10_000, "mode status counting the battle and the party");
      // The rule holds before the fault: the seated account is refused a duel.
      const before = await secondMatch(b, seated.cookie);
      expect(before, "a second match before the fault").toMatch(/^refused 409/);

      await cluster.redis.kill();
      await sleep(OUTAGE_MS);
      await cluster.redis.start(false); // empty
      const backAt = Date.now();

      // 1. The seated account asks for a second match at once, through the other process, until it
      // gets an answer other than 503: that answer must be the refusal, never a seat.
      const second = await until(async () => {
        const answer = await secondMatch(b, seated.cookie);
        return /^refused 503|^no answer/.test(answer) ? undefined : answer;
      }, 15_000, "an answer to the seated account's second match").catch((err) => `no answer: ${err}`);
      const secondAfterMs = Date.now() - backAt;
      // 2. The running matches counted again in mode status (through either process).
      const countedMs = await until(async () => {
        const s = await status(a);
        return s?.boss?.totalPlayers >= 2 && s?.slitherrush?.totalPlayers >= 2 ? Date.now() - backAt : undefined;
      }, 15_000, "mode status counting the battle and the party again").catch(() => null);
      // 3. joinById of the running boss room, through the other process.
      const joined = await until(async () => {
        try {
          return await sdk(b).joinById(boss.room.roomId, { username: "latecomer", bullets: 20 });
        } catch (err) {
          if (err instanceof MatchMakeError && err.code === 503) return undefined;
          throw err;
        }
      }, 15_000, "joinById of the running boss room").catch((err) => err as Error);
      const joinedMs = Date.now() - backAt;
      if (!(joined instanceof Error)) players.push(follow("latecomer", joined));
      // 4. The party code leads to the party's arena.
      const byCode = await until(() => sdk(b).joinOrCreate("slitherrush", { username: "friend", party: code }), 15_000, "a join with the party's code").catch((err) => err as Error);
      if (!(byCode instanceof Error)) players.push(follow("friend", byCode));

      report("redis-back-empty", {
        outage_s: OUTAGE_MS / 1000,
        second_match: second,
        second_match_answered_after_ms: secondAfterMs,
        counted_again_after_ms: countedMs,
        join_by_id: joined instanceof Error ? `refused: ${joined.message}` : `joined after ${joinedMs} ms`,
        party_code: byCode instanceof Error ? `refused: ${byCode.message}` : byCode.roomId === leader.room.roomId ? "same arena" : "another arena",
      });
      expect.soft(second, "the seated account's second match after Redis came back empty").toMatch(/^refused 409/);
      expect.soft(countedMs, "the running battle and party counted again in mode status").not.toBeNull();
      expect.soft(joined instanceof Error ? joined.message : joined.roomId, "joinById of the running room").toBe(boss.room.roomId);
      expect.soft(byCode instanceof Error ? byCode.message : byCode.roomId, "the party code leads to the party's arena").toBe(leader.room.roomId);
    } finally {
      await Promise.all(players.map((p) => (p.room.connection.isOpen ? p.room.leave().catch(() => undefined) : undefined)));
    }
  });

  it("no line outside the JSON log (Redis back empty)", async () => {
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("redis-back-empty/noise", { servers: quietness(servers) });
    expectQuiet(servers);
  });
});
