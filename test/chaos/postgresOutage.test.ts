// Issue 29, fault 4: PostgreSQL stops for 10 s (a fast shutdown, then a restart on the same port)
// under two processes whose players autosave 4 times a second. Meanwhile every REST route that
// needs the database answers 503 database_unavailable with Retry-After, a signed-in room join is
// refused with that code and a plain message, no client ever sees driver text, the database's host
// or port, /ready answers 503; each process logs at most 5 error lines; afterwards /ready is 200
// again and every write that was acknowledged is in the database. A process started during the
// outage waits (a line per 10 s naming DATABASE_URL) and serves once it can, or exits 2 with one line
// naming DATABASE_URL. Nothing is printed outside the JSON log.
import { MatchMakeError } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, driverText, probe, report, until, type Answer, type GameServer } from "./harness.js";
import { errorCounts, expectQuiet, quietness, sdk, sleep } from "./common.js";

const OUTAGE_MS = 10_000;
const MAX_ERROR_LINES = 5;

interface Probed extends Answer {
  server: string;
  route: string;
  /** ms since PostgreSQL stopped (negative: before). */
  t: number;
}

describe("PostgreSQL down for 10 s under two processes", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;
  let c: GameServer | undefined;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6464, pgPort: 55464 });
    [a, b] = await Promise.all([cluster.startServer("A"), cluster.startServer("B")]);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("answers 503 database_unavailable with Retry-After, no driver text, at most 5 error lines, /ready 503 then 200, no acknowledged write lost", async () => {
    const pgPort = cluster.postgres.port;
    const writers = [];
    for (const server of [a, a, b, b]) writers.push({ server, ...(await account(cluster, server, 20)) });
    // One account per kind of request, so that one's seat never makes another's answer a 409.
    const joiner = await account(cluster, a, 20);
    const [reader, creator, duelist, bossJoiner, snake, early] = await Promise.all([a, a, a, b, b, b].map((s) => account(cluster, s, 20)));
    const owner = await account(cluster, b, 20);
    const boss = await sdk(b, owner.cookie).create("boss", {});
    boss.onMessage("*", () => {});
    const bossRoom = boss.roomId;
    const marks = new Map([a, b].map((s) => [s, s.mark()]));
    let downAt = Number.POSITIVE_INFINITY;
    let backAt = Number.POSITIVE_INFINITY;
    const since = () => Date.now() - downAt;
    const answers: Probed[] = [];
    const joinErrors: string[] = [];

    // Autosaves, 4 a second per account, time_played counting up: the highest acknowledged is what the database must hold.
    let writing = true;
    const acked = new Map<number, number>();
    let ackedDuringOutage = 0;
    const autosaves = writers.map(async (w) => {
      for (let t = 1; writing; t++) {
        const sentAt = Date.now();
        const res = await probe(`${w.server.base}/api/snakes/`, { method: "PUT", body: { current_square: 3, lives: 4, time_played: t }, cookie: w.cookie, timeoutMs: 5000 });
        answers.push({ ...res, server: w.server.name, route: "PUT /api/snakes/", t: sentAt - downAt });
        if (res.status === 200) {
          acked.set(w.id, t);
          if (sentAt >= downAt && sentAt < backAt) ackedDuringOutage++;
        }
        await sleep(Math.max(0, 250 - (Date.now() - sentAt)));
      }
    });

    // Signed-in room joins: a duel, the running boss battle by id, an arena.
    const joinBySdkIn = async (what: string, join: () => Promise<{ leave(): Promise<unknown> }>) => {
      try {
        const room = await join();
        await room.leave().catch(() => undefined);
      } catch (err) {
        const e = err as MatchMakeError;
        joinErrors.push(`${what}: ${e.code} ${e.message}`);
      }
    };
    const round = async (server: GameServer) => {
      const ask = async (route: string, url: string, init: Parameters<typeof probe>[1] = {}) => {
        const t = since();
        answers.push({ ...(await probe(url, { timeoutMs: 5000, ...init })), server: server.name, route, t });
      };
      const joinBySdk = joinBySdkIn;
      await Promise.all([
        ask("/ready", `${server.base}/ready`),
        ask("GET /api/snakes/progress", `${server.base}/api/snakes/progress`, { cookie: reader.cookie }),
        ask("/matchmake/create/boss", `${server.base}/matchmake/create/boss`, { body: {}, cookie: creator.cookie }),
        joinBySdk("pvp", () => sdk(server, duelist.cookie).joinOrCreate("pvp", {})),
        joinBySdk("boss by id", () => sdk(server, bossJoiner.cookie).joinById(bossRoom, {})),
        joinBySdk("slitherrush", () => sdk(server, snake.cookie).joinOrCreate("slitherrush", {})),
      ]);
    };

    const readyAgain: Record<string, number | null> = {};
    // Seats reserved before the outage, taken during it: the rooms' onJoin meets the database's absence.
    const reservations = await Promise.all(
      [
        ["boss by id", `/matchmake/joinById/${bossRoom}`, joiner.cookie],
        ["pvp", "/matchmake/joinOrCreate/pvp", early.cookie],
      ].map(async ([what, path, cookie]) => ({ what, cookie, seat: (await probe(`${a.base}${path}`, { body: {}, cookie })).json })),
    );
    try {
      await sleep(1000);
      await cluster.postgres.stop("fast");
      downAt = Date.now();
      c = await cluster.startServer("C", {}, false);
      for (const { what, cookie, seat } of reservations) {
        await joinBySdkIn(`${what} (reserved before)`, () => sdk(a, cookie).consumeSeatReservation(seat));
      }
      await sleep(500);
      while (since() < OUTAGE_MS - 1000) {
        const started = Date.now();
        await Promise.all([round(a), round(b)]);
        await sleep(Math.max(0, 1000 - (Date.now() - started)));
      }
      await sleep(Math.max(0, OUTAGE_MS - since()));
      await cluster.postgres.start();
      backAt = Date.now();
      await Promise.all(
        [a, b].map(async (s) => {
          const ok = await until(async () => (await probe(`${s.base}/ready`, { timeoutMs: 2000 })).status === 200, 15_000, `${s.name} /ready 200`, 200).catch(() => false);
          readyAgain[s.name] = ok ? Date.now() - backAt : null;
        }),
      );
      await until(async () => (!c!.running ? "exited" : (await probe(`${c!.base}/ready`, { timeoutMs: 2000 })).status === 200 ? "ready" : undefined), 15_000, "C to serve or exit").catch(() => "neither");
      await sleep(2000); // autosaves go on after the return
    } finally {
      writing = false;
      await Promise.all(autosaves);
      await boss.leave().catch(() => undefined);
    }

    // Every acknowledged write is in the database.
    const lost: string[] = [];
    for (const w of writers) {
      const [row] = await cluster.postgres.sql<{ time_played: number }>(`SELECT time_played FROM game_progress WHERE user_id = $1`, [w.id]);
      if ((row?.time_played ?? 0) < (acked.get(w.id) ?? 0)) lost.push(`account ${w.id}: acknowledged ${acked.get(w.id)}, stored ${row?.time_played}`);
    }
    const outage = answers.filter((x) => x.t >= 500 && x.t < OUTAGE_MS);
    const refusedWrong = outage.filter((x) => x.route !== "/ready" && x.status !== 200 && (x.status !== 503 || x.json?.error?.code !== "database_unavailable" || !x.retryAfter));
    const readyWrong = outage.filter((x) => x.route === "/ready" && x.status !== 503);
    // One entry per answer or join error that shows driver text, the database's host or port.
    const leaks = [
      ...answers.filter((x) => x.status !== 200 && x.status !== 201).map((x) => ({ found: driverText(x.text, pgPort), what: `${x.server} ${x.route} (${x.status}): ${x.text.slice(0, 160)}` })),
      ...joinErrors.map((m) => ({ found: driverText(m, pgPort), what: `room join: ${m.slice(0, 200)}` })),
    ]
      .filter((l) => l.found.length > 0)
      .map((l) => `[${l.found.join(", ")}] ${l.what}`);
    const errors = errorCounts([a, b], marks);
    const statuses = outage.reduce<Record<string, number>>((m, x) => ((m[`${x.route} ${x.status || x.error}`] = (m[`${x.route} ${x.status || x.error}`] ?? 0) + 1), m), {});
    const backLines = [a, b].map((s) => s.logs(marks.get(s)).filter((l) => l.level === 30 && /database/i.test(String(l.dependency ?? "")) ).length);
    report("postgres-down-10s", {
      outage_s: OUTAGE_MS / 1000,
      answers_during_outage: statuses,
      wrong_refusals: refusedWrong.length,
      room_join_errors: [...new Set(joinErrors.map((m) => m.slice(0, 140)))].slice(0, 4),
      driver_text_leaks: leaks.length,
      error_lines: errors,
      back_info_lines: backLines,
      acknowledged_writes: [...acked.values()].reduce((s, n) => s + n, 0),
      acknowledged_during_outage: ackedDuringOutage,
      lost_acknowledged_writes: lost.length,
      ready_200_after_return_ms: readyAgain,
      started_during_outage: { outcome: c!.running ? "running" : "exited", exit_code: c!.child.exitCode, lines_naming_DATABASE_URL: [...c!.lines, ...c!.stderr.split("\n")].filter((l) => l.includes("DATABASE_URL")).length },
    });

    expect.soft(refusedWrong.slice(0, 3).map((x) => `${x.server} ${x.route} at ${x.t} ms: ${x.status || x.error} ${x.text.slice(0, 160)}`), "REST answers during the outage: 503 database_unavailable + Retry-After").toEqual([]);
    expect.soft(readyWrong.map((x) => `${x.server} at ${x.t} ms: ${x.status}`), "/ready during the outage").toEqual([]);
    expect.soft(leaks.slice(0, 3), "driver text, host or port in a response or room-join error").toEqual([]);
    for (const [name, n] of Object.entries(errors)) expect.soft(n, `${name}: error lines during the outage`).toBeLessThanOrEqual(MAX_ERROR_LINES);
    expect.soft(lost, "acknowledged writes lost").toEqual([]);
    expect.soft(readyAgain, "/ready 200 again on both processes").toEqual({ A: expect.any(Number), B: expect.any(Number) });
    if (c && !c.running) {
      const said = [...c.lines, ...c.stderr.split("\n")].filter((l) => l.trim());
      expect.soft(c.child.exitCode, "a process that cannot reach PostgreSQL at start exits 2 (or waits)").toBe(2);
      expect.soft(said.length === 1 && said[0].includes("DATABASE_URL"), `one line naming DATABASE_URL, got: ${said.slice(0, 3).join(" | ").slice(0, 600)}`).toBe(true);
    } else if (c) {
      expect.soft((await probe(`${c.base}/ready`)).status, "the process started during the outage serves once PostgreSQL is back").toBe(200);
      const naming = c.logs().filter((l) => JSON.stringify(l).includes("DATABASE_URL"));
      expect.soft(naming.length, "lines naming DATABASE_URL while it waited (one per 10 s)").toBeGreaterThanOrEqual(1);
      expect.soft(naming.length).toBeLessThanOrEqual(Math.ceil(OUTAGE_MS / 10_000) + 1);
    }
  });

  it("no line outside the JSON log (PostgreSQL outage, and a process started during it)", async () => {
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("postgres-down-10s/noise", { servers: quietness(servers) });
    expectQuiet(servers.filter((s) => s !== c || s.child.exitCode !== 2)); // exit 2 says its one line where it likes
  });
});
