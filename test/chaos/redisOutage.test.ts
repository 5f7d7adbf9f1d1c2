// Issue 29, faults 2 and 5: Redis goes down for 25 s under two processes with a boss battle
// running. Meanwhile every process says so (/ready 503 naming redis), every route that needs Redis
// answers 503 dependency_unavailable with Retry-After within 2 s (never 500, never a hang), and the
// battle plays on. A third process started during the outage either waits (a line per 10 s naming
// REDIS_URL, /ready 503) and serves once Redis is back, or exits 2 with one line naming REDIS_URL.
// When Redis is back (with the data it saved), both processes matchmake again within 10 s, without
// a restart, and the battle is counted in mode status. Nothing is printed outside the JSON log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, probe, report, until, type Answer, type GameServer } from "./harness.js";
import { errorCounts, expectQuiet, follow, quietness, sdk, sendSteadily, sleep } from "./common.js";

const OUTAGE_MS = 25_000;
/** Time a process may take to notice that Redis is gone before /ready must say so. */
const NOTICE_MS = 5000;

interface Probed extends Answer {
  server: string;
  route: string;
  /** ms since Redis went down, when the request was sent. */
  t: number;
}

describe("Redis down for 25 s under two processes", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;
  let c: GameServer | undefined;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6462, pgPort: 55462 });
    [a, b] = await Promise.all([cluster.startServer("A"), cluster.startServer("B")]);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("answers 503 with Retry-After within 2 s, /ready 503 naming redis, plays on, and matchmakes again within 10 s of Redis' return", async () => {
    const owner = await account(cluster, a, 50);
    const boss = follow("boss owner", await sdk(a, owner.cookie).create("boss", {}));
    const guest = follow("boss guest", await sdk(b).joinById(boss.room.roomId, { username: "watcher", bullets: 20 }));
    const stopMoving = sendSteadily(boss.room, "boss_player_move", () => ({ x: 380 + Math.round(Math.random() * 40), y: 400 }), 10);
    const marks = new Map([a, b].map((s) => [s, s.mark()]));
    let registered = 0;
    const answers: Probed[] = [];
    const patchTimes: number[] = [];
    guest.room.onStateChange(() => patchTimes.push(Date.now()));

    try {
      await cluster.redis.save(); // comes back with its data
      await cluster.redis.kill();
      const downAt = Date.now();
      const since = () => Date.now() - downAt;
      // A process started while Redis is unreachable.
      c = await cluster.startServer("C", {}, false);
      let cExitedAfterMs: number | null = null;
      void c.exited.then(() => (cExitedAfterMs = since()));

      const round = async (server: GameServer) => {
        const ask = async (route: string, url: string, init: Parameters<typeof probe>[1] = {}) => {
          const t = since();
          answers.push({ ...(await probe(url, { timeoutMs: 2500, ...init })), server: server.name, route, t });
        };
        await Promise.all([
          ask("/ready", `${server.base}/ready`),
          ask("/matchmake", `${server.base}/matchmake/joinOrCreate/pvp`, { body: { bullets: 30 } }),
          ask("/api/auth/login", `${server.base}/api/auth/login`, { body: { username: "nobody_at_all", password: "wrong password" } }),
          ask("/api/auth/register", `${server.base}/api/auth/register`, { body: { username: `outage_${process.pid}_${++registered}`, password: "correct horse battery" } }),
          ask("/api/modes/status", `${server.base}/api/modes/status`),
        ]);
      };
      await sleep(1000);
      while (since() < OUTAGE_MS - 2500) {
        const started = Date.now();
        await Promise.all([round(a), round(b)]);
        await sleep(Math.max(0, 2000 - (Date.now() - started)));
      }
      await sleep(Math.max(0, OUTAGE_MS - since()));
      const outageMs = since();
      const battlePatchesLast5s = patchTimes.filter((t) => t > downAt + outageMs - 5000 && t <= downAt + outageMs).length;
      const battleOpen = boss.closed === undefined && guest.closed === undefined;

      await cluster.redis.start(true);
      const backAt = Date.now();
      // The process started during the outage: waits and serves, or exits 2 naming REDIS_URL.
      let cReadyMs = 0;
      const cOutcome = until(async () => (!c!.running ? "exited" : (await probe(`${c!.base}/ready`, { timeoutMs: 2000 })).status === 200 ? "ready" : undefined), 15_000, "C to serve or exit", 200)
        .catch(() => "neither")
        .finally(() => (cReadyMs = Date.now() - backAt));
      // Matchmaking through each process again, without a restart: how long after Redis' return.
      const recovery: Record<string, number | null> = {};
      await Promise.all(
        [a, b].map(async (s) => {
          const ok = await until(async () => (await probe(`${s.base}/matchmake/joinOrCreate/pvp`, { body: { bullets: 30 }, timeoutMs: 2500 })).status === 200, 15_000, `${s.name} to matchmake`, 250).catch(() => false);
          recovery[s.name] = ok ? Date.now() - backAt : null;
        }),
      );
      const counted = await until(async () => {
        const status = await probe(`${a.base}/api/modes/status`, { timeoutMs: 2500 });
        return status.status === 200 && status.json.boss.totalPlayers >= 2 ? true : undefined;
      }, 10_000, "the boss battle counted in mode status").catch(() => false);
      const cReady = await cOutcome;

      const during = answers.filter((x) => x.route !== "/ready");
      const readyDuring = answers.filter((x) => x.route === "/ready" && x.t >= NOTICE_MS);
      const bad = during.filter((x) => x.status !== 503 || x.json?.error?.code !== "dependency_unavailable" || !x.retryAfter || x.ms > 2000);
      const statuses = (list: Probed[]) => list.reduce<Record<string, number>>((m, x) => ((m[`${x.route} ${x.status || x.error}`] = (m[`${x.route} ${x.status || x.error}`] ?? 0) + 1), m), {});
      report("redis-down-25s", {
        outage_s: Math.round(outageMs / 1000),
        answers: statuses(answers),
        slowest_ms: Math.max(...during.map((x) => x.ms)),
        not_503_dependency_unavailable: bad.length,
        ready_503_naming_redis: readyDuring.filter((x) => x.status === 503 && /redis/i.test(x.text)).length,
        ready_probes: readyDuring.length,
        battle_open: battleOpen,
        battle_patches_last_5s: battlePatchesLast5s,
        matchmaking_back_after_ms: recovery,
        counted_again: counted === true,
        error_lines: errorCounts([a, b], marks),
        started_during_outage: { outcome: cReady, exit_code: c.child.exitCode, exited_after_outage_began_ms: cExitedAfterMs, after_return_ms: cReadyMs, lines_naming_REDIS_URL: c.lines.filter((l) => l.includes("REDIS_URL")).length + c.stderr.split("\n").filter((l) => l.includes("REDIS_URL")).length },
      });

      expect.soft(bad.slice(0, 3).map((x) => `${x.server} ${x.route} at ${x.t} ms: ${x.status || x.error} in ${x.ms} ms ${x.text.slice(0, 120)}`), "routes that need Redis: 503 dependency_unavailable + Retry-After within 2 s").toEqual([]);
      expect.soft(readyDuring.filter((x) => x.status !== 503 || !/redis/i.test(x.text)).map((x) => `${x.server} at ${x.t} ms: ${x.status || x.error} ${x.text.slice(0, 80)}`), "/ready while Redis is down").toEqual([]);
      expect.soft(battleOpen, "the boss battle's players stay connected").toBe(true);
      expect.soft(battlePatchesLast5s, "state patches in the outage's last 5 s").toBeGreaterThan(0);
      expect.soft(recovery, "matchmaking on both processes within 10 s of Redis' return").toEqual({ A: expect.any(Number), B: expect.any(Number) });
      for (const ms of Object.values(recovery)) if (ms !== null) expect.soft(ms).toBeLessThanOrEqual(10_000);
      expect.soft(counted, "the running battle counted in mode status").toBe(true);
      if (cReady === "exited") {
        const said = [...c.lines, ...c.stderr.split("\n")].filter((l) => l.trim());
        expect.soft(c.child.exitCode, "a process that cannot reach Redis at start exits 2").toBe(2);
        expect.soft(said.length === 1 && said[0].includes("REDIS_URL"), `one line naming REDIS_URL, got: ${said.slice(0, 3).join(" | ")}`).toBe(true);
      } else {
        expect.soft(cReady, "the process started during the outage serves once Redis is back").toBe("ready");
        expect.soft(cReadyMs).toBeLessThanOrEqual(10_000);
        const naming = c.logs().filter((l) => JSON.stringify(l).includes("REDIS_URL"));
        expect.soft(naming.length, "lines naming REDIS_URL while it waited (one per 10 s)").toBeGreaterThanOrEqual(1);
        expect.soft(naming.length).toBeLessThanOrEqual(Math.ceil(OUTAGE_MS / 10_000) + 1);
      }
    } finally {
      stopMoving();
      await Promise.all([boss, guest].map((p) => (p.room.connection.isOpen ? p.room.leave().catch(() => undefined) : undefined)));
    }
  });

  it("no line outside the JSON log (Redis outage, and a process started during it)", async () => {
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("redis-down-25s/noise", { servers: quietness(servers) });
    expectQuiet(servers.filter((s) => s !== c || s.child.exitCode !== 2)); // exit 2 says its one line where it likes
  });
});
