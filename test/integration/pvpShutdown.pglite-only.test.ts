// A deploy that kicks nobody (issue 24), on the embedded database with one real process: SIGTERM in
// the middle of a duel. The process leaves matchmaking at once (/matchmake and /ready answer 503),
// a lobby's members are told to move (`server_draining`), the duel plays to its end, its results
// and both accounts' bullets are written, and the process exits 0 once its rooms are empty. At the
// drain limit a duel still running is called off (no forfeit), also with a seat waiting for a
// dropped connection; a second signal exits at once (the terminal is told so, then the matches left).
import { afterAll, describe, expect, it } from "vitest";
import { Client as SdkClient, type Room } from "@colyseus/sdk";
import { bootEntry, freePort, migratedDataDir, waitFor, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";
import { MessageLog } from "../helpers/boss.js";

const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

const boot = (env: Record<string, string>) => bootEntry(env, running);

async function accountWith20Bullets(base: string, username: string) {
  const http = new HttpClient(base);
  expect((await http.post("/api/auth/register", { username, password: "persisted-1" })).status).toBe(201);
  expect((await http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 20 })).status).toBe(200);
  return http;
}

/** The close code a room's connection ends with. */
const closed = (room: Room) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

/** Two accounts in a duel that has begun; Ann has landed `hits` hits. */
async function duel(env: Record<string, string>, prefix: string, hits: number) {
  const { proc, base } = await boot(env);
  const ann = await accountWith20Bullets(base, `ann_${prefix}`);
  const bob = await accountWith20Bullets(base, `bob_${prefix}`);
  const ws = `ws://127.0.0.1:${env.PORT}`;
  const a = await new SdkClient(ws, { headers: { cookie: ann.cookieHeader } }).joinOrCreate("pvp");
  const logA = new MessageLog(a);
  const b = await new SdkClient(ws, { headers: { cookie: bob.cookieHeader } }).joinOrCreate("pvp");
  const logB = new MessageLog(b);
  a.send("pvp_ready");
  b.send("pvp_ready");
  await Promise.all([logA.waitFor("pvp_battle_start"), logB.waitFor("pvp_battle_start")]);
  const hit = async (lives: number) => {
    a.send("pvp_shoot", { dx: 1, dy: 0 });
    await logA.waitFor("pvp_player_hit", (h) => h.lives === lives);
  };
  for (let i = 0; i < hits; i++) await hit(4 - i);
  return { proc, base, ann, bob, a, b, logA, logB, hit, ws };
}

const env = async (prefix: string, extra: Record<string, string> = {}) => ({
  PORT: String(await freePort()),
  SAMPLE_PORT: "0",
  DATA_DIR: await migratedDataDir(prefix),
  LOG_LEVEL: "warn",
  ...extra,
});

describe("a deploy during a duel", () => {
  it("SIGTERM mid-battle: no new rooms, the lobby is told to move, the duel plays to its end and is written, exit 0", async () => {
    const e = await env("snakes-pvp-drain-");
    const { proc, base, ann, bob, a, b, logA, logB, hit, ws } = await duel(e, "drain", 2);
    const member = await new SdkClient(ws).joinOrCreate("boss_lobby", { name: "waiting" });
    const lobby = new MessageLog(member);
    const lobbyClosed = closed(member);
    const [aClosed, bClosed] = [closed(a), closed(b)];

    proc.child.kill("SIGTERM");
    // The lobby's members are told to matchmake again, then the lobby closes.
    expect(await lobby.waitFor("server_draining")).toEqual({ reason: "shutdown", retry_after_ms: 1000 });
    expect(await lobbyClosed).toBe(4001);
    // The process takes no new rooms or seats, and says so to a load balancer.
    expect((await fetch(`${base}/ready`)).status).toBe(503);
    const refused = await fetch(`${base}/matchmake/joinOrCreate/pvp`, { method: "POST", headers: { "content-type": "application/json", cookie: ann.cookieHeader }, body: "{}" });
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.code).toBe("draining");

    // The duel goes on: Ann's three more hits end it.
    for (let lives = 2; lives >= 0; lives--) await hit(lives);
    const end = await logB.waitFor("pvp_battle_end");
    expect(end).toMatchObject({ winner: a.sessionId, loser: b.sessionId, reason: "knockout" });
    // Then both are told to move, after the result.
    for (const log of [logA, logB]) {
      const types = log.received.map((m) => m.type);
      await log.waitFor("server_draining");
      expect(types.indexOf("pvp_battle_end")).toBeLessThan(log.received.findIndex((m) => m.type === "server_draining"));
    }
    expect(await aClosed).toBe(4001);
    expect(await bClosed).toBe(4001);
    expect(await proc.exited).toBe(0);
    // The refused matchmake was logged as the refusal it is (a warn request line), not as a fault with a stack.
    expect(proc.stdout()).toMatch(/"level":40[^\n]*"status":503/);
    expect(proc.stdout()).not.toMatch(/"level":50[^\n]*draining/);

    await boot(e);
    expect((await ann.get("/api/snakes/progress")).body.total_bullets).toBe(15);
    expect((await bob.get("/api/snakes/progress")).body.total_bullets).toBe(20);
    expect((await ann.get("/api/pvp/stats")).body).toMatchObject({ matches: 1, wins: 1 });
    expect((await bob.get("/api/pvp/stats")).body).toMatchObject({ matches: 1, losses: 1, forfeits: 0 });
  }, 180_000);

  it("at the drain limit a duel still running is called off (no forfeit), the waiting seat too, and both accounts' bullets are written", async () => {
    const e = await env("snakes-pvp-limit-", { SHUTDOWN_DRAIN_SECONDS: "2" });
    const { proc, ann, bob, a, b, logA } = await duel(e, "limit", 2);
    b.send("pvp_shoot", { dx: 0, dy: -1 });
    await waitFor(async () => (a.state.players?.get(b.sessionId)?.bullets === 19 ? true : undefined), 5000, "Bob's shot in the state");
    // Bob's connection drops: his seat waits for him when the server is told to stop.
    b.reconnection.enabled = false;
    await b.leave(false);
    await logA.waitFor("pvp_opponent_disconnected");

    const signalled = Date.now();
    proc.child.kill("SIGTERM");
    expect(await logA.waitFor("server_draining", undefined, 10_000)).toEqual({ reason: "drain_limit", retry_after_ms: 1000 });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1900);
    expect(await proc.exited).toBe(0);
    expect(logA.all("pvp_battle_end")).toEqual([]);

    await boot(e);
    expect((await ann.get("/api/snakes/progress")).body.total_bullets).toBe(18);
    expect((await bob.get("/api/snakes/progress")).body.total_bullets).toBe(19);
    expect((await ann.get("/api/pvp/stats")).body).toMatchObject({ matches: 0 });
    expect((await bob.get("/api/pvp/stats")).body).toMatchObject({ matches: 0, forfeits: 0 });
  }, 180_000);

  it("a second signal during the drain exits at once, saying what was still running", async () => {
    const e = await env("snakes-pvp-second-", { LOG_LEVEL: "info" });
    const { proc, logA } = await duel(e, "second", 1);
    proc.child.kill("SIGTERM");
    await waitFor(async () => (proc.stdout().includes('"msg":"shutting down') ? true : undefined), 10_000, "the shutdown line");
    // The same stop delivered twice at once (a terminal's Ctrl-C reaches npm and the server) is one signal.
    proc.child.kill("SIGTERM");
    // A second on, the stop says how to stop at once (a second signal counts from then on), with
    // what it waits for; then what is left every 10 s.
    const said = (msg: string) => async () => proc.stdout().split("\n").find((l) => l.includes(msg));
    const hint = JSON.parse((await waitFor(said("stops at once"), 10_000, "the second-signal hint"))!);
    expect(hint).toMatchObject({ level: 30, step: "draining the rooms", by_room: { pvp: 1 }, players: 2 });
    expect(hint.msg).toMatch(/^draining: 1 match left \(pvp 1\), 2 players; called off in \d+ s at the latest; Ctrl-C again \(or a second signal\) stops at once$/);
    expect(proc.child.exitCode).toBeNull();
    const tick = JSON.parse((await waitFor(said('at the latest"}'), 20_000, "a progress line"))!);
    expect(tick.msg).toMatch(/^draining: 1 match left \(pvp 1\), 2 players; called off in \d+ s at the latest$/);
    expect(tick.drain_left_seconds).toBeLessThanOrEqual(290);
    logA.clear();
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(1);
    const line = proc
      .stdout()
      .split("\n")
      .find((l) => l.includes("second signal: exiting now"));
    expect(JSON.parse(line!).pending).toMatchObject({ step: "draining the rooms", rooms: [{ room: "pvp", clients: 2 }] });
  }, 180_000);
});
