// Issue 29, fault 6: a deploy stops (SIGTERM) the process that holds four SlitherRush parties of
// three. Every player does what docs/messages.md's client does on server_draining: waits
// retry_after_ms, then joins again with its party's code, retrying while the answer is 503. The
// members of each party race each other (they are told at the same instant); however they race,
// each party must meet again in one arena, on the process that stays.
import { MatchMakeError } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryLikeTheDocs, slitherPlayer, type SlitherPlayer } from "../helpers/slitherrush.js";
import { account, Cluster, report, type GameServer } from "./harness.js";
import { expectQuiet, quietness, sdk, sleep } from "./common.js";

const PARTIES = 4;
const MEMBERS = 3;

describe("a deploy stops the process that holds four parties of three", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6465, pgPort: 55465 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("every party meets again in one arena", async () => {
    // The parties form while B is the only process, so their arenas are B's; A joins after.
    b = await cluster.startServer("B", { SHUTDOWN_DRAIN_SECONDS: "5" });
    // Signed-in players, as in the run (their seats are leases: an admission takes a Redis round trip).
    const parties: Array<{ code: string; players: SlitherPlayer[]; cookies: string[] }> = [];
    for (let i = 0; i < PARTIES; i++) {
      const cookies = [];
      for (let m = 0; m < MEMBERS; m++) cookies.push((await account(cluster, b)).cookie);
      const leader = await slitherPlayer(sdk(b, cookies[0]).joinOrCreate("slitherrush", { party: "create" }));
      const code: string = leader.joined.party_code;
      const players = [leader];
      for (let m = 1; m < MEMBERS; m++) players.push(await slitherPlayer(sdk(b, cookies[m]).joinOrCreate("slitherrush", { party: code })));
      expect(new Set(players.map((p) => p.room.roomId)).size, `party ${i} formed in one arena`).toBe(1);
      parties.push({ code, players, cookies });
    }
    a = await cluster.startServer("A");

    const moved: SlitherPlayer[] = [];
    const stoppedAt = Date.now();
    const outcomes = parties.map(({ code, players, cookies }) =>
      Promise.all(
        players.map(async (p, m) => {
          const draining = await p.log.waitFor("server_draining", () => true, 20_000);
          await sleep(draining.retry_after_ms);
          // Through the load balancer, which has taken B out (its /ready is 503): to A.
          try {
            const again = await retryLikeTheDocs(() => slitherPlayer(sdk(a, cookies[m]).joinOrCreate("slitherrush", { party: code })));
            moved.push(again);
            return { room: again.room.roomId, code: again.joined.party?.code as string | undefined, at: Date.now() - stoppedAt };
          } catch (err) {
            const e = err as MatchMakeError;
            return { error: `${e.code ?? ""} ${e.message}`.trim(), at: Date.now() - stoppedAt };
          }
        }),
      ),
    );
    const exit = b.stop();
    const results = await Promise.all(outcomes);
    const exitCode = await exit;

    const together = results.filter((r, i) => r.every((m) => "room" in m && m.room === (r[0] as { room?: string }).room && m.code === parties[i].code));
    report("deploy-parties", {
      parties: PARTIES,
      members: MEMBERS,
      together: together.length,
      split_or_refused: results
        .filter((r) => !together.includes(r))
        .map((r) => r.map((m) => ("error" in m ? `refused: ${m.error}` : `arena ${m.room}`)).join(" | ")),
      last_rejoin_ms: Math.max(...results.flat().map((m) => m.at)),
      stopped_process_exit: exitCode,
    });
    await Promise.all(moved.map((p) => p.room.leave().catch(() => undefined)));
    expect.soft(together.length, `parties that met again in one arena: ${JSON.stringify(results)}`).toBe(PARTIES);
    expect.soft(exitCode, "the stopped process exits 0").toBe(0);
  });

  it("no line outside the JSON log (deploy)", async () => {
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("deploy-parties/noise", { servers: quietness(servers) });
    expectQuiet(servers);
  });
});
