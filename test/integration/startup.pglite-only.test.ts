// The real entry point on the embedded database (a DATA_DIR holding a migrated copy: the first start,
// which creates it, is npmStart.pglite-only.test.ts's): both ports, structured logs, graceful
// shutdown, and state (data + dev secret) across a restart.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, DatabaseInUseError } from "../../src/db/client.js";
import { bootEntry, freePort, migratedDataDir, runEntry, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";

const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

const boot = (env: Record<string, string>) => bootEntry(env, running);

describe("npm start", () => {
  it("serves both ports on the embedded database, shuts down on SIGTERM, and keeps data and sessions across a restart", async () => {
    // The first start (creating the embedded database) is npmStart.pglite-only.test.ts's.
    const dataDir = await migratedDataDir("snakes-start-");
    const env = { PORT: String(await freePort()), SAMPLE_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: "info" };
    const { proc, base } = await boot(env);

    const sample = await fetch(`http://127.0.0.1:${env.SAMPLE_PORT}/api/data`);
    expect(sample.status).toBe(200);
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    expect((await fetch(`${base}/playground`)).status).toBe(200); // development default

    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "restart_me", password: "persisted-1" })).status).toBe(201);

    // The database folder is owned by the server: a second process is refused, not let in.
    await expect(openDatabase({ pgliteDataDir: join(dataDir, "pglite") })).rejects.toBeInstanceOf(DatabaseInUseError);

    expect(await proc.stop("SIGTERM")).toBe(0);
    const lines = proc.stdout().trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.some((l) => l.msg === "game server listening (REST + WebSocket)" && l.port === Number(env.PORT))).toBe(true);
    expect(lines.some((l) => l.msg === "request" && l.path === "/api/auth/register" && l.status === 201 && l.requestId)).toBe(true);
    expect(lines.at(-1).msg).toBe("stopped");

    const again = await boot(env);
    const me = await http.get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.user.username).toBe("restart_me");
    expect(await again.proc.stop("SIGINT")).toBe(0);
  }, 180_000); // two starts of a real process on a shared 2-core machine

  it("restarts at once after kill -9, and closes the boss rooms the killed process left active (issue 10, faults 3 and 4)", async () => {
    const dataDir = await migratedDataDir("snakes-kill-");
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    const { proc } = await boot(env);
    const http = new HttpClient(`http://127.0.0.1:${env.PORT}`);
    expect((await http.post("/api/auth/register", { username: "killed_mid_battle", password: "persisted-1" })).status).toBe(201);
    expect((await http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 20 })).status).toBe(200);
    const joined = await http.post("/api/boss/join");
    expect(joined.status).toBe(200);
    const roomId = joined.body.room_id;
    expect(joined.body.room).toMatchObject({ is_active: true, live: true });

    await proc.stop("SIGKILL");
    await boot(env); // the lock of the killed process does not refuse the restart
    const room = await http.get(`/api/boss/room/${roomId}`);
    expect(room.status).toBe(200);
    expect(room.body.room).toMatchObject({ room_id: roomId, is_active: false, is_completed: false, live: false, phase: "closed" });
  }, 180_000);

  it("refuses to start on invalid configuration, naming the variable", async () => {
    const bad = runEntry("src/index.ts", { PORT: "not-a-port", DATA_DIR: mkdtempSync(join(tmpdir(), "snakes-bad-")) });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toMatch(/PORT: PORT must be an integer port/);
    const prod = runEntry("src/index.ts", { NODE_ENV: "production", CORS_ORIGINS: "https://a.example", DATA_DIR: mkdtempSync(join(tmpdir(), "snakes-bad-")) });
    expect(await prod.exited).toBe(2);
    expect(prod.stderr()).toMatch(/JWT_SECRET: required when NODE_ENV=production/);
  });
});
