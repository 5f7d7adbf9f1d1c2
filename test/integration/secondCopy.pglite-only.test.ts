// Issue 30: a second copy of the server (the real entry point) on a DATA_DIR in use, or on a port in
// use, is one line on stderr naming what holds it, and exit code 2; the port is checked before any
// database is created or opened (it used to create one for 2.5 s, then print two EADDRINUSE stacks).
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bootEntry, freePort, migratedDataDir, runEntry, type ServerProcess } from "../helpers/process.js";

const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop("SIGKILL")));
});

async function secondCopy(env: Record<string, string>) {
  const second = runEntry("src/index.ts", env);
  running.push(second);
  const code = await second.exited;
  return { code, stdout: second.stdout(), stderr: second.stderr().trim() };
}

describe("a second copy (issue 30)", () => {
  it("on a DATA_DIR in use: one line naming the process that holds it, exit 2", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-second-"), LOG_LEVEL: "info" };
    const { proc } = await bootEntry(env, running);
    const second = await secondCopy({ ...env, PORT: String(await freePort()) });
    expect(second.code).toBe(2);
    expect(second.stderr.split("\n")).toHaveLength(1);
    expect(second.stderr).toContain(`is in use by another process (pid ${proc.child.pid}), probably the running server`);
    expect(second.stderr).toMatch(new RegExp(`\\(pid ${proc.child.pid} is: node .*index\\.ts\\)$`));
    expect(second.stdout).toBe("");
  }, 180_000);

  it("on a port in use: one line naming the port, exit 2, and no database created", async () => {
    const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-second-port-"), LOG_LEVEL: "info" };
    await bootEntry(env, running);
    const emptyDataDir = mkdtempSync(join(tmpdir(), "snakes-second-port-new-"));
    const second = await secondCopy({ ...env, DATA_DIR: emptyDataDir });
    expect(second.code).toBe(2);
    expect(second.stderr).toBe(`PORT: port ${env.PORT} on 127.0.0.1 is in use by another process, probably another copy of this server: stop it first, or set PORT to a free port`);
    expect(second.stdout).toBe("");
    expect(existsSync(join(emptyDataDir, "pglite")) || existsSync(join(emptyDataDir, "pglite.new")), readdirSync(emptyDataDir).join(", ")).toBe(false);
  }, 180_000);
});
