// The backing services of the chaos harness (./harness.ts), each a child process the test may
// break: a Redis (`redis-server --save '' --appendonly no`: SIGKILL/SIGSTOP-able, restarted on the
// same port with or without its data) and a PostgreSQL (a copy of a migrated cluster made once per
// run by initdb, as the `postgres` user when we are root: stopped, killed and restarted on the same
// port). Every process is in a process group of its own, known to a guardian (./guardian.mjs) that
// kills them all if the test process goes.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { Redis } from "ioredis";
import { PrismaPg } from "@prisma/adapter-pg";
import { applyMigrations } from "../../src/db/migrate.js";
import { migrationsFingerprint } from "../helpers/templates.js";
import { findPostgresBin, findRedisServer } from "../../scripts/chaos-binaries.mjs";

const guardianScript = fileURLToPath(new URL("./guardian.mjs", import.meta.url));
/** The port a run builds its PostgreSQL template on (the files use 55461-55468). */
const TEMPLATE_PG_PORT = 55469;

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

export class Guardian {
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

export const killGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
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

