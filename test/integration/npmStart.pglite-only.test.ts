// `npm start` as a newcomer and a process manager meet it: the first start says what it is doing
// and prints one line with the URLs; nothing of the build outlives it (no esbuild service); a
// SIGTERM or a SIGINT to npm alone stops the server gracefully, npm exiting with it; a server whose
// stdout nobody reads any more, after the hostile clients of issue 24, still serves and still stops.
import { mkdtempSync, readFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, migratedDataDir, npmStart, waitFor, type NpmStart } from "../helpers/process.js";
import { hostileSequence } from "../helpers/hostile.js";

const started: NpmStart[] = [];
// Each test's processes go with it, whatever happened: the next test starts on its own.
afterEach(() => started.splice(0).forEach((s) => s.kill()));

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
    // It promises no time it cannot know: it says what it does, then how long that took.
    expect(msgs[0]).toBe("first start: creating the embedded database, once (from the seed npm install built)");
    expect(msgs[1]).toMatch(/^first start: the embedded database was created in \d+\.\d s$/);
    expect(logLines(s)[1].ms).toBeGreaterThan(0);
    expect(msgs).toContain(`ready: play at ${base}/play/, monitor at ${base}/monitor`);
    expect(msgs.indexOf(`ready: play at ${base}/play/, monitor at ${base}/monitor`)).toBeGreaterThan(msgs.indexOf("sample information server listening"));

    // HOST defaults to 127.0.0.1 outside production: nothing answers on the LAN address.
    const lan = lanAddress();
    if (lan) await expect(fetch(`http://${lan}:${env.PORT}/health`)).rejects.toThrow();

    // Nothing of the build outlives it (no esbuild --service), and the server is npm's own child.
    // (At a first start the database's preparing child may still be finishing: not the build's.)
    // esbuild's stop() sends its service SIGTERM without waiting: on a busy machine it can take a
    // moment to go (before the fix it stayed for the life of the server).
    await waitFor(async () => (s.descendants().some((p) => /esbuild/.test(p.cmdline)) ? undefined : true), 10_000, "the esbuild service to exit");
    expect(s.descendants()[0]).toEqual({ pid: server, cmdline: expect.stringMatching(/^\S*node .*scripts\/start\.mjs$/) });

    const npmExit = new Promise<number | null>((resolve) => s.npm.once("exit", (code) => resolve(code)));
    process.kill(s.npm.pid!, "SIGTERM");
    await s.serverGone(server, 30_000);
    expect(await npmExit).toBe(0);
    await lastLineStopped(s);
    expect(logLines(s).map((l) => l.msg)).toContain(SHUTTING_DOWN);
  }, 200_000); // a cold start of a real process (PGlite initdb) on a shared 2-core machine

  it("SIGINT to npm alone (what some process managers send) stops the server gracefully", async () => {
    const env = { ...(await envP), PORT: String(await freePort()), DATA_DIR: await migratedDataDir("snakes-npm-sigint-") };
    const { s, server } = await start(env);
    await waitFor(async () => (logLines(s).some((l) => l.msg.startsWith("ready:")) ? true : undefined), 10_000, "the ready line");
    expect(logLines(s).map((l) => l.msg).filter((m) => m.startsWith("first start"))).toEqual([]);
    const npmExit = new Promise<number | null>((resolve) => s.npm.once("exit", (code) => resolve(code)));
    process.kill(s.npm.pid!, "SIGINT");
    await s.serverGone(server, 30_000);
    expect(await npmExit).toBe(0);
    await lastLineStopped(s);
    expect(logLines(s).find((l) => l.msg === SHUTTING_DOWN)).toMatchObject({ signal: "SIGINT" });
  }, 200_000);

  it("after the hostile clients of issue 24, with a stdout nobody reads any more, the server still serves and a SIGTERM still ends it", async () => {
    // The sequence's 300 bad /matchmake requests would use up the address's matchmaking limit (a 429
    // is its own test, matchmake.test.ts): the lobby members after them must still get in.
    const env = { ...(await envP), PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-npm-hostile-"), RATE_LIMIT_MATCHMAKE: "100000/1m" };
    const { s, server } = await start(env);
    // The reader stops reading: the pipe fills once the server has logged some 64 KB.
    s.npm.stdout!.pause();
    const adminPort = Number(new URL(JSON.parse(readFileSync(join(env.DATA_DIR, "admin.json"), "utf8")).url).port);
    const members = await hostileSequence(Number(env.PORT), adminPort);
    const base = `http://127.0.0.1:${env.PORT}`;
    // Each request is a log line: far more than a pipe holds. Every one is answered.
    for (let i = 0; i < 600; i++) expect((await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
    // The lobby's members still connected stay: the stop tells them to move.
    const connected = members.filter((m) => m.connection.isOpen);
    const told = connected.map((m) => new Promise((resolve) => m.onMessage("server_draining", resolve)));

    process.kill(server, "SIGTERM");
    await s.serverGone(server, 20_000);
    expect(connected.length).toBeGreaterThan(0);
    expect(await Promise.all(told)).toHaveLength(connected.length);
    s.npm.stdout!.resume();
  }, 200_000);
});

const SHUTTING_DOWN = "shutting down: no new rooms or seats, running matches finish, the others' players are sent elsewhere, the database closes";
