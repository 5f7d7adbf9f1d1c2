// PostgreSQL stopped for ~10 s under a running server (started as `npm start` starts it, on a
// PostgreSQL of the test's own: test/helpers/ownPostgres.ts). While it is down: every write answers
// 503 database_unavailable with Retry-After, /ready 503, a signed-in room join is refused with
// database_unavailable, no response carries the driver's text, host or port, and the log has at most
// a few error lines (one per 10 s), nothing outside the JSON log. After: /ready 200 again, one info
// line, writes resume, and every write acknowledged before the outage is there.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { Client as ColyseusClient } from "@colyseus/sdk";
import { freePort, npmStart, runEntry, waitFor, type NpmStart, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";
import { postgresBinaries, startOwnPostgres, type OwnPostgres } from "../helpers/ownPostgres.js";

const enabled = process.env.TEST_DB === "postgres" && postgresBinaries() !== undefined;
const DRIVER_TEXT = /prisma|invocation|Can't reach|127\.0\.0\.1|terminat|ECONN|57P0|P10\d\d|P2010/i;

describe.skipIf(!enabled)("PostgreSQL outage under a running server", () => {
  let pg: OwnPostgres;
  let server: ServerProcess;
  let base: string;
  const log = () =>
    server
      .stdout()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; time: string; dependency?: string });

  beforeAll(async () => {
    pg = await startOwnPostgres();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = runEntry("src/index.ts", {
      PORT: String(port),
      SAMPLE_PORT: "0",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      DATABASE_URL: pg.url,
      JWT_SECRET: "outage-secret-0123456789abcdefghijklmnopqrstuv",
      RATE_LIMIT_REGISTER: "1000/1m",
      RATE_LIMIT_WRITES: "100000/1m",
      RATE_LIMIT_MATCHMAKE: "100000/1m",
      SHUTDOWN_DRAIN_SECONDS: "1",
      DATA_DIR: "/nonexistent-database-outage",
    });
    await waitFor(async () => ((await fetch(`${base}/ready`)).ok ? true : undefined), 120_000, `server on ${port}\n${server.stderr()}`);
  }, 150_000);

  let started: NpmStart | undefined;
  afterAll(async () => {
    started?.kill();
    await server?.stop();
    pg?.destroy();
  });

  it("answers 503 database_unavailable with Retry-After, refuses a signed-in join plainly, logs a few lines, loses no acknowledged write", async () => {
    const accounts: HttpClient[] = [];
    for (let i = 0; i < 4; i++) {
      const http = new HttpClient(base);
      const res = await http.post("/api/auth/register", { username: `outage${i}_${process.pid}`, password: "correct horse battery" });
      expect(res.status).toBe(201);
      accounts.push(http);
    }
    const joiner = accounts[0];

    // Autosaves with a rising play time, as /play sends them; what was acknowledged (200) is remembered.
    const acknowledged = new Map<HttpClient, number>();
    const answers: Array<{ sent: number; at: number; status: number; retryAfter: string | null; text: string }> = [];
    let running = true;
    onTestFinished(() => void (running = false));
    let tick = 0;
    const writers = accounts.map(async (http) => {
      while (running) {
        const played = ++tick;
        const sent = Date.now();
        const res = await http.put("/api/snakes/", { time_played: played });
        answers.push({ sent, at: Date.now(), status: res.status, retryAfter: res.headers.get("retry-after"), text: res.text });
        if (res.status === 200) acknowledged.set(http, Math.max(acknowledged.get(http) ?? 0, played));
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    await waitFor(async () => (answers.filter((a) => a.status === 200).length >= 20 ? true : undefined), 20_000, "autosaves before the outage");

    // The joiner's session was just checked (cached for 5 s): its join passes onAuth and meets the database in onJoin.
    expect((await joiner.get("/api/auth/me")).status).toBe(200);
    const linesBefore = log().length;
    const stoppedAt = Date.now();
    pg.stop(); // blocks this process until PostgreSQL is down: answers read meanwhile get later times
    const downAt = Date.now();

    const wsJoin = await new ColyseusClient(base.replace("http", "ws"), { headers: { cookie: joiner.cookieHeader } })
      .joinOrCreate("pvp", {})
      .then(
        (room) => ({ joined: true, code: 0, message: `joined ${room.roomId}` }),
        (err: { code: number; message: string }) => ({ joined: false, code: err.code, message: err.message }),
      );
    expect(wsJoin.joined).toBe(false);
    expect(wsJoin.code).toBe(503);
    expect(wsJoin.message).not.toMatch(DRIVER_TEXT);
    // Refused in onJoin (src/rooms/kit/join.ts), or at /matchmake if the session cache ran out meanwhile.
    expect(wsJoin.message).toMatch(/^database_unavailable: |^The database is not answering/);

    const firstRefusal = await waitFor(async () => answers.find((a) => a.at > stoppedAt && a.status === 503), 10_000, "a 503 after the stop");
    expect(firstRefusal.retryAfter).toBe("5");
    expect(JSON.parse(firstRefusal.text).error.code).toBe("database_unavailable");
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);

    // A guest's play needs no database: it still joins.
    const guest = await new ColyseusClient(base.replace("http", "ws")).joinOrCreate("pvp", { bullets: 30 });
    expect(guest.sessionId).toBeTruthy();
    await guest.leave();

    // Past the session cache's 5 s: the join is refused at /matchmake (onAuth needs the database).
    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + 6_000 - Date.now())));
    const matchmake = await fetch(`${base}/matchmake/joinOrCreate/pvp`, { method: "POST", headers: { cookie: joiner.cookieHeader, "content-type": "application/json" }, body: "{}" });
    const matchmakeBody = await matchmake.text();
    expect([matchmake.status, JSON.parse(matchmakeBody).error.code]).toEqual([503, "database_unavailable"]);
    expect(matchmakeBody).not.toMatch(DRIVER_TEXT);

    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + 10_000 - Date.now())));
    const startedAt = Date.now();
    pg.start();
    await waitFor(async () => ((await fetch(`${base}/ready`)).ok ? true : undefined), 20_000, "/ready 200 after the return");
    const readyAfterMs = Date.now() - startedAt;
    const resumedAt = Date.now();
    await waitFor(async () => (answers.some((a) => a.at > resumedAt && a.status === 200) ? true : undefined), 10_000, "autosaves after the return");
    running = false;
    await Promise.all(writers);

    const during = answers.filter((a) => a.sent > downAt && a.at < startedAt);
    expect(during.length).toBeGreaterThan(20);
    expect(new Set(during.map((a) => a.status))).toEqual(new Set([503]));
    for (const a of answers) expect(a.text).not.toMatch(DRIVER_TEXT);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter).toBe("5");

    const lines = log().slice(linesBefore);
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.length).toBeLessThanOrEqual(5);
    expect(errors.every((l) => l.dependency === "database")).toBe(true);
    expect(lines.filter((l) => l.msg === "database reachable again")).toHaveLength(1);
    expect(server.stderr()).toBe("");

    // Every acknowledged write is there (play time never goes backwards).
    for (const http of accounts) {
      const record = await http.get("/api/snakes/");
      expect(record.status).toBe(200);
      expect(record.body.time_played).toBeGreaterThanOrEqual(acknowledged.get(http)!);
    }
    console.log(
      `database outage: join refused with ${wsJoin.code} "${wsJoin.message}"; first 503 ${firstRefusal.at - stoppedAt} ms after the stop; ${errors.length} error lines in ${Math.round((startedAt - stoppedAt) / 1000)} s; /ready 200 ${readyAfterMs} ms after the start; ${during.length} writes refused, ${acknowledged.size} accounts' acknowledged writes all kept`,
    );
  }, 90_000);

  it("a process started (npm start) while PostgreSQL is down waits, one line per 10 s naming DATABASE_URL and host:port, and serves once it answers", async () => {
    await server.stop();
    pg.stop();
    const port = await freePort();
    const url = pg.url.replace("postgres@", "postgres:s3cret@");
    started = npmStart({ PORT: String(port), SAMPLE_PORT: "0", NODE_ENV: "test", LOG_LEVEL: "info", DATABASE_URL: url, JWT_SECRET: "outage-secret-0123456789abcdefghijklmnopqrstuv", DATA_DIR: "/nonexistent-database-outage" });
    const waiting = () => started!.stdout().split("\n").filter((l) => l.includes("waiting for the database"));
    await waitFor(async () => (waiting().length ? true : undefined), 60_000, `the waiting line\n${started.stdout()}`);
    const firstAt = Date.now();
    // Retried every second meanwhile, logged once per 10 s; the port answers /health 200 and /ready 503.
    await new Promise((r) => setTimeout(r, 3000));
    expect(waiting()).toHaveLength(Date.now() - firstAt < 10_000 ? 1 : 2);
    const line = JSON.parse(waiting()[0]) as { level: number; variable: string; address: string; msg: string };
    expect([line.level, line.variable, line.address]).toEqual([50, "DATABASE_URL", `127.0.0.1:${pg.port}`]);
    expect(started.stdout()).not.toContain("s3cret");
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect([ready.status, ready.headers.get("retry-after"), ((await ready.json()) as { error: { details: { down: string[] } } }).error.details.down]).toEqual([503, "5", ["database"]]);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    pg.start();
    await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/ready`)).ok ? true : undefined), 30_000, "/ready once the database answers");
    expect(started.stdout()).toContain("database reachable: starting");
    expect(started.stdout().split("\n").filter((l) => l.startsWith("{") || l.trim() === "" || l.startsWith(">"))).toHaveLength(started.stdout().split("\n").length);
  }, 120_000);
});
