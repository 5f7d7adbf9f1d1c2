import { mkdtempSync, writeFileSync, existsSync, utimesSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DatabaseInUseError } from "../../src/db/lock.js";

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map((c) => {
      if (c.exitCode !== null || c.signalCode !== null) return undefined;
      c.kill("SIGKILL");
      return new Promise((r) => c.once("exit", r));
    }),
  );
});

const lockDir = () => join(mkdtempSync(join(tmpdir(), "snakes-lock-")), "pglite");

/** A process that prints a line once it is ready, and keeps running. */
function run(command: string, args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve({ child, line: out.split("\n")[0].trim() });
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before it was ready`)));
  });
}

describe("embedded database lock", () => {
  it("is exclusive while held and released on close", () => {
    const dir = lockDir();
    const release = acquireDataDirLock(dir);
    expect(existsSync(`${dir}.lock`)).toBe(true);
    expect(() => acquireDataDirLock(dir)).not.toThrow(); // our own pid: a previous incarnation of this process
    release();
    acquireDataDirLock(dir)();
  });

  it("refuses while another live process holds it", async () => {
    const dir = lockDir();
    const holder = await run(process.execPath, [
      "--import",
      "tsx",
      "-e",
      `const { acquireDataDirLock } = await import(${JSON.stringify(new URL("../../src/db/lock.ts", import.meta.url).pathname)}); acquireDataDirLock(${JSON.stringify(dir)}); console.log("locked"); setInterval(() => {}, 1000);`,
    ]);
    expect(holder.line).toBe("locked");
    expect(() => acquireDataDirLock(dir)).toThrow(DatabaseInUseError);
    expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`in use by another process \\(pid ${holder.child.pid}\\)`));
    holder.child.kill("SIGKILL");
    await new Promise((r) => holder.child.once("exit", r));
    acquireDataDirLock(dir)(); // killed: its lock is stale
  });

  it("takes over a lock whose process is a zombie (killed, not yet reaped) (issue 10, fault 4)", async () => {
    const dir = lockDir();
    // sh forks a child that exits a moment later, after sh has exec'd sleep, which never reaps it: a zombie.
    const { line } = await run("sh", ["-c", 'sh -c "sleep 1; exit 0" & echo $!; exec sleep 30']);
    const zombie = Number(line);
    await expect.poll(() => readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1][0], { timeout: 10_000 }).toBe("Z");
    writeFileSync(`${dir}.lock`, String(zombie));
    expect(() => acquireDataDirLock(dir)()).not.toThrow();
  });

  it("takes over a lock whose pid now belongs to a process started after the lock was written (issue 10, fault 4)", async () => {
    const dir = lockDir();
    const { child } = await run("sh", ["-c", "echo ready; exec sleep 30"]);
    // The lock was written an hour ago by a process that died; its pid was reused by `sleep`.
    writeFileSync(`${dir}.lock`, String(child.pid));
    const anHourAgo = new Date(Date.now() - 3600_000);
    utimesSync(`${dir}.lock`, anHourAgo, anHourAgo);
    expect(() => acquireDataDirLock(dir)()).not.toThrow();
    // Same with the lock format that records the holder's start time.
    writeFileSync(`${dir}.lock`, JSON.stringify({ pid: child.pid, start: "1" }));
    expect(() => acquireDataDirLock(dir)()).not.toThrow();
  });
});

describe("stale lock takeover under contention (issue 24)", () => {
  /** A long-lived contender process answering one line per command. */
  function contender() {
    const child = spawn(process.execPath, ["--import", "tsx", new URL("../helpers/lockContender.ts", import.meta.url).pathname], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(child);
    const lines: string[] = [];
    const waiting: Array<(line: string) => void> = [];
    let buffered = "";
    child.stdout!.on("data", (d) => {
      buffered += d;
      let i;
      while ((i = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        const w = waiting.shift();
        if (w) w(line);
        else lines.push(line);
      }
    });
    const next = () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise<string>((r) => waiting.push(r)));
    return {
      pid: child.pid!,
      ask: (command: string) => {
        child.stdin!.write(command + "\n");
        return next();
      },
    };
  }

  it("of two processes taking over one stale lock at the same instant, exactly one holds it and the other is told who (300 pairs)", async () => {
    const a = contender();
    const b = contender();
    const pids = new Set([a.pid, b.pid]);
    // Warm-up: both have loaded the module and answer.
    const base = mkdtempSync(join(tmpdir(), "snakes-lockrace-"));
    expect(await a.ask(`go ${join(base, "warm-a")} 0`)).toBe("held");
    expect(await b.ask(`go ${join(base, "warm-b")} 0`)).toBe("held");
    await Promise.all([a.ask("release"), b.ask("release")]);
    // A lock left by a process that is gone (a pid that does not exist now), in both formats.
    const dead = 4_000_000 + Math.floor(Math.random() * 100_000);
    for (let round = 0; round < 300; round++) {
      const dir = join(base, `r${round}`);
      writeFileSync(`${dir}.lock`, round % 2 ? String(dead) : JSON.stringify({ pid: dead, start: "1" }));
      const at = performance.timeOrigin + performance.now() + 15;
      const answers = await Promise.all([a.ask(`go ${dir} ${at}`), b.ask(`go ${dir} ${at}`)]);
      const held = answers.filter((x) => x === "held");
      expect(held, `round ${round}: ${answers.join(" | ")}`).toHaveLength(1);
      const loser = answers.find((x) => x !== "held")!;
      expect(loser, `round ${round}`).toMatch(/^in use: the embedded database in .* is in use by another process \(pid (\d+)\)/);
      expect(pids.has(Number(/\(pid (\d+)\)/.exec(loser)![1]))).toBe(true);
      const holder = JSON.parse(readFileSync(`${dir}.lock`, "utf8")) as { pid: number };
      expect(holder.pid).toBe(answers[0] === "held" ? a.pid : b.pid);
      await Promise.all([a.ask("release"), b.ask("release")]);
      expect(existsSync(`${dir}.lock`)).toBe(false);
    }
    // Nothing of the takeovers is left beside the locks.
    expect(readdirSync(base).filter((n) => !/^(r\d+|warm-[ab])$/.test(n))).toEqual([]);
  }, 60_000);
});
