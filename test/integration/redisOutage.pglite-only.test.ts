// Redis outages under running servers (issue 29), against a redis-server of this file's own that it
// kills and starts again (empty: no persistence). Two processes started as `npm start` starts them,
// each on an embedded database of its own (accounts live on A; B serves guests): the start-up wait,
// 503s within 2 s, /ready on a process without traffic, an outage longer than the 20 reconnection
// attempts @colyseus/redis-driver's own client would allow, the republish on return (listings,
// counts, subscriptions, seat leases: the one-live-match rule), a log with nothing but JSON lines.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Room } from "@colyseus/sdk";
import { Redis } from "ioredis";
import { freePort, migratedDataDir, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";
import { slitherPlayer } from "../helpers/slitherrush.js";

const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;

/** The error lines of Redis being unreachable (at start and while running). */
const outageLines = (p: ServerProcess) =>
  p
    .stdout()
    .split("\n")
    .filter((l) => l.includes('"dependency":"redis"'))
    .map((l) => JSON.parse(l))
    .filter((l) => l.level >= 50);

const postJson = (url: string, body: unknown, cookie?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });

describe.skipIf(!hasRedis)("Redis outages under a running server (issue 29)", () => {
  let redisPort: number;
  let redisServer: ChildProcess | undefined;
  let proc: ServerProcess;
  let base: string;
  let procB: ServerProcess | undefined;
  let baseB: string;
  let start: (name: string) => Promise<{ proc: ServerProcess; base: string }>;
  let redis: Redis;
  const rooms: Room[] = [];

  const startRedis = async () => {
    redisServer = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await waitFor(async () => ((await redis.ping().catch(() => undefined)) === "PONG" ? true : undefined), 10_000, "redis-server");
  };
  const stopRedis = async () => {
    const gone = new Promise((r) => redisServer!.once("exit", r));
    redisServer!.kill("SIGKILL");
    await gone;
  };
  /** Status of a request and how long its answer took. */
  const timed = async (request: () => Promise<Response>) => {
    const started = performance.now();
    const res = await request();
    const body = await res.json().catch(() => undefined);
    return { status: res.status, body, retryAfter: res.headers.get("retry-after"), ms: performance.now() - started };
  };
  const matchmakeGuest = () => postJson(`${base}/matchmake/joinOrCreate/mode_select`, {});

  beforeAll(async () => {
    redisPort = await freePort();
    redis = new Redis({ port: redisPort, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    redis.on("error", () => {});
    start = async (name: string) => {
      const port = await freePort();
      const proc = runEntry("src/index.ts", {
        PORT: String(port),
        SAMPLE_PORT: "0",
        NODE_ENV: "test",
        LOG_LEVEL: "info",
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        PUBLIC_ADDRESS: `127.0.0.1:${port}`,
        JWT_SECRET: "redis-outage-secret-0123456789abcdefghijklmnop",
        RATE_LIMIT_MATCHMAKE: "100000/1m",
        DATA_DIR: await migratedDataDir(`redis-outage-${name}-`),
      });
      return { proc, base: `http://127.0.0.1:${port}` };
    };
    ({ proc, base } = await start("a"));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(rooms.map((r) => r.leave().catch(() => {})));
    await Promise.all([proc?.stop(), procB?.stop()]);
    redis?.disconnect();
    redisServer?.kill("SIGKILL");
  });

  it("a process started while Redis is unreachable waits, answering /ready 503, and serves once Redis answers", { timeout: 180_000 }, async () => {
    const waiting = await waitFor(async () => (/waiting for Redis/.test(proc.stdout()) ? true : undefined), 120_000, `the waiting line\n${proc.stderr()}`);
    expect(waiting).toBe(true);
    const line = JSON.parse(proc.stdout().split("\n").find((l) => l.includes("waiting for Redis"))!);
    expect(line).toMatchObject({ level: 50, variable: "REDIS_URL", address: `127.0.0.1:${redisPort}` });
    expect(line.msg).toContain("REDIS_URL");
    const ready = await waitFor(async () => {
      const res = await fetch(`${base}/ready`);
      return res.status === 503 ? res.json() : undefined;
    }, 10_000, "/ready 503 while waiting");
    expect(ready.error.details.down).toEqual(["redis"]);
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await startRedis();
    await waitFor(async () => ((await fetch(`${base}/ready`)).ok ? true : undefined), 60_000, "/ready 200 once Redis answers");
  });

  it("while Redis is down: 503 within 2 s with Retry-After, /ready 503 on both, matches go on; when it returns empty: matchmaking within 10 s, both processes' rooms listed, counted and joinable again, a seated account still refused a second match", { timeout: 240_000 }, async () => {
    const register = await postJson(`${base}/api/auth/register`, { username: `outage_${process.pid}_${Date.now() % 100000}`, password: "correct horse battery" });
    expect(register.status).toBe(201);
    const cookie = register.headers.getSetCookie()[0].split(";")[0];
    const { user } = await register.json();
    const duel = await new Client(base, { headers: { cookie } }).joinOrCreate("pvp", {});
    rooms.push(duel);
    const viewer = await new Client(base).joinOrCreate("mode_select", {});
    await waitFor(async () => ((await redis.get(`match:seat:${user.id}`)) ? true : undefined), 5000, "the seat lease");
    // B joins once A has the account's rooms (B's database has no accounts); a guest's arena goes to
    // B, the process with fewer rooms.
    ({ proc: procB, base: baseB } = await start("b"));
    await waitFor(async () => ((await fetch(`${baseB}/ready`)).ok ? true : undefined), 120_000, `B ready\n${procB.stderr()}`);
    const reservation = await (await postJson(`${baseB}/matchmake/joinOrCreate/slitherrush`, {})).json();
    expect(reservation.publicAddress).toBe(new URL(baseB).host);
    const snake = await slitherPlayer(new Client(baseB).consumeSeatReservation(reservation));
    rooms.push(snake.room);

    await stopRedis();
    const killed = performance.now();
    for (const b of [base, baseB]) await waitFor(async () => ((await fetch(`${b}/ready`)).status === 503 ? true : undefined), 5000, `/ready 503 on ${b}`);
    expect(performance.now() - killed).toBeLessThan(5000);
    for (const request of [
      matchmakeGuest,
      () => postJson(`${base}/matchmake/joinOrCreate/slitherrush`, {}, cookie),
      () => fetch(`${base}/api/modes/status`),
      () => postJson(`${base}/api/auth/login`, { username: "nobody_here", password: "whatever1" }),
      () => postJson(`${base}/api/auth/register`, { username: `x${Date.now() % 1e6}`, password: "correct horse battery" }),
    ]) {
      const answer = await timed(request);
      expect(answer).toMatchObject({ status: 503, body: { error: { code: "dependency_unavailable" } }, retryAfter: "5" });
      expect(answer.ms).toBeLessThan(2000);
    }
    // A client leaves meanwhile: its room closes without Redis (and without killing the process).
    await viewer.leave();
    expect(duel.connection.isOpen).toBe(true);
    // The outage lasts past the driver's 20 reconnection attempts: until A's second outage line (10 s).
    await waitFor(async () => (outageLines(proc).some((l) => l.down_s >= 10) ? true : undefined), 30_000, "ten seconds of outage");
    const snapshots = snake.snapshots.length;
    await waitFor(async () => (snake.snapshots.length >= snapshots + 10 ? true : undefined), 10_000, "the arena's snapshots during the outage");

    await startRedis(); // empty
    const back = performance.now();
    await waitFor(async () => ((await matchmakeGuest()).status === 200 ? true : undefined), 15_000, "matchmaking back");
    expect(performance.now() - back).toBeLessThan(10_000);
    expect(await redis.get(`match:seat:${user.id}`)).toBe(`pvp/${duel.roomId}`);
    expect(await redis.hexists("roomcaches", duel.roomId)).toBe(1);
    expect(await redis.hexists("roomcaches", viewer.roomId)).toBe(0);
    const status = await (await fetch(`${base}/api/modes/status`)).json();
    expect(status.pvp.totalPlayers).toBe(1);
    expect(status.slitherrush.totalPlayers).toBe(1);
    // B's arena is joinable through A again (its listing and its IPC subscription are back).
    const intoB = await (await postJson(`${base}/matchmake/joinById/${snake.room.roomId}`, {})).json();
    expect(intoB).toMatchObject({ roomId: snake.room.roomId, publicAddress: new URL(baseB).host });
    expect(await redis.hlen("roomcount")).toBe(2);
    const second = await timed(() => postJson(`${base}/matchmake/joinOrCreate/slitherrush`, {}, cookie));
    expect(second.status).toBe(409);
    expect(duel.connection.isOpen).toBe(true);
  });

  it("prints nothing outside the JSON log, and logs Redis' outages once per interval", () => {
    for (const p of [proc, procB!]) {
      expect(p.stderr()).toBe("");
      const lines = p.stdout().split("\n").filter(Boolean);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      // Two waits at start (one line per 10 s) and an outage of 10-20 s: a handful, never one per failure.
      expect(outageLines(p).length).toBeLessThanOrEqual(8);
    }
  });
});
