// The chaos harness (issue 29): within a test file, a deployment of its own that the test may break.
// One Redis and one PostgreSQL of its own (./backing.ts) and game servers started as `npm start`
// starts them (./gameServer.ts); close() kills them all in afterAll, and the guardian if the test
// process goes without it. Plus the clients' side: requests with a deadline, accounts, and the
// one-line reports of what was measured.
import { appendFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../helpers/process.js";
import { Guardian, PostgresServer, RedisServer } from "./backing.js";
import { GameServer } from "./gameServer.js";

export { until } from "./backing.js";
export type { GameServer, LogLine } from "./gameServer.js";

export const JWT_SECRET = "chaos-secret-0123456789abcdefghijklmnopqrstuvwxyz";

// --- the cluster of a test file ------------------------------------------------------------------

export interface ClusterOptions {
  /** The file's Redis port (6461-6469) and PostgreSQL port (55461-55469). */
  redisPort: number;
  pgPort: number;
}

export class Cluster {
  readonly servers: GameServer[] = [];
  private constructor(
    readonly redis: RedisServer,
    readonly postgres: PostgresServer,
    /** Kills what the test started (game servers, nginx) if the test process goes without it. */
    readonly guardian: Guardian,
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

  /** Starts a game server as `npm start` does; waits for /ready 200 unless `wait` is false. `overrides` may depend on its port. */
  async startServer(name: string, overrides: Record<string, string> | ((port: number) => Record<string, string>) = {}, wait = true): Promise<GameServer> {
    const port = await freePort();
    const server = new GameServer(name, port, this.env(port, typeof overrides === "function" ? overrides(port) : overrides), this.guardian);
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
