// A game server of the chaos harness, started the way `npm start` starts it (the Node flags of
// package.json's start script, scripts/start.mjs, the real entry point), with its stdout (one JSON
// log line each) and stderr kept apart, in a process group of its own that the guardian knows.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killGroup, until, type Guardian } from "./backing.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const exitWithParent = fileURLToPath(new URL("../helpers/exitWithParent.mjs", import.meta.url));

function startCommand(): string[] {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start;
  const words = script.trim().split(/\s+/);
  const at = words.indexOf("node");
  if (at < 0) throw new Error(`package.json's start script does not run node: ${script}`);
  return words.slice(at + 1);
}

/** The node `npm start` runs: the node@24 devDependency's, as npm puts node_modules/.bin first. */
function nodeBinary(): string {
  const local = join(root, "node_modules", ".bin", "node");
  return existsSync(local) ? local : process.execPath;
}

export interface LogLine {
  level: number;
  msg: string;
  time?: number;
  [key: string]: unknown;
}

export class GameServer {
  readonly child: ChildProcess;
  readonly base: string;
  readonly address: string;
  /** Every complete stdout line, as written. */
  readonly lines: string[] = [];
  stderr = "";
  private partial = "";
  readonly exited: Promise<number | null>;
  exitSignal: NodeJS.Signals | null = null;

  constructor(
    readonly name: string,
    readonly port: number,
    env: Record<string, string>,
    guardian: Guardian,
  ) {
    this.base = `http://127.0.0.1:${port}`;
    this.address = `127.0.0.1:${port}`;
    const [script, ...rest] = startCommand().reverse();
    const flags = rest.reverse();
    this.child = spawn(nodeBinary(), [...flags, "--import", exitWithParent, script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      detached: true,
    });
    guardian.watch(this.child.pid);
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (d: string) => {
      const parts = (this.partial + d).split("\n");
      this.partial = parts.pop()!;
      this.lines.push(...parts);
    });
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        this.exitSignal = signal;
        if (this.partial) this.lines.push(this.partial), (this.partial = "");
        resolve(code);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The stdout lines that are not one JSON object each. */
  nonJsonLines(): string[] {
    return this.lines.filter((l) => {
      if (!l.trim()) return false;
      try {
        const v = JSON.parse(l);
        return typeof v !== "object" || v === null || Array.isArray(v);
      } catch {
        return true;
      }
    });
  }

  /** The JSON log lines from line number `from` on. */
  logs(from = 0): LogLine[] {
    return this.lines.slice(from).flatMap((l) => {
      try {
        const v = JSON.parse(l);
        return v && typeof v === "object" ? [v as LogLine] : [];
      } catch {
        return [];
      }
    });
  }

  /** A mark to count log lines from (logs(mark)). */
  mark(): number {
    return this.lines.length;
  }

  errorLines(from = 0): LogLine[] {
    return this.logs(from).filter((l) => l.level >= 50);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) process.kill(this.pid, signal);
  }

  async ready(timeoutMs = 90_000): Promise<void> {
    await until(
      async () => {
        if (!this.running) throw new Error(`${this.name} exited ${this.child.exitCode ?? this.exitSignal}: ${this.stderr || this.lines.slice(-5).join("\n")}`);
        return (await fetch(`${this.base}/ready`, { signal: AbortSignal.timeout(2000) })).ok;
      },
      timeoutMs,
      `${this.name} (${this.address}) to answer /ready 200`,
      200,
    );
  }

  /** SIGTERM (a deploy's stop) and its exit code, or SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 30_000): Promise<number | null> {
    if (!this.running) return this.child.exitCode;
    this.signal("SIGCONT");
    this.signal("SIGTERM");
    const timer = setTimeout(() => killGroup(this.pid, "SIGKILL"), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

