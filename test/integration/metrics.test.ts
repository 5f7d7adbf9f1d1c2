// Prometheus metrics at GET /metrics (issue 10): protected by METRICS_TOKEN or the monitor's
// credentials; process metrics, HTTP durations by route and status, rooms and clients per room
// type, room messages in and out, simulation ticks, database query durations, rate-limit refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, testConfig, type TestApp } from "../helpers/app.js";
import { defaultRateLimits } from "../../src/config.js";
import { accountWithBullets, joined } from "../helpers/boss.js";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ metricsToken: METRICS_TOKEN, monitorUser: "ops", monitorPassword: "monitor-pass-1", rateLimits: { ...testConfig().rateLimits, login: defaultRateLimits().login } });
});
afterAll(() => t?.stop());

/** Every sample of the exposition text: name{labels} value. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line)!;
      const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

async function scrape() {
  const res = await t.http({ authorization: `Bearer ${METRICS_TOKEN}` }).get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const all = samples(res.text);
  const value = (name: string, labels: Record<string, string> = {}) =>
    all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
  return { text: res.text, all, value };
}

describe("GET /metrics", () => {
  it("needs METRICS_TOKEN or the monitor credentials", async () => {
    expect((await t.http().get("/metrics")).status).toBe(401);
    expect((await t.http({ authorization: "Bearer wrong-token" }).get("/metrics")).status).toBe(401);
    expect((await t.http({ authorization: `Basic ${Buffer.from("ops:wrong").toString("base64")}` }).get("/metrics")).status).toBe(401);
    expect((await t.http({ authorization: `Basic ${Buffer.from("ops:monitor-pass-1").toString("base64")}` }).get("/metrics")).status).toBe(200);
  });

  it("exports process, HTTP, room, message, tick, database and rate-limit metrics", async () => {
    // HTTP traffic with a route pattern, and a rate-limited login.
    const acc = await accountWithBullets(t, 50);
    expect((await t.http({ cookie: acc.cookie }).get("/api/snakes/progress")).status).toBe(200);
    expect((await t.http({ cookie: acc.cookie }).get("/api/boss/room/NoSuchRoom")).status).toBe(404);
    const attacker = t.http({ "x-forwarded-for": "203.0.113.77" });
    for (let i = 0; i < 11; i++) await attacker.post("/api/auth/login", { username: "nobody", password: "wrong-password" });
    // A live boss room: two players, moves in, positions out, the simulation stepping.
    const a = await joined(t.sdk(acc.cookie).joinOrCreate("boss", {}));
    const b = await joined(t.sdk().joinById(a.room.roomId, { bullets: 20 }));
    for (let i = 0; i < 5; i++) a.room.send("boss_player_move", { x: 300 + i * 10, y: 400 });
    await expect.poll(() => a.log.all("boss_self_position").length).toBe(5);
    await expect.poll(() => b.log.all("boss_player_position").length).toBe(5);

    const { value, all } = await scrape();
    for (const family of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes"]) {
      expect(all.some((s) => s.name === family), family).toBe(true);
    }
    expect(value("http_request_duration_seconds_count", { method: "GET", route: "/api/snakes/progress", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value("http_request_duration_seconds_count", { method: "GET", route: "/api/boss/room/:room_id", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(value("http_request_duration_seconds_bucket", { route: "/api/snakes/progress", le: "+Inf" })).toBeGreaterThanOrEqual(1);
    expect(all.some((s) => s.name.startsWith("http_request_duration_seconds") && s.labels.route?.includes("NoSuchRoom"))).toBe(false);
    expect(value("game_rooms", { room: "boss" })).toBe(1);
    expect(value("game_room_clients", { room: "boss" })).toBe(2);
    expect(value("game_room_messages_in_total", { room: "boss" })).toBeGreaterThanOrEqual(5);
    expect(value("game_room_messages_out_total", { room: "boss" })).toBeGreaterThanOrEqual(10); // 5 self positions + 5 relayed positions
    expect(value("game_room_tick_duration_seconds_count", { room: "boss" })).toBeGreaterThan(0);
    expect(value("db_query_duration_seconds_count", { statement: "select" })).toBeGreaterThan(0);
    expect(value("rate_limited_total", { limiter: "login-account_from_address" })).toBeGreaterThanOrEqual(1);

    await b.room.leave();
    await a.room.leave();
    await expect.poll(async () => (await scrape()).value("game_rooms", { room: "boss" })).toBe(0);
  });
});

describe("without METRICS_TOKEN or monitor credentials", () => {
  it("is not served", async () => {
    const plain = await startTestApp();
    try {
      expect((await plain.http().get("/metrics")).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
