// Runs the real entry point (`npm start` = node --import tsx src/index.ts) as a child process.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { openDatabase } from "../../src/db/client.js";

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const exitWithParent = fileURLToPath(new URL("./exitWithParent.mjs", import.meta.url));

/**
 * A new DATA_DIR whose embedded database already exists, migrated (a copy of the test template): for
 * tests that are not about a first start, which would otherwise create it (initdb, ~5 s).
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite"), pgliteLoadDataDir: new Blob([readFileSync(inject("pgliteTemplate"))]) });
  await db.close();
  return dataDir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function runEntry(script: string, env: Record<string, string>, args: string[] = []): ServerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", exitWithParent, script, ...args], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

/** Starts the real entry point (`npm start`) with `env` and waits until it serves /health. */
export async function bootEntry(env: Record<string, string>, running: ServerProcess[]): Promise<{ proc: ServerProcess; base: string }> {
  const proc = runEntry("src/index.ts", env);
  running.push(proc);
  const base = `http://127.0.0.1:${env.PORT}`;
  await waitFor(async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000, `game server on ${env.PORT}\n${proc.stderr()}`);
  return { proc, base };
}

/** A process tree started by `npm start` (npm → node: the start script execs node), in a process group of its own. */
export interface NpmStart {
  npm: ChildProcess;
  stdout: () => string;
  /** The server npm started (node). */
  tree(): Promise<{ server: number }>;
  /** Every process under npm, with its command line. */
  descendants(): { pid: number; cmdline: string }[];
  /** Resolves when the node server process has gone. */
  serverGone(server: number, timeoutMs: number): Promise<void>;
  /** SIGKILL to the whole group (cleanup). */
  kill(): void;
}

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
};
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));

export function npmStart(env: Record<string, string>): NpmStart {
  const npm = spawn("npm", ["start"], { cwd: projectRoot, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  npm.stdout!.on("data", (d) => (out += d));
  npm.stderr!.on("data", (d) => (out += d));
  const descendants = () => {
    const all: { pid: number; cmdline: string }[] = [];
    const walk = (pid: number) => {
      for (const child of childrenOf(pid)) {
        all.push({ pid: child, cmdline: cmdline(child) });
        walk(child);
      }
    };
    walk(npm.pid!);
    return all;
  };
  return {
    npm,
    stdout: () => out,
    tree: () =>
      waitFor(async () => {
        // npm's child, or its grandchild if a shell sits between them.
        const server = descendants().find((p) => /^\S*node\s.*scripts\/start\.mjs$/.test(p.cmdline));
        return server ? { server: server.pid } : undefined;
      }, 30_000, "the server under npm"),
    descendants,
    serverGone: (server, timeoutMs) => waitFor(async () => (alive(server) ? undefined : true), timeoutMs, `server ${server} to exit`).then(() => {}),
    kill: () => {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}
