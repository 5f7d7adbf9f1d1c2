// An acknowledged write survives kill -9 on the embedded database: autosaves stream into a real
// server process, the process is killed mid-stream, and after a restart on the same data folder
// the record holds at least the last acknowledged save (the in-memory record cache included).
import { afterAll, expect, it } from "vitest";
import { bootEntry, freePort, migratedDataDir, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";

const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

it("keeps every acknowledged autosave across kill -9", async () => {
  const dataDir = await migratedDataDir("snakes-durable-");
  const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  const { proc } = await bootEntry(env, running);
  const http = new HttpClient(`http://127.0.0.1:${env.PORT}`);
  expect((await http.post("/api/auth/register", { username: "durable_saver", password: "persisted-1" })).status).toBe(201);
  expect((await http.get("/api/snakes/progress")).status).toBe(200); // the record, read once (kept in memory)

  let acked = 0;
  let stopped = false;
  const saves = (async () => {
    for (let t = 1; !stopped; t++) {
      const res = await http.put("/api/snakes/", { lives: 1 + (t % 5), time_played: t }).catch(() => undefined);
      if (res?.status !== 200) return;
      acked = t;
    }
  })();
  while (acked < 20) await new Promise((r) => setTimeout(r, 20));
  await proc.stop("SIGKILL");
  stopped = true;
  await saves;

  await bootEntry(env, running);
  const after = await http.get("/api/snakes/progress");
  expect(after.status).toBe(200);
  expect(after.body.time_played).toBeGreaterThanOrEqual(acked);
}, 180_000);
