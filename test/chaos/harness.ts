// The chaos harness (issue 29): within a test file, a deployment of its own that the test may break.
// One Redis (`redis-server --save '' --appendonly no`: SIGKILL/SIGSTOP-able, restarted on the same
// port with or without its data), one PostgreSQL (a copy of a migrated cluster made once per run by
// initdb as the `postgres` user when we are root: stopped, killed and restarted on the same port),
// and game servers started the way `npm start` starts them (the Node flags of package.json's start
// script, scripts/start.mjs, the real entry point), each with its stdout (JSON log lines) and
// stderr kept apart. Every process is in a process group of its own, known to a guardian
// (./guardian.mjs) that kills them all if this test process goes; close() kills them in afterAll.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { Redis } from "ioredis";
import { PrismaPg } from "@prisma/adapter-pg";
import { applyMigrations } from "../../src/db/migrate.js";
import { migrationsFingerprint } from "../helpers/templates.js";
import { freePort } from "../helpers/process.js";
import { findPostgresBin, findRedisServer } from "../../scripts/chaos-binaries.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const exitWithParent = fileURLToPath(new URL("../helpers/exitWithParent.mjs", import.meta.url));
const guardianScript = fileURLToPath(new URL("./guardian.mjs", import.meta.url));
/** The port a run builds its PostgreSQL template on (the files use 55461-55468). */
const TEMPLATE_PG_PORT = 55469;
export const JWT_SECRET = "chaos-secret-0123456789abcdefghijklmnopqrstuvwxyz";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it returns a value; fails after `timeoutMs` naming `what`. */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await sleep(everyMs);
  }
}

// --- who runs PostgreSQL --------------------------------------------------------------------------

/** PostgreSQL refuses to run as root: as root the harness runs it (and initdb) as `postgres`. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root, but there is no postgres user to run PostgreSQL as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function chownTree(dir: string): void {
  const user = postgresUser();
  if (!user) return;
  const r = spawnSync("chown", ["-R", `${user.uid}:${user.gid}`, dir]);
  if (r.status !== 0) throw new Error(`chown ${dir}: ${r.stderr}`);
}

// --- the guardian -------------------------------------------------------------------------------

class Guardian {
  private readonly child: ChildProcess;
  constructor() {
    this.child = spawn(process.execPath, [guardianScript], { stdio: ["ignore", "ignore", "inherit", "ipc"], detached: true });
    this.child.unref();
    (this.child as unknown as { channel?: { unref(): void } }).channel?.unref();
  }
  watch(pid: number | undefined): void {
    if (pid) this.child.send({ watch: pid });
  }
  forget(pid: number | undefined): void {
    if (pid && this.child.connected) this.child.send({ forget: pid });
  }
  close(): void {
    if (this.child.connected) this.child.disconnect(); // it kills whatever is left and exits
  }
}

const killGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // gone
  }
};

// --- Redis --------------------------------------------------------------------------------------

export class RedisServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  readonly dir = mkdtempSync(join(tmpdir(), "snakes-chaos-redis-"));
  constructor(
    readonly port: number,
    private readonly guardian: Guardian,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts redis-server on its port; with `keepData`, from the dump the last save() wrote. */
  async start(keepData = false): Promise<void> {
    if (!keepData) rmSync(join(this.dir, "dump.rdb"), { force: true });
    const child = spawn(findRedisServer()!, ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir, "--dbfilename", "dump.rdb"], {
      stdio: ["ignore", "ignore", "ignore"],
      detached: true,
    });
    this.child = child;
    this.guardian.watch(child.pid);
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    await until(() => this.command("PING").then((r) => r === "PONG"), 10_000, `redis-server on ${this.port}`, 50);
  }

  /** One command on a fresh connection (the harness's own; never retried). */
  async command(...args: string[]): Promise<unknown> {
    const client = new Redis({ port: this.port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    client.on("error", () => {});
    try {
      await client.connect();
      return await client.call(args[0], ...args.slice(1));
    } finally {
      client.disconnect();
    }
  }

  /** Writes the dump a start(true) loads. */
  async save(): Promise<void> {
    await this.command("SAVE");
  }

  signal(signal: NodeJS.Signals): void {
    killGroup(this.child?.pid, signal);
  }

  /** SIGKILL: every connection refused until start(). */
  async kill(): Promise<void> {
    this.signal("SIGCONT");
    this.signal("SIGKILL");
    await this.exited;
    this.guardian.forget(this.child?.pid);
  }
}

// --- PostgreSQL ---------------------------------------------------------------------------------

let templateDir: Promise<string> | undefined;

/** A stopped PostgreSQL cluster with the database `snakes` migrated, built once per migrations and reused. */
export function postgresTemplate(): Promise<string> {
  templateDir ??= buildPostgresTemplate();
  return templateDir;
}

async function buildPostgresTemplate(): Promise<string> {
  // Keyed by the migrations and the PostgreSQL binaries (a data folder is tied to its major version).
  const binaries = createHash("sha256").update(findPostgresBin()!).digest("hex").slice(0, 8);
  const dir = join(tmpdir(), `snakes-chaos-pg-${await migrationsFingerprint()}-${binaries}`);
  if (existsSync(join(dir, "PG_VERSION"))) return dir;
  // Files running in parallel: one builds, the others wait for its rename.
  const lock = `${dir}.lock`;
  try {
    mkdirSync(lock);
  } catch {
    const lockAge = () => Date.now() - statSync(lock).mtimeMs;
    await until(() => existsSync(join(dir, "PG_VERSION")) || (existsSync(lock) && lockAge() > 120_000 ? (rmSync(lock, { recursive: true, force: true }), false) : false), 120_000, "the PostgreSQL template another file builds");
    return dir;
  }
  try {
    const building = mkdtempSync(join(tmpdir(), "snakes-chaos-pgbuild-"));
    chmodSync(building, 0o700);
    chownTree(building);
    const bin = findPostgresBin()!;
    const user = postgresUser();
    const init = spawnSync(join(bin, "initdb"), ["-D", building, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"], { ...(user ?? {}), encoding: "utf8" });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
    const guardian = new Guardian();
    const server = new PostgresServer(building, TEMPLATE_PG_PORT, guardian);
    try {
      await server.start();
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      await admin.query("CREATE DATABASE snakes");
      await admin.end();
      await applyMigrations(new PrismaPg({ connectionString: server.url, max: 2 }));
    } finally {
      await server.stop("fast");
      guardian.close();
    }
    renameSync(building, dir);
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export class PostgresServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  log = "";

  constructor(
    readonly dir: string,
    readonly port: number,
    private readonly guardian: Guardian | undefined,
  ) {}

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/snakes`;
  }
  get adminUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A copy of the template in a new folder, on `port`. */
  static async fromTemplate(port: number, guardian: Guardian): Promise<PostgresServer> {
    const dir = mkdtempSync(join(tmpdir(), "snakes-chaos-pg-data-"));
    rmSync(dir, { recursive: true });
    const copy = spawnSync("cp", ["-a", await postgresTemplate(), dir]);
    if (copy.status !== 0) throw new Error(`copying the PostgreSQL template: ${copy.stderr}`);
    return new PostgresServer(dir, port, guardian);
  }

  async start(): Promise<void> {
    const bin = findPostgresBin()!;
    const settings = ["listen_addresses=127.0.0.1", "fsync=off", "full_page_writes=off", "shared_buffers=16MB", "max_connections=60", "log_min_messages=warning"];
    const child = spawn(join(bin, "postgres"), ["-D", this.dir, "-p", String(this.port), "-k", this.dir, ...settings.flatMap((s) => ["-c", s])], {
      ...(postgresUser() ?? {}),
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    child.stderr!.on("data", (d) => (this.log = (this.log + d).slice(-20_000)));
    this.child = child;
    this.guardian?.watch(child.pid);
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`postgres exited ${child.exitCode}: ${this.log}`);
        const c = new pg.Client({ connectionString: this.adminUrl });
        c.on("error", () => {});
        try {
          await c.connect();
          await c.query("SELECT 1");
          return true;
        } finally {
          await c.end().catch(() => {});
        }
      },
      30_000,
      `postgres on ${this.port}`,
      100,
    );
  }

  /** fast: SIGINT (connections terminated, a clean shutdown); immediate: SIGQUIT; kill: SIGKILL. */
  async stop(mode: "fast" | "immediate" | "kill" = "fast"): Promise<void> {
    const pid = this.child?.pid;
    if (!pid || this.child!.exitCode !== null) return;
    if (mode === "kill") killGroup(pid, "SIGKILL");
    else process.kill(pid, mode === "fast" ? "SIGINT" : "SIGQUIT");
    await this.exited;
    this.guardian?.forget(pid);
  }

  async sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
    const c = new pg.Client({ connectionString: this.url });
    await c.connect();
    try {
      return (await c.query(text, values)).rows as T[];
    } finally {
      await c.end();
    }
  }
}

// --- game servers -------------------------------------------------------------------------------

/** The Node flags and script of package.json's start script ("exec node <flags> scripts/start.mjs"). */
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

// --- the cluster of a test file ------------------------------------------------------------------

export interface ClusterOptions {
  /** The file's Redis port (6461-6469) and PostgreSQL port (55461-55468). */
  redisPort: number;
  pgPort: number;
}

export class Cluster {
  readonly servers: GameServer[] = [];
  private constructor(
    readonly redis: RedisServer,
    readonly postgres: PostgresServer,
    private readonly guardian: Guardian,
  ) {}

  static async open({ redisPort, pgPort }: ClusterOptions): Promise<Cluster> {
    const guardian = new Guardian();
    const redis = new RedisServer(redisPort, guardian);
    const postgres = await PostgresServer.fromTemplate(pgPort, guardian);
    const cluster = new Cluster(redis, postgres, guardian);
    await Promise.all([redis.start(), postgres.start()]);
    return cluster;
  }

  /** The environment of a process of the deployment (docs/scaling.md), with `overrides`. */
  env(port: number, overrides: Record<string, string> = {}): Record<string, string> {
    return {
      PORT: String(port),
      HOST: "127.0.0.1",
      SAMPLE_PORT: "0",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      DATABASE_URL: this.postgres.url,
      REDIS_URL: this.redis.url,
      PUBLIC_ADDRESS: `127.0.0.1:${port}`,
      JWT_SECRET,
      // The tests register and matchmake dozens of times, and autosave 4 times a second, from one address.
      RATE_LIMIT_REGISTER: "1000/1m",
      RATE_LIMIT_MATCHMAKE: "100000/1m",
      RATE_LIMIT_WRITES: "100000/1m",
      DATA_DIR: "/nonexistent-chaos",
      SHUTDOWN_DRAIN_SECONDS: "2",
      ...overrides,
    };
  }

  /** Starts a game server as `npm start` does; waits for /ready 200 unless `wait` is false. */
  async startServer(name: string, overrides: Record<string, string> = {}, wait = true): Promise<GameServer> {
    const port = await freePort();
    const server = new GameServer(name, port, this.env(port, overrides), this.guardian);
    this.servers.push(server);
    if (wait) await server.ready();
    return server;
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop(5000).catch(() => undefined)));
    await this.redis.kill().catch(() => undefined);
    await this.postgres.stop("immediate").catch(() => undefined);
    this.guardian.close();
    rmSync(this.redis.dir, { recursive: true, force: true });
    rmSync(this.postgres.dir, { recursive: true, force: true });
  }
}

// --- clients ------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  ms: number;
  text: string;
  json: any;
  retryAfter: string | null;
  /** "timeout" or the fetch error when there was no answer (status 0). */
  error?: string;
}

/** One HTTP request with a deadline; never throws (status 0 when there was no answer). */
export async function probe(url: string, init: { method?: string; body?: unknown; cookie?: string; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...(init.cookie ? { cookie: init.cookie } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs ?? 5000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, ms: Math.round(performance.now() - started), text, json, retryAfter: res.headers.get("retry-after") };
  } catch (err) {
    const e = err as Error;
    return { status: 0, ms: Math.round(performance.now() - started), text: "", json: undefined, retryAfter: null, error: e.name === "TimeoutError" ? "timeout" : e.message };
  }
}

let accounts = 0;

/** A new account registered through `server`: its id and session cookie, and `bullets` on its record. */
export async function account(cluster: Cluster, server: GameServer, bullets = 0): Promise<{ id: number; cookie: string; username: string }> {
  const username = `chaos_${process.pid}_${++accounts}_${Math.random().toString(36).slice(2, 6)}`;
  const res = await fetch(`${server.base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password: "correct horse battery" }),
    signal: AbortSignal.timeout(15_000),
  });
  if (res.status !== 201) throw new Error(`register through ${server.name}: ${res.status} ${await res.text()}`);
  const id = (await res.json()).user.id as number;
  const cookie = res.headers.getSetCookie()[0]?.split(";")[0];
  if (!cookie) throw new Error(`register through ${server.name}: no session cookie`);
  if (bullets > 0) {
    await cluster.postgres.sql(
      `INSERT INTO game_progress (user_id, total_bullets, updated_at) VALUES ($1, $2, now()) ON CONFLICT (user_id) DO UPDATE SET total_bullets = $2`,
      [id, bullets],
    );
  }
  return { id, cookie, username };
}

// --- what the suite measured ---------------------------------------------------------------------

/** Where the figures go besides the test output: CHAOS_RESULTS, or a file in the temp folder. */
export const resultsFile = process.env.CHAOS_RESULTS ?? join(tmpdir(), "snakes-chaos-results.jsonl");

/** Prints one line of measured figures and appends it (JSON) to the results file. */
export function report(fault: string, figures: Record<string, unknown>): void {
  const line = { fault, at: new Date().toISOString(), ...figures };
  console.log(`chaos ${fault}: ${JSON.stringify(figures)}`);
  try {
    appendFileSync(resultsFile, `${JSON.stringify(line)}\n`);
  } catch {
    // the printed line is enough
  }
}

/** Strings a client must never see in an error (driver text, the database's host and port). */
export function driverText(text: string, pgPort: number): string[] {
  const found = [/prisma/i, /Invalid/, /127\.0\.0\.1/, new RegExp(String(pgPort)), /ECONNREFUSED/, /Can't reach database/].filter((re) => re.test(text));
  return found.map((re) => re.source);
}
