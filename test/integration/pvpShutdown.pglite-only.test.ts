// A clean SIGTERM in the middle of a duel: the process exits promptly, the battle is called off
// (no forfeit for anyone), and both accounts' bullets spent are written, also the one whose
// connection had dropped and whose seat was waiting for it. A real process on the embedded database.
import { afterAll, describe, expect, it } from "vitest";
import { Client as SdkClient } from "@colyseus/sdk";
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

describe("shutdown during a duel", () => {
  it("SIGTERM mid-battle exits cleanly, calls the battle off and writes both seats' bullets", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-pvp-"), LOG_LEVEL: "warn" };
    const { proc, base } = await boot(env);
    const ann = await accountWith20Bullets(base, "ann_duel");
    const bob = await accountWith20Bullets(base, "bob_duel");
    const ws = `ws://127.0.0.1:${env.PORT}`;
    const a = await new SdkClient(ws, { headers: { cookie: ann.cookieHeader } }).joinOrCreate("pvp");
    const logA = new MessageLog(a);
    const b = await new SdkClient(ws, { headers: { cookie: bob.cookieHeader } }).joinOrCreate("pvp");
    const logB = new MessageLog(b);
    a.send("pvp_ready");
    b.send("pvp_ready");
    await Promise.all([logA.waitFor("pvp_battle_start"), logB.waitFor("pvp_battle_start")]);
    // Ann lands two hits (one shot at a time); Bob fires one shot into the air.
    for (let i = 0; i < 2; i++) {
      a.send("pvp_shoot", { dx: 1, dy: 0 });
      await logA.waitFor("pvp_player_hit", (h) => h.lives === 4 - i);
    }
    b.send("pvp_shoot", { dx: 0, dy: -1 });
    await waitFor(async () => (a.state.players?.get(b.sessionId)?.bullets === 19 ? true : undefined), 5000, "Bob's shot in the state");
    // Bob's connection drops: his seat waits for him when the server is told to stop.
    b.reconnection.enabled = false;
    await b.leave(false);
    await logA.waitFor("pvp_opponent_disconnected");

    expect(await proc.stop("SIGTERM")).toBe(0);
    expect(logA.all("pvp_battle_end")).toEqual([]);
    await boot(env);

    expect((await ann.get("/api/snakes/progress")).body.total_bullets).toBe(18);
    expect((await bob.get("/api/snakes/progress")).body.total_bullets).toBe(19);
    expect((await ann.get("/api/pvp/stats")).body).toMatchObject({ matches: 0 });
    expect((await bob.get("/api/pvp/stats")).body).toMatchObject({ matches: 0, forfeits: 0 });
  }, 180_000);
});
