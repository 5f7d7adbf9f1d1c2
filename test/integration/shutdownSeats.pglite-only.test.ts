// Issue: a clean SIGTERM used to lose what a seat waiting to reconnect had done. Now shutdown (and
// room disposal) writes every seat, connected or waiting: a real process on the embedded
// database, an account fires 12 shots, drops without leaving, the server gets SIGTERM inside the
// reconnection window; the battle, still in progress, may play on until the drain limit (1 s here),
// then the room closes, and after a restart its bullets, stats and player row show the battle.
import { afterAll, describe, expect, it } from "vitest";
import { Client as SdkClient, type Room as SdkRoom } from "@colyseus/sdk";
import { bootEntry, freePort, migratedDataDir, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";

const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

const boot = (env: Record<string, string>) => bootEntry(env, running);

/** Resolves on the first state change (or message) after which `check` holds. */
function when(room: SdkRoom, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const probe = () => {
      if (!check()) return;
      room.onStateChange.remove(probe);
      offMessage();
      resolve();
    };
    room.onStateChange(probe);
    const offMessage = room.onMessage("*", probe);
  });
}

describe("shutdown writes every seat", () => {
  it("SIGTERM inside a dropped account's reconnection window persists its shots, bullets, stats and seat", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-seats-"), LOG_LEVEL: "warn", SHUTDOWN_DRAIN_SECONDS: "1" };
    const { proc, base } = await boot(env);
    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "dropper", password: "persisted-1" })).status).toBe(201);
    expect((await http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 20 })).status).toBe(200);

    const room = await new SdkClient(`ws://127.0.0.1:${env.PORT}`, { headers: { cookie: http.cookieHeader } }).joinOrCreate("boss");
    room.reconnection.enabled = false; // the client stays away: the seat waits for it
    room.onMessage("*", () => {});
    let refused = 0;
    room.onMessage("error", () => refused++);
    const fired = () => room.state.players?.get(room.sessionId)?.bullets_fired ?? 0;
    await when(room, () => Boolean(room.state.players?.has(room.sessionId)));
    while (fired() < 12) {
      const [before, refusedBefore] = [fired(), refused];
      room.send("boss_player_shoot", { dx: 0, dy: -1 });
      // Either the shot shows in the state, or it was over the fire rate (an error): then again.
      await when(room, () => fired() > before || refused > refusedBefore);
    }
    const roomId = room.roomId;
    await room.leave(false); // closes without the consented code: the server holds the seat

    expect(await proc.stop("SIGTERM")).toBe(0);
    await boot(env);

    const progress = await http.get("/api/snakes/progress");
    expect(progress.body.total_bullets).toBe(20 - 12);
    const stats = await http.get("/api/boss/stats");
    expect(stats.body).toMatchObject({ battles_joined: 1, total_bullets_used: 12 });
    const details = await http.get(`/api/boss/room/${roomId}`);
    expect(details.status).toBe(200);
    expect(details.body.room.is_active).toBe(false);
    expect(details.body.players).toHaveLength(1);
    expect(details.body.players[0]).toMatchObject({ bullets_used: 12 });
    expect(details.body.players[0].left_at).not.toBeNull();
  }, 180_000);
});
