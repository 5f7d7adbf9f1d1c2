// Redis outages under a running server (issue 29), against a redis-server of this file's own that it
// stops and starts again (empty: no persistence). One process started as `npm start` starts it,
// on an embedded database: the mechanisms (start-up wait, 503s within 2 s, /ready, republish on
// return, the one-live-match rule kept, a quiet log) are this process's own; test/chaos/ runs two.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Room } from "@colyseus/sdk";
import { Redis } from "ioredis";
import { freePort, migratedDataDir, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";

const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;

const postJson = (url: string, body: unknown, cookie?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });

describe.skipIf(!hasRedis)("Redis outages under a running server (issue 29)", () => {
  let redisPort: number;
  let redisServer: ChildProcess | undefined;
  let proc: ServerProcess;
  let base: string;
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
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = runEntry("src/index.ts", {
      PORT: String(port),
      SAMPLE_PORT: "0",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PUBLIC_ADDRESS: `127.0.0.1:${port}`,
      JWT_SECRET: "redis-outage-secret-0123456789abcdefghijklmnop",
      RATE_LIMIT_MATCHMAKE: "100000/1m",
      DATA_DIR: await migratedDataDir("redis-outage-"),
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(rooms.map((r) => r.leave().catch(() => {})));
    await proc?.stop();
    redis?.disconnect();
    redisServer?.kill("SIGKILL");
  });

  it("a process started while Redis is unreachable waits, answering /ready 503, and serves once Redis answers", { timeout: 150_000 }, async () => {
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

  it("while Redis is down: 503 within 2 s with Retry-After, /ready 503, the match goes on; when it returns empty: matchmaking within 10 s, the rooms listed and counted again, a seated account still refused a second match", { timeout: 90_000 }, async () => {
    const register = await postJson(`${base}/api/auth/register`, { username: `outage_${process.pid}_${Date.now() % 100000}`, password: "correct horse battery" });
    expect(register.status).toBe(201);
    const cookie = register.headers.getSetCookie()[0].split(";")[0];
    const { user } = await register.json();
    const duel = await new Client(base, { headers: { cookie } }).joinOrCreate("pvp", {});
    rooms.push(duel);
    const viewer = await new Client(base).joinOrCreate("mode_select", {});
    await waitFor(async () => ((await redis.get(`match:seat:${user.id}`)) ? true : undefined), 5000, "the seat lease");

    await stopRedis();
    const down = await waitFor(async () => ((await fetch(`${base}/ready`)).status === 503 ? true : undefined), 5000, "/ready 503");
    expect(down).toBe(true);
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

    await startRedis(); // empty
    const back = performance.now();
    await waitFor(async () => ((await matchmakeGuest()).status === 200 ? true : undefined), 15_000, "matchmaking back");
    expect(performance.now() - back).toBeLessThan(10_000);
    expect(await redis.get(`match:seat:${user.id}`)).toBe(`pvp/${duel.roomId}`);
    expect(await redis.hexists("roomcaches", duel.roomId)).toBe(1);
    expect(await redis.hexists("roomcaches", viewer.roomId)).toBe(0);
    const status = await (await fetch(`${base}/api/modes/status`)).json();
    expect(status.pvp.totalPlayers).toBe(1);
    const second = await timed(() => postJson(`${base}/matchmake/joinOrCreate/slitherrush`, {}, cookie));
    expect(second.status).toBe(409);
    expect(duel.connection.isOpen).toBe(true);
  });

  it("prints nothing outside the JSON log, and logs Redis' outages once per interval", () => {
    expect(proc.stderr()).toBe("");
    const lines = proc.stdout().split("\n").filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const outageLines = lines.map((l) => JSON.parse(l)).filter((l) => l.dependency === "redis" && l.level >= 50);
    expect(outageLines.length).toBeLessThanOrEqual(4);
  });
});
