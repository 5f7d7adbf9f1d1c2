// Issue 24: what the server does with its data folder when the folder is wrong or its disk is full.
// A wrong DATA_DIR is one line naming DATA_DIR, the path and what to do, exit code 2; a full disk
// under autosaves is 503 storage_full, /ready 503 and one error line per interval, and writes
// resume once space is freed, without a restart. The full disk is a small tmpfs (we run as root in
// CI and here; where mounting is not permitted those tests say so and skip).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HttpClient } from "../helpers/app.js";
import { bootEntry, freePort, migratedDataDir, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";

const running: ServerProcess[] = [];
const mounts: string[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
  for (const dir of mounts.reverse()) {
    try {
      execFileSync("umount", ["-l", dir]);
    } catch {
      /* not mounted */
    }
  }
});

/** Mounts a tmpfs of `size` (e.g. "64m") with `options`; the reason when that is not permitted. */
function tmpfs(size: string, options = ""): { dir: string } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "snakes-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}${options ? `,${options}` : ""}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    return { skip: `mounting a tmpfs is not permitted here (${String((err as { stderr?: Buffer }).stderr ?? err).trim()}): run the suite as root to test a full disk and a read-only folder` };
  }
  mounts.push(dir);
  return { dir };
}

/** Starts `npm start`'s entry on DATA_DIR; resolves with its exit code and output when it refuses to start. */
async function refusal(dataDir: string) {
  const proc = runEntry("src/index.ts", { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" });
  running.push(proc);
  const code = await proc.exited;
  return { code, stderr: proc.stderr().trim(), stdout: proc.stdout().trim() };
}

/** One line naming DATA_DIR and the path, with what to do; exit code 2, no stack. */
function expectOneLine(result: { code: number | null; stderr: string; stdout: string }, path: string, what: RegExp) {
  expect(result.code, result.stderr + result.stdout).toBe(2);
  const lines = result.stderr.split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0].startsWith(`DATA_DIR (${path}): `), lines[0]).toBe(true);
  expect(lines[0]).toMatch(what);
  expect(result.stderr + result.stdout).not.toMatch(/\n\s+at /);
}

describe("a DATA_DIR that cannot be used is refused in one line (issue 24)", () => {
  const base = mkdtempSync(join(tmpdir(), "snakes-baddata-"));

  it("a file, a path under a file, a non-empty folder of something else, a damaged database", async () => {
    const file = join(base, "a-file");
    writeFileSync(file, "not a folder\n");
    const foreign = join(base, "someone-elses");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "thesis.tex"), "\\documentclass{article}\n");
    const damaged = await migratedDataDir("snakes-damaged-");
    writeFileSync(join(damaged, "pglite", "global", "pg_control"), Buffer.alloc(8192, 0x5a));
    const [isFile, underFile, notOurs, broken] = await Promise.all([refusal(file), refusal(join(file, "data")), refusal(foreign), refusal(damaged)]);
    expectOneLine(isFile, file, /is a file, not a folder: point DATA_DIR at a folder/);
    expectOneLine(underFile, join(file, "data"), /part of the path is a file, not a folder: point DATA_DIR at a folder/);
    expectOneLine(notOurs, foreign, /not empty and is not this server's \(it holds thesis\.tex\): point DATA_DIR at a new or empty folder/);
    expect(readFileSync(join(foreign, "thesis.tex"), "utf8")).toMatch(/documentclass/); // nothing written there
    expectOneLine(broken, damaged, /the embedded database in .*pglite cannot be opened .*: it is damaged .*restore that folder from a backup \(npm run --silent admin -- restore FILE\), or move it away/);
  }, 180_000);

  it("a read-only folder", async (ctx) => {
    const mounted = tmpfs("1m", "ro");
    if ("skip" in mounted) {
      console.log(`skipped: ${mounted.skip}`);
      return ctx.skip();
    }
    expectOneLine(await refusal(mounted.dir), mounted.dir, /read-only file system .*: point DATA_DIR at a writable folder/);
  }, 60_000);

  it("a folder an older version made (no mark, only its own files) is accepted and marked", async () => {
    const older = await migratedDataDir("snakes-olderdir-");
    writeFileSync(join(older, "jwt-secret"), "ab".repeat(32) + "\n");
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: older, LOG_LEVEL: "warn" };
    const { proc } = await bootEntry(env, running);
    expect(readFileSync(join(older, ".snakes-data"), "utf8")).toMatch(/snakes-game-backend/);
    await proc.stop("SIGKILL");
  }, 120_000);
});

describe("a full disk under autosaves (issue 24)", () => {
  it("answers 503 storage_full with one error line per interval, /ready 503, and resumes once space is freed; a restart while full says what is full", async (ctx) => {
    const mounted = tmpfs("64m");
    if ("skip" in mounted) {
      console.log(`skipped: ${mounted.skip}`);
      return ctx.skip();
    }
    const dataDir = join(mounted.dir, "data");
    cpSync(await migratedDataDir("snakes-full-"), dataDir, { recursive: true });
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "info", RATE_LIMIT_WRITES: "100000/1m" };
    const { proc, base } = await bootEntry(env, running);
    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "full_disk", password: "persisted-1" })).status).toBe(201);
    expect((await http.post("/api/snakes/", { selected_character: "wizard" })).status).toBe(201);
    expect((await http.put("/api/snakes/", { time_played: 1 })).status).toBe(200);

    // Fill the file system to the last byte.
    const filler = join(mounted.dir, "filler");
    const free = () => {
      const s = statfsSync(mounted.dir);
      return s.bavail * s.bsize;
    };
    writeFileSync(filler, Buffer.alloc(free()));
    const logStart = proc.stdout().length;

    // Autosave until the database refuses (it fills the free room of its pages first), then a burst.
    let t = 2;
    let first: { status: number; body: { error?: { code: string } } } | undefined;
    for (; t < 5000; t++) {
      const res = await http.put("/api/snakes/", { time_played: t });
      if (res.status !== 200) {
        first = res;
        break;
      }
    }
    expect(first?.status, JSON.stringify(first?.body)).toBe(503);
    expect(first?.body.error?.code).toBe("storage_full");
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => http.put("/api/snakes/", { time_played: t + 1 + i })));
    expect(burst.map((r) => `${r.status} ${r.body.error?.code}`)).toEqual(Array(40).fill("503 storage_full"));
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { error: { code: string } }).error.code).toBe("storage_full");
    // Reads still work.
    expect((await http.get("/api/snakes/progress")).body.time_played).toBe(t - 1);

    const logged = () => proc.stdout().slice(logStart).trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string; refused_writes?: number; err?: unknown });
    const errors = logged().filter((l) => l.level >= 50);
    expect(errors, JSON.stringify(errors)).toHaveLength(1); // 41 refused writes within one interval: one line
    expect(errors[0].msg).toMatch(/^storage full: writes are refused/);
    expect(errors[0].err).toBeUndefined(); // no stack

    // Space freed: writes resume without a restart.
    unlinkSync(filler);
    await waitFor(async () => ((await fetch(`${base}/ready`)).status === 200 ? true : undefined), 20_000, "/ready 200 once space is free");
    expect((await http.put("/api/snakes/", { time_played: 9999 })).status).toBe(200);
    expect((await http.get("/api/snakes/progress")).body).toMatchObject({ time_played: 9999, character: "wizard" });
    expect(logged().some((l) => l.msg === "storage writable again: writes resume")).toBe(true);
    await proc.stop("SIGKILL");

    // A restart while the disk is full names what is full.
    writeFileSync(filler, Buffer.alloc(free()));
    expectOneLine(await refusal(dataDir), dataDir, /the file system holding it is full \(no space left on device while .*\): free some space there/);
    rmSync(filler);
  }, 180_000);
});
