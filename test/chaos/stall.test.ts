// Issue 29, fault 1: a process that stalls (SIGSTOP: a VM freeze, a long GC, CPU throttling) for
// 10 s while its players keep sending 30 inputs/s. When it resumes, everything they sent meanwhile
// arrives at once; that is the server's catch-up, not a client's flood: nobody may be closed, and
// no duel may be written as a forfeit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, report, until, type GameServer } from "./harness.js";
import { expectQuiet, follow, quietness, sdk, sendSteadily, sleep, type Player } from "./common.js";

const STALL_MS = 10_000;

describe("a process stalled for 10 s (SIGSTOP) under 30 inputs/s", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6461, pgPort: 55461 });
    a = await cluster.startServer("A");
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("closes nobody in a boss battle or a duel, and records no forfeit", async () => {
    // The rooms open while A is the only process, so both are A's; B joins the deployment after.
    const owner = await account(cluster, a, 50);
    const boss = follow("boss owner", await sdk(a, owner.cookie).create("boss", {}));
    const guests = [];
    for (let i = 0; i < 2; i++) guests.push(follow(`boss guest ${i}`, await sdk(a).joinById(boss.room.roomId, { username: `guest${i}`, bullets: 20 })));
    const [ann, bob] = [await account(cluster, a, 30), await account(cluster, a, 30)];
    const duel1 = follow("duelist 1", await sdk(a, ann.cookie).joinOrCreate("pvp", {}));
    const duel2 = follow("duelist 2", await sdk(a, bob.cookie).joinById(duel1.room.roomId, {}));
    await Promise.all([duel1.log.waitFor("pvp_match_ready"), duel2.log.waitFor("pvp_match_ready")]);
    duel1.room.send("pvp_ready", {});
    duel2.room.send("pvp_ready", {});
    await Promise.all([duel1.log.waitFor("pvp_battle_start"), duel2.log.waitFor("pvp_battle_start")]);
    b = await cluster.startServer("B");

    const players: Player[] = [boss, ...guests, duel1, duel2];
    const jitter = () => 380 + Math.round(Math.random() * 40);
    const stops = [
      ...[boss, ...guests].map((p) => sendSteadily(p.room, "boss_player_move", () => ({ x: jitter(), y: jitter() }))),
      ...[duel1, duel2].map((p, i) => sendSteadily(p.room, "pvp_move", () => ({ x: i ? 500 : 300, y: jitter() - 100 }))),
    ];
    try {
      await sleep(1000); // a second of steady play before the stall
      a.signal("SIGSTOP");
      await sleep(STALL_MS);
      a.signal("SIGCONT");
      const resumedAt = Date.now();
      // Every player hears from its room again (or has been closed); then three more seconds of play.
      await until(() => players.every((p) => p.closed !== undefined || p.lastMessageAt > resumedAt), 15_000, "every player to hear from its room after the stall").catch(() => undefined);
      const heardAfterMs = Math.max(...players.map((p) => p.lastMessageAt - resumedAt));
      await sleep(3000);
      for (const stop of stops) stop();

      // A forfeit is written when the duel ends; give a closed duel the time to write it.
      const forfeits = async () =>
        cluster.postgres.sql<{ user_id: number; reason: string }>(`SELECT user_id, reason FROM pvp_results WHERE user_id = ANY($1) AND reason = 'forfeit'`, [[ann.id, bob.id]]);
      if (duel1.closed !== undefined || duel2.closed !== undefined) await until(async () => (await forfeits()).length > 0, 5000, "a forfeit row").catch(() => undefined);
      const forfeitRows = await forfeits();
      const stats = await (await fetch(`${b.base}/api/pvp/stats`, { headers: { cookie: ann.cookie } })).json();
      const closed = players.filter((p) => p.closed !== undefined).map((p) => `${p.name}: ${p.closed}`);
      report("stall", {
        stall_s: STALL_MS / 1000,
        inputs_per_s: 30,
        players: players.length,
        closed: closed.length,
        close_codes: closed,
        forfeit_rows: forfeitRows.length,
        pvp_stats_forfeits: stats.forfeits,
        first_messages_after_resume_ms: heardAfterMs,
      });
      expect.soft(closed, "players closed after the stall").toEqual([]);
      expect.soft(forfeitRows, "duel results written as forfeits").toEqual([]);
      expect.soft(stats.forfeits, "forfeits in /api/pvp/stats").toBe(0);
      // The duel is still on: both duelists keep moving each other.
      expect(duel1.room.connection.isOpen && duel2.room.connection.isOpen, "the duel's connections are open").toBe(true);
    } finally {
      for (const stop of stops) stop();
      await Promise.all(players.map((p) => (p.room.connection.isOpen ? p.room.leave().catch(() => undefined) : undefined)));
    }
  });

  it("no line outside the JSON log (stall)", async () => {
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("stall/noise", { servers: quietness(servers) });
    expectQuiet(servers);
  });
});
