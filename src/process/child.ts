// The short-lived child processes the server runs its heavy one-off work in (creating or migrating
// the embedded database, reading a backup's copy): their memory goes back when they exit.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** How a child ended when it did not exit 0: its status and what it printed (stderr, else stdout). */
export class ChildFailure extends Error {
  constructor(readonly status: string, readonly output: string) {
    super(`exit ${status}: ${output}`);
  }
}

/**
 * Runs the module `script` as a child process with `args`; resolves with its last line on stdout
 * (parsed as JSON), rejects with a ChildFailure. It gets this process's loader (tsx in development
 * and tests; added when the sources run without it, as in a test runner's worker) and V8 flags, and
 * an IPC channel that ends it when this process dies.
 */
export function runChild<T>(script: string, args: string[]): Promise<T> {
  const loader = script.endsWith(".ts") && !process.execArgv.some((a) => a.includes("tsx")) ? ["--import", "tsx"] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...loader, script, ...args], { stdio: ["ignore", "pipe", "pipe", "ipc"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) return resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as T);
      reject(new ChildFailure(String(code ?? signal), err.trim() || out.trim()));
    });
  });
}

/** This process's peak resident memory in MB (Linux's VmHWM), undefined elsewhere. */
export function peakRssMb(): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
