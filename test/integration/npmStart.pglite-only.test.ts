// `npm start` as a newcomer and a process manager meet it: the first start says what it is doing
// and prints one line with the URLs; a SIGTERM to npm itself, or to the process npm started (npm →
// sh → node), stops the server gracefully instead of leaving it serving as an orphan.
import { mkdtempSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, npmStart, waitFor, type NpmStart } from "../helpers/process.js";

const started: NpmStart[] = [];
afterAll(() => started.forEach((s) => s.kill()));

const logLines = (s: NpmStart) =>
  s
    .stdout()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg: string; [k: string]: unknown });

async function start(env: Record<string, string>) {
  const s = npmStart(env);
  started.push(s);
  await waitFor(async () => ((await fetch(`http://127.0.0.1:${env.PORT}/health`)).ok ? true : undefined), 150_000, `npm start on ${env.PORT}\n${s.stdout()}`);
  return { s, ...(await s.tree()) };
}

/**
 * The server's last line is "stopped". It wrote it before exiting, but the pipe it shares with npm
 * may hand it to this process a moment after the process is seen gone: wait for it, briefly.
 */
const lastLineStopped = (s: NpmStart) =>
  waitFor(async () => (logLines(s).at(-1)?.msg === "stopped" ? true : undefined), 5000, `"stopped" as the last line:\n${s.stdout()}`);

/** This machine's first address other machines could reach, if it has one. */
const lanAddress = () => Object.values(networkInterfaces()).flat().find((a) => a && !a.internal && a.family === "IPv4")?.address;

describe("npm start", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "snakes-npm-start-"));
  const envP = (async () => ({
    PORT: String(await freePort()),
    SAMPLE_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    MONITOR_USER: "ops",
    MONITOR_PASSWORD: "monitor-password-1",
  }))();

  it("first start: says the embedded database is being created, then one line with the URLs; listens on loopback only; SIGTERM to npm stops it gracefully", async () => {
    const env = await envP;
    const { s, server } = await start(env);
    const base = `http://127.0.0.1:${env.PORT}`;
    await waitFor(async () => (logLines(s).some((l) => l.msg.startsWith("ready:")) ? true : undefined), 10_000, "the ready line");
    const msgs = logLines(s).map((l) => l.msg);
    expect(msgs[0]).toBe("first start: creating the embedded database (about 10 s, once)");
    expect(msgs).toContain(`ready: play at ${base}/play/, monitor at ${base}/monitor`);
    expect(msgs.indexOf(`ready: play at ${base}/play/, monitor at ${base}/monitor`)).toBeGreaterThan(msgs.indexOf("sample information server listening"));

    // HOST defaults to 127.0.0.1 outside production: nothing answers on the LAN address.
    const lan = lanAddress();
    if (lan) await expect(fetch(`http://${lan}:${env.PORT}/health`)).rejects.toThrow();

    process.kill(s.npm.pid!, "SIGTERM");
    await s.serverGone(server, 30_000);
    await lastLineStopped(s);
    expect(logLines(s).map((l) => l.msg)).toContain("shutting down: no new connections, rooms finish, database closes");
  }, 200_000); // a cold start of a real process (PGlite initdb) on a shared 2-core machine

  it("SIGTERM to the process npm start started (sh) stops the server gracefully too; a restart creates nothing", async () => {
    const env = await envP;
    const { s, shell, server } = await start(env);
    await waitFor(async () => (logLines(s).some((l) => l.msg.startsWith("ready:")) ? true : undefined), 10_000, "the ready line");
    expect(logLines(s).map((l) => l.msg)).not.toContain("first start: creating the embedded database (about 10 s, once)");
    process.kill(shell, "SIGTERM");
    await s.serverGone(server, 30_000);
    await lastLineStopped(s);
  }, 200_000);
});
