// Issue 35, shape 4: a rolling deploy behind docs/deploy/nginx.conf as shipped (./nginx.ts runs real
// nginx with it). Two processes, B hosting a duel; players matchmake through nginx all along while a
// deploy stops B (SIGTERM). A stopping process answers /matchmake 503 before doing anything, so the
// recipe retries it on the other process: every matchmaking request during B's drain gets 200, and
// the duel on B plays to its end through nginx. Skipped, with the reason, where nginx is not installed.
import { Client, MatchMakeError } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageLog } from "../helpers/boss.js";
import { account, Cluster, report, type GameServer } from "./harness.js";
import { expectQuiet, quietness } from "./common.js";
import { Nginx, nginxBinary } from "./nginx.js";

const nginx = nginxBinary();
if (!nginx) console.log("skipped: test/chaos/nginxDeploy.test.ts needs nginx (Debian's `nginx` package; .ci/run installs it)");

/** Players matchmaking at once, each joining a SlitherRush arena through nginx and leaving, again and again. */
const MATCHMAKERS = 3;
/** Matchmaking requests answered during the drain before the duel is played to its end (which ends the drain). */
const DURING_DRAIN = 60;

describe.skipIf(!nginx)("a rolling deploy behind docs/deploy/nginx.conf", () => {
  let cluster: Cluster;
  let proxy: Nginx;
  let a: GameServer;
  let b: GameServer;
  let nginxPort: number;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6469, pgPort: 55469 });
    nginxPort = await Nginx.freePort();
  });
  afterAll(async () => {
    await proxy?.stop();
    await cluster?.close();
  });

  it("every matchmaking request during the drain gets 200, and the duel on the stopping process ends", async () => {
    // As the recipe says: each process's PUBLIC_ADDRESS is the proxy plus its port as a path.
    const behindProxy = (port: number) => ({ PUBLIC_ADDRESS: `127.0.0.1:${nginxPort}/${port}`, SHUTDOWN_DRAIN_SECONDS: "60" });
    a = await cluster.startServer("A", behindProxy);
    b = await cluster.startServer("B", behindProxy);
    const ann = await account(cluster, a, 20);
    const bob = await account(cluster, a, 20);
    proxy = await Nginx.start(cluster.guardian, nginxPort, a.port, b.port);

    const through = (cookie?: string) => new Client(proxy.base, cookie ? { headers: { cookie } } : undefined);
    // The duel, through nginx; the seat reservation's address says which process hosts its room
    // (127.0.0.1:<nginx>/<port>): the deploy stops that one.
    const seat = async (cookie: string) => {
      const res = await fetch(`${proxy.base}/matchmake/joinOrCreate/pvp`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: "{}" });
      expect(res.status).toBe(200);
      return res.json();
    };
    const annSeat = await seat(ann.cookie);
    const duelA = await through(ann.cookie).consumeSeatReservation(annSeat);
    const logA = new MessageLog(duelA);
    const duelB = await through(bob.cookie).consumeSeatReservation(await seat(bob.cookie));
    const logB = new MessageLog(duelB);
    expect(duelB.roomId, "the two players are in one duel").toBe(duelA.roomId);
    duelA.send("pvp_ready");
    duelB.send("pvp_ready");
    await Promise.all([logA.waitFor("pvp_battle_start"), logB.waitFor("pvp_battle_start")]);
    const stopping = String(annSeat.publicAddress).endsWith(`/${b.port}`) ? b : a;
    const staying = stopping === a ? b : a;

    // Players matchmaking all along: join an arena through nginx, leave, again.
    const answers: Array<{ at: number; ok: boolean; error?: string }> = [];
    let matchmaking = true;
    const wakers = new Set<() => void>();
    const matchmaker = async () => {
      while (matchmaking) {
        try {
          const room = await through().joinOrCreate("slitherrush");
          answers.push({ at: Date.now(), ok: true });
          await room.leave().catch(() => undefined);
        } catch (err) {
          const e = err as MatchMakeError;
          answers.push({ at: Date.now(), ok: false, error: `${e.code ?? ""} ${e.message}`.trim() });
        }
        wakers.forEach((w) => w());
      }
    };
    const answered = (n: number, since: number) =>
      new Promise<void>((resolve) => {
        const check = () => answers.filter((x) => x.at >= since).length >= n && (wakers.delete(check), resolve());
        wakers.add(check);
        check();
      });
    const loops = Array.from({ length: MATCHMAKERS }, matchmaker);
    await answered(10, 0);

    // The deploy stops the duel's process.
    const drainFrom = Date.now();
    const exit = stopping.stop(90_000);
    await answered(DURING_DRAIN, drainFrom);
    // The duel goes on through nginx: Ann's five hits end it, and with it the drain.
    for (let lives = 4; lives >= 0; lives--) {
      duelA.send("pvp_shoot", { dx: 1, dy: 0 });
      await logA.waitFor("pvp_player_hit", (h) => h.lives === lives, 15_000);
    }
    const [endA, endB] = await Promise.all([logA.waitFor("pvp_battle_end", () => true, 15_000), logB.waitFor("pvp_battle_end", () => true, 15_000)]);
    const exitCode = await exit;
    const drainTo = Date.now();
    matchmaking = false;
    await Promise.all(loops);

    const during = answers.filter((x) => x.at >= drainFrom && x.at <= drainTo);
    const matchmakeLines = proxy.accessLog().filter((l) => l.uri.startsWith("/matchmake/") && l.at >= drainFrom && l.at <= drainTo);
    const turnedAway = matchmakeLines.filter((l) => l.status !== 200);
    const retried = matchmakeLines.filter((l) => l.upstreamStatuses.length > 1);
    report("nginx-deploy", {
      matchmaking_during_drain: during.length,
      refused_during_drain: during.filter((x) => !x.ok).length,
      refusals: [...new Set(during.filter((x) => !x.ok).map((x) => x.error))],
      nginx_matchmake_requests_during_drain: matchmakeLines.length,
      nginx_turned_away: turnedAway.length,
      nginx_retried_on_the_other_process: retried.length,
      drain_ms: drainTo - drainFrom,
      duel_winner: endA.winner ?? endA,
      stopped_process: stopping.name,
      stopped_process_exit: exitCode,
    });
    await staying.stop();
    expect(during.filter((x) => !x.ok), "matchmaking refused during the drain").toEqual([]);
    expect(turnedAway.map((l) => `${l.status} ${l.uri} via ${l.upstreams.join(", ")}: ${l.upstreamStatuses.join(", ")}`), "nginx answered every matchmaking request 200").toEqual([]);
    expect(retried.length, "the stopping process was asked and refused (else the test did not try the recipe)").toBeGreaterThan(0);
    expect(endB).toBeTruthy();
    expect(exitCode, "the stopped process exits 0 once the duel is over").toBe(0);
  });

  it("no line outside the JSON log (nginx deploy)", async () => {
    await Promise.all(cluster.servers.map((s) => s.stop()));
    report("nginx-deploy/noise", { servers: quietness(cluster.servers) });
    expectQuiet(cluster.servers);
  });
});
