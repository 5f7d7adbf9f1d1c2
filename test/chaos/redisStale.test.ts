// Issue 35, shapes 1 and 2: Redis comes back with OLDER data (a restart that reloads its last RDB
// snapshot, a lagging replica promoted, a restored backup). The snapshot is taken while account X
// plays boss battle O and process C hosts a SlitherRush arena; then O ends, X starts battle N on
// another process, C leaves (SIGTERM), and Redis is restarted from the snapshot. The snapshot's
// lease names O (a room that no longer exists) and its listings and room count name C's arena (a
// process that is gone). The live room must take X's lease back: X never gets a second match over
// 50 s, and its refusals name N from 15 s after the return; C's arena is never offered to a fresh
// joiner (seated within 2 s of matchmaking answering again) nor counted by mode status.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MatchMakeError } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, probe, report, until, type GameServer } from "./harness.js";
import { expectQuiet, follow, quietness, sdk, secondMatch, sleep, type Player } from "./common.js";

const WATCH_MS = 50_000;
/** From this long after the return, every refusal must name the live battle (the lease renewal's period). */
const NAMES_LIVE_AFTER_MS = 15_000;

describe("Redis back with older data (restarted from a snapshot)", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;
  let c: GameServer;
  let arenaOnC: Player;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6467, pgPort: 55467 });
    // C first, alone: the SlitherRush arena made through it is placed on it.
    c = await cluster.startServer("C");
    arenaOnC = follow("arena guest 1", await sdk(c).joinOrCreate("slitherrush", { username: "g1" }));
    [a, b] = await Promise.all([cluster.startServer("A"), cluster.startServer("B")]);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("the live battle takes its lease back, no second match; the departed process's rooms are neither offered nor counted", async () => {
    const players: Player[] = [];
    try {
      const x = await account(cluster, a, 50);
      const status = async (server: GameServer) => (await probe(`${server.base}/api/modes/status`, { timeoutMs: 2500 })).json;
      // X plays battle O; C hosts an arena with two guests.
      const old = follow("X in O", await sdk(a, x.cookie).create("boss", {}));
      players.push(old);
      const ghostArena = arenaOnC;
      players.push(ghostArena, follow("arena guest 2", await sdk(c).joinById(ghostArena.room.roomId, { username: "g2" })));
      const ghostId = ghostArena.room.roomId;
      await until(async () => ((await status(a))?.slitherrush?.totalPlayers >= 2 ? true : undefined), 10_000, "mode status counting C's arena");
      // The snapshot: X's lease names O, the listings name C's arena.
      await cluster.redis.save();

      // O ends; X starts N on B; C leaves.
      await old.room.leave();
      const live = follow("X in N", await sdk(b, x.cookie).create("boss", {}));
      players.push(live);
      const liveId = live.room.roomId;
      expect(await secondMatch(a, x.cookie), "before the fault").toMatch(new RegExp(`^refused 409 .*${liveId}`));
      expect(await c.stop(), "C's exit code").toBe(0);
      await until(async () => ((await status(a))?.slitherrush?.totalPlayers === 0 ? true : undefined), 10_000, "C's arena gone from mode status");

      // Redis restarted from the snapshot.
      await cluster.redis.kill();
      await cluster.redis.start(true);
      const backAt = Date.now();

      // (b) A fresh joiner: how long its first attempt that matchmaking answers takes, and where it lands.
      const fresh = (async () => {
        for (;;) {
          const started = Date.now();
          try {
            const room = await sdk(a).joinOrCreate("slitherrush", { username: "fresh" });
            players.push(follow("fresh", room));
            return { answered_after_ms: started - backAt, seated_in_ms: Date.now() - started, ghost: room.roomId === ghostId };
          } catch (err) {
            if (!(err instanceof MatchMakeError && err.code === 503)) return { answered_after_ms: started - backAt, seated_in_ms: Date.now() - started, error: String(err) };
            if (Date.now() - backAt > 20_000) return { error: "503 for 20 s" };
            await sleep(100);
          }
        }
      })();
      // (b) Mode status counting the departed process's arena (2 players; the fresh joiner is 1).
      let ghostCountedUntilMs: number | null = null;
      let statusAnsweredAtMs: number | null = null;
      const watchStatus = (async () => {
        while (Date.now() - backAt < 20_000) {
          const s = await status(b).catch(() => undefined);
          if (s?.slitherrush) {
            statusAnsweredAtMs ??= Date.now() - backAt;
            if (s.slitherrush.totalPlayers >= 2) ghostCountedUntilMs = Date.now() - backAt;
          }
          await sleep(200);
        }
      })();
      // (a) X asks for a second match through both live processes for 50 s.
      const answers: Array<{ at: number; answer: string }> = [];
      let turn = 0;
      while (Date.now() - backAt < WATCH_MS) {
        const answer = await secondMatch(turn++ % 2 ? a : b, x.cookie);
        answers.push({ at: Date.now() - backAt, answer });
        await sleep(400);
      }
      await watchStatus;
      const joiner = await fresh;

      const seatedTwice = answers.filter((r) => r.answer.startsWith("seated"));
      const refusals = answers.filter((r) => r.answer.startsWith("refused 409"));
      const late = refusals.filter((r) => r.at >= NAMES_LIVE_AFTER_MS);
      const lateWrong = late.filter((r) => !r.answer.includes(liveId));
      const namingLive = refusals.find((r) => r.answer.includes(liveId));
      report("redis-back-older", {
        attempts: answers.length,
        second_match_seated: seatedTwice.length,
        first_seated_after_ms: seatedTwice[0]?.at ?? null,
        refusals_409: refusals.length,
        refusals_naming_old_room: refusals.filter((r) => r.answer.includes(old.room.roomId)).length,
        refusals_after_15s_not_naming_live: `${lateWrong.length} of ${late.length}`,
        first_refusal_naming_live_after_ms: namingLive?.at ?? null,
        other_answers: [...new Set(answers.filter((r) => !r.answer.startsWith("refused 409") && !r.answer.startsWith("seated")).map((r) => r.answer.slice(0, 60)))],
        fresh_joiner: joiner,
        status_answered_after_ms: statusAnsweredAtMs,
        ghost_counted_until_ms: ghostCountedUntilMs,
      });
      // CHAOS_LOGS=dir keeps each process's log lines of this run.
      if (process.env.CHAOS_LOGS) for (const s of [a, b]) writeFileSync(join(process.env.CHAOS_LOGS, `redis-back-older-${s.name}.log`), s.lines.join("\n"));
      expect.soft(seatedTwice.map((r) => `${r.at} ms: ${r.answer}`), "X seated in a second match").toEqual([]);
      expect.soft(lateWrong.map((r) => `${r.at} ms: ${r.answer}`), "refusals from 15 s after the return that do not name X's live battle").toEqual([]);
      expect.soft(late.length, "refusals from 15 s after the return").toBeGreaterThan(0);
      expect.soft(joiner.error, "the fresh joiner's error").toBeUndefined();
      expect.soft(joiner.ghost, "the fresh joiner routed to the departed process's arena").toBe(false);
      expect.soft(joiner.seated_in_ms, "the fresh joiner seated within 2 s of matchmaking answering").toBeLessThan(2000);
      expect.soft(ghostCountedUntilMs, "mode status counting the departed process's arena after the return (ms)").toBeNull();
      expect.soft(live.closed, "X's live battle still running").toBeUndefined();
    } finally {
      await Promise.all(players.map((p) => (p.room.connection.isOpen ? p.room.leave().catch(() => undefined) : undefined)));
    }
  });

  it("no line outside the JSON log (Redis back with older data)", async () => {
    const servers = cluster.servers.filter((s) => s !== c);
    await Promise.all(servers.map((s) => s.stop()));
    report("redis-back-older/noise", { servers: quietness(servers) });
    expectQuiet(servers);
  });
});
