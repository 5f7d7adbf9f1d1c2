// Issue 35, "matchmaking through a flapping Redis": Redis is killed and restarted (empty) again
// and again, 2 s down and 1.0, 1.5, 2.0 or 2.5 s up, under two processes, each hosting a boss battle
// with a seated account. Meanwhile clients matchmake through both processes back to back, and each
// seated account asks for a second match through the other process. Before issue 35, every return
// waited for the process's republish plus a fixed 2 s settle, so with up-windows shorter than
// ~2.5 s matchmaking never answered 200. Now a process opens as soon as every process it knows
// alive has confirmed its republish for this Redis (src/shared/redisRecovery.ts), so matchmaking
// succeeds in short up-windows too, and the one-live-match rule still holds: no double seat.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, Cluster, probe, report, until, type GameServer } from "./harness.js";
import { expectQuiet, follow, quietness, sdk, secondMatch, sleep, type Player } from "./common.js";

const DOWN_MS = 2000;
/** How long each up-window setting is flapped for. */
const FLAP_MS = 24_000;

describe("Redis flapping (2 s down, short up-windows) under two processes", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;
  /** An account seated in a boss battle on each process. */
  const seated: Array<{ player: Player; cookie: string; askThrough: () => GameServer }> = [];
  const summary: Record<string, unknown> = {};

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6466, pgPort: 55466 });
    [a, b] = await Promise.all([cluster.startServer("A"), cluster.startServer("B")]);
    for (const [host, other] of [
      [a, () => b],
      [b, () => a],
    ] as const) {
      const x = await account(cluster, host, 50);
      seated.push({ player: follow(`seated on ${host.name}`, await sdk(host, x.cookie).create("boss", {})), cookie: x.cookie, askThrough: other });
    }
  });
  afterAll(async () => {
    await Promise.all(seated.map((s) => (s.player.room.connection.isOpen ? s.player.room.leave().catch(() => undefined) : undefined)));
    await cluster?.close();
  });

  const matchmakes = (s: GameServer) => probe(`${s.base}/matchmake/joinOrCreate/pvp`, { body: { bullets: 30 }, timeoutMs: 2500 }).then((r) => r.status === 200);

  it.each([1000, 1500, 2000, 2500])("matchmakes in %i ms up-windows, and never seats an account twice", async (upMs) => {
    // Steady state first: both processes matchmake.
    for (const s of [a, b]) await until(() => matchmakes(s), 15_000, `${s.name} to matchmake before flapping`, 200);
    for (const s of seated) expect(await secondMatch(s.askThrough(), s.cookie), "a second match before flapping").toMatch(/^refused 409/);

    let flapping = true;
    const tally = { attempts: 0, successes: 0, up_windows: 0, up_windows_with_success: 0 };
    let successInWindow = false;
    /** ms from each return to the first 200 of that up-window. */
    const firstSuccessMs: number[] = [];
    let backAt = 0;
    let up = false;
    const clients = [a, b].map(async (s) => {
      while (flapping) {
        const ok = await matchmakes(s);
        tally.attempts++;
        if (ok) {
          tally.successes++;
          if (up && !successInWindow) firstSuccessMs.push(Date.now() - backAt);
          if (up) successInWindow = true;
        } else await sleep(50); // pacing: a 503 answers at once
      }
    });
    const doubles: string[] = [];
    const secondAnswers: Record<string, number> = {};
    const askers = seated.map(async (s) => {
      while (flapping) {
        const answer = await secondMatch(s.askThrough(), s.cookie);
        const kind = answer.replace(/ room .*| \[.*| in .*$/, "").slice(0, 40);
        secondAnswers[kind] = (secondAnswers[kind] ?? 0) + 1;
        if (answer.startsWith("seated") && s.player.closed === undefined) doubles.push(`${s.player.name}: ${answer}`);
        await sleep(100); // pacing
      }
    });

    const started = Date.now();
    while (Date.now() - started < FLAP_MS) {
      await cluster.redis.kill();
      up = false;
      await sleep(DOWN_MS); // the fault's schedule, not a wait for a condition
      await cluster.redis.start(false);
      backAt = Date.now();
      successInWindow = false;
      up = true;
      tally.up_windows++;
      await sleep(upMs);
      if (successInWindow) tally.up_windows_with_success++;
    }
    up = false;
    flapping = false;
    const stoppedAt = Date.now();
    await Promise.all([...clients, ...askers]);
    // Redis stays up now: both processes matchmake again.
    const settled: Record<string, number | null> = {};
    for (const s of [a, b]) settled[s.name] = await until(() => matchmakes(s), 15_000, `${s.name} to matchmake after flapping`, 100).then(() => Date.now() - stoppedAt, () => null);

    const figures = {
      up_ms: upMs,
      down_ms: DOWN_MS,
      ...tally,
      first_success_after_return_ms: firstSuccessMs.length ? { min: Math.min(...firstSuccessMs), median: firstSuccessMs.sort((x, y) => x - y)[Math.floor(firstSuccessMs.length / 2)] } : null,
      double_seats: doubles.length,
      second_match_answers: secondAnswers,
      matchmaking_after_flapping_ms: settled,
      battles_open: seated.every((s) => s.player.closed === undefined),
    };
    summary[`up_${upMs}`] = figures;
    report(`redis-flap-up-${upMs}ms`, figures);
    expect.soft(doubles, "accounts seated in a second match while their battle runs").toEqual([]);
    expect.soft(seated.map((s) => s.player.closed), "the seated accounts' battles still running").toEqual([undefined, undefined]);
    expect.soft(settled, "both processes matchmake once Redis stays up").toEqual({ A: expect.any(Number), B: expect.any(Number) });
    // Before issue 35 no up-window shorter than ~2.5 s ever matchmade (0 of 224 in the issue).
    expect.soft(tally.up_windows_with_success, `up-windows (of ${tally.up_windows}) in which matchmaking answered 200`).toBeGreaterThanOrEqual(Math.ceil(tally.up_windows / 2));
  });

  // What the 2 s settle bought: a process slower than the others to see Redis back (stopped across
  // the return: a long GC, CPU throttling) has not yet written its seat leases when the others are
  // ready. They must wait for it (it confirms once it has republished), or they seat its players twice.
  it("waits for a process that is slow to come back: its seated account gets no second match meanwhile", async () => {
    for (const s of [a, b]) await until(() => matchmakes(s), 15_000, `${s.name} to matchmake before the outage`, 200);
    const [onA] = seated; // seated on A, asks through B
    await cluster.redis.kill();
    await sleep(DOWN_MS); // the fault's schedule
    a.signal("SIGSTOP");
    let stoppedFor = 0;
    const answers: Array<{ at: number; answer: string }> = [];
    try {
      await cluster.redis.start(false);
      const backAt = Date.now();
      // B answers while A is stopped (1.2 s) and after it resumed, for 4 s in all.
      while (Date.now() - backAt < 4000) {
        if (!stoppedFor && Date.now() - backAt >= 1200) {
          a.signal("SIGCONT");
          stoppedFor = Date.now() - backAt;
        }
        answers.push({ at: Date.now() - backAt, answer: await secondMatch(b, onA.cookie) });
        await sleep(50); // pacing
      }
    } finally {
      a.signal("SIGCONT");
    }
    const seatedTwice = answers.filter((r) => r.answer.startsWith("seated"));
    const firstRefusal = answers.find((r) => r.answer.startsWith("refused 409"));
    report("redis-flap/slow-process", { a_stopped_ms: stoppedFor, asked: answers.length, seated_twice: seatedTwice.length, first_409_after_ms: firstRefusal?.at ?? null });
    expect.soft(seatedTwice.map((r) => `${r.at} ms: ${r.answer}`), "the account seated on the stopped process, seated again through the other").toEqual([]);
    expect.soft(firstRefusal, "a 409 naming its battle once both are back").toBeDefined();
    expect.soft(onA.player.closed, "its battle still running").toBeUndefined();
  });

  it("no line outside the JSON log (Redis flapping)", async () => {
    report("redis-flap/summary", summary);
    const servers = cluster.servers;
    await Promise.all(servers.map((s) => s.stop()));
    report("redis-flap/noise", { servers: quietness(servers) });
    expectQuiet(servers);
  });
});
