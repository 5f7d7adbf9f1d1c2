// Real nginx (Debian's `nginx`, installed by .ci/run) in front of a test's game processes, running
// the shipped recipe, docs/deploy/nginx.conf: its server block is included as shipped, with only
// the listen port and the two processes' ports put in (the recipe's 8501/8502, and the proxy's 80).
// nginx runs in the foreground (daemon off) with a prefix, logs and temp folders of its own; its
// access log says, per request, every upstream it tried and their answers.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../helpers/process.js";
import { killGroup, until, type Guardian } from "./backing.js";
import { findNginx } from "../../scripts/chaos-binaries.mjs";

const recipe = fileURLToPath(new URL("../../docs/deploy/nginx.conf", import.meta.url));

/** nginx's binary (NGINX, the PATH, Debian's /usr/sbin), or undefined when it is not installed. */
export const nginxBinary = (): string | undefined => findNginx();

/** The recipe with its addresses put in; throws when the recipe no longer has the lines the test fills in. */
export function recipeFor(listen: number, first: number, second: number): string {
  let conf = readFileSync(recipe, "utf8");
  const put = (from: string | RegExp, to: string) => {
    const next = conf.replace(from, to);
    if (next === conf) throw new Error(`docs/deploy/nginx.conf no longer has ${String(from)}`);
    conf = next;
  };
  put(/listen 80;/, `listen 127.0.0.1:${listen};`);
  put(/127\.0\.0\.1:8501/g, `127.0.0.1:${first}`);
  put(/127\.0\.0\.1:8502/g, `127.0.0.1:${second}`);
  put(/\(8501\|8502\)/g, `(${first}|${second})`);
  return conf;
}

export interface AccessLine {
  status: number;
  method: string;
  uri: string;
  /** Each upstream tried, in order ("127.0.0.1:8501, 127.0.0.1:8502"), and what each answered ("503, 200"). */
  upstreams: string[];
  upstreamStatuses: string[];
  /** When nginx logged it (ms since the epoch). */
  at: number;
}

export class Nginx {
  readonly dir: string;
  readonly base: string;
  private child?: ChildProcess;
  stderr = "";

  private constructor(
    readonly port: number,
    private readonly guardian: Guardian,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), "snakes-nginx-"));
    this.base = `http://127.0.0.1:${port}`;
  }

  static async start(guardian: Guardian, port: number, first: number, second: number): Promise<Nginx> {
    const nginx = new Nginx(port, guardian);
    await nginx.run(recipeFor(port, first, second));
    return nginx;
  }

  /** A port for nginx to listen on, known before the processes start (their PUBLIC_ADDRESS names it). */
  static freePort(): Promise<number> {
    return freePort();
  }

  private async run(site: string): Promise<void> {
    const d = this.dir;
    writeFileSync(join(d, "snakes.conf"), site);
    writeFileSync(
      join(d, "nginx.conf"),
      [
        "daemon off;",
        "worker_processes 1;",
        // Workers run as root when the test does (CI): the temp folders below are root's.
        ...(process.getuid?.() === 0 ? ["user root;"] : []),
        `pid ${d}/nginx.pid;`,
        `error_log ${d}/error.log info;`,
        "events { worker_connections 1024; }",
        "http {",
        "  log_format chaos '$msec $status $request_method $uri \"$upstream_addr\" \"$upstream_status\"';",
        `  access_log ${d}/access.log chaos;`,
        ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${d}/${t};`),
        `  include ${d}/snakes.conf;`,
        "}",
        "",
      ].join("\n"),
    );
    this.child = spawn(nginxBinary()!, ["-p", d, "-c", join(d, "nginx.conf"), "-e", join(d, "error.log")], { stdio: ["ignore", "ignore", "pipe"], detached: true });
    this.guardian.watch(this.child.pid);
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (s: string) => (this.stderr += s));
    await until(
      async () => {
        if (this.child!.exitCode !== null) throw new Error(`nginx exited ${this.child!.exitCode}: ${this.stderr}${this.errorLog()}`);
        return (await fetch(`${this.base}/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))?.ok === true;
      },
      30_000,
      `nginx on ${port(this.base)} to answer /health through the recipe`,
      100,
    );
  }

  errorLog(): string {
    const f = join(this.dir, "error.log");
    return existsSync(f) ? readFileSync(f, "utf8") : "";
  }

  /** The access log so far. */
  accessLog(): AccessLine[] {
    const f = join(this.dir, "access.log");
    if (!existsSync(f)) return [];
    return readFileSync(f, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const m = /^(\S+) (\d+) (\S+) (\S+) "([^"]*)" "([^"]*)"$/.exec(line);
        if (!m) throw new Error(`unexpected access log line: ${line}`);
        const list = (s: string) => (s === "-" || s === "" ? [] : s.split(", "));
        return { at: Math.round(Number(m[1]) * 1000), status: Number(m[2]), method: m[3], uri: m[4], upstreams: list(m[5]), upstreamStatuses: list(m[6]) };
      });
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((r) => this.child!.once("exit", r));
      killGroup(this.child.pid, "SIGQUIT");
      const timer = setTimeout(() => killGroup(this.child?.pid, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const port = (base: string) => base.split(":").pop();
