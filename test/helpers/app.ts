// Boots the real server (Express + Colyseus on one HTTP server, real database, a free port) for
// integration tests: the application starts as `npm start` starts it, and its game server definition
// is served by @colyseus/testing's boot(), whose room extensions (waitForNextPatch,
// waitForNextSimulationTick, waitForMessage) the tests use. Gives them an HTTP client with a cookie
// jar and Colyseus SDK clients (boot()'s own for guests).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import { parseSetCookie } from "cookie";
import { Client as ColyseusClient } from "@colyseus/sdk";
import type { RegisteredHandler } from "@colyseus/core";
import { boot, type ColyseusTestServer } from "@colyseus/testing";
import type { ConfigOptions } from "@colyseus/tools";
import { startApplication, type Application } from "../../src/app.js";
import type { Config } from "../../src/config.js";
import { openDatabase, type Database } from "../../src/db/client.js";
import { createLogger, type Logger } from "../../src/ops/logger.js";
import { withDatabase } from "./templates.js";
import { freePort } from "./process.js";

export const TEST_JWT_SECRET = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
export const TEST_ORIGIN = "http://app.test";

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    nodeEnv: "test",
    host: "127.0.0.1",
    port: 0,
    samplePort: 0,
    dataDir: "/nonexistent-test-data-dir",
    jwtSecret: TEST_JWT_SECRET,
    jwtCookieName: "jwt",
    jwtTtlSeconds: 3600,
    cookieSecure: false,
    corsOrigins: [TEST_ORIGIN],
    logLevel: (process.env.TEST_LOG_LEVEL as Config["logLevel"]) ?? "silent",
    // scrypt's lowest accepted cost: nearly every test registers accounts, at ~37 ms of CPU each at
    // the default (progress.test.ts: 12.7 s of CPU, 7.7 s at 1024). A hash carries its cost and is
    // verified with it; test/unit/auth.test.ts checks the default and the setting.
    passwordHashCost: 1024,
    // A test that stops its server mid-match should not wait minutes for it.
    shutdownDrainSeconds: 2,
    shutdownDeadlineSeconds: 30,
    trustProxy: ["loopback"],
    // Test files register hundreds of accounts from one address and sign in with wrong passwords
    // on purpose; rateLimits.test.ts, accountLimits.test.ts and classroom.test.ts play on the
    // real defaults (src/config.ts defaultRateLimits) or their own.
    rateLimits: {
      register: { limit: 100_000, windowMs: 60_000 },
      accountWrites: { limit: 100_000, windowMs: 60_000 },
      matchmake: { limit: 100_000, windowMs: 60_000 },
      matchmakeAddress: { limit: 100_000, windowMs: 60_000 },
      login: { limit: 100_000, windowMs: 60_000 },
      loginAccount: { limit: 100_000, windowMs: 60_000 },
      loginAddress: { limit: 100_000, windowMs: 60_000 },
      apiKeyFailures: { limit: 100_000, windowMs: 60_000 },
    },
    maxConnectionsPerAddress: 100_000,
    maxClientBacklogBytes: 1024 * 1024,
    // Scheduled backups off: a test that wants them sets backupEverySeconds (backupSchedule.test.ts).
    backupKeep: 24,
    ...overrides,
  };
}

/** A fresh database on the TEST_DATABASE_URL server, cloned from the migrated template. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL!;
  const name = `snakes_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject("postgresTemplate")}"`);
  await admin.end();
  return {
    url: withDatabase(server, name),
    async drop() {
      const a = new pg.Client({ connectionString: server });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}

/** A fresh, already-migrated database: PGlite from the template tarball, or a PostgreSQL clone. */
export async function freshDatabase(): Promise<{ db: Database; drop(): Promise<void> }> {
  if (process.env.TEST_DB === "postgres") {
    const fresh = await freshPostgresDatabase();
    return { db: await openDatabase({ databaseUrl: fresh.url }), drop: fresh.drop };
  }
  const tarball = new Blob([readFileSync(inject("pgliteTemplate"))]);
  const db = await openDatabase({ pgliteDataDir: "memory://", pgliteLoadDataDir: tarball });
  return { db, drop: async () => {} };
}

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch with a cookie jar, JSON in and out. */
export class HttpClient {
  cookies = new Map<string, string>();
  constructor(readonly baseUrl: string, readonly defaultHeaders: Record<string, string> = {}) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResponse<T>> {
    const h: Record<string, string> = { ...this.defaultHeaders, ...headers };
    if (this.cookies.size && !("cookie" in h)) h.cookie = this.cookieHeader;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      h["content-type"] ??= "application/json";
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload });
    for (const line of res.headers.getSetCookie()) {
      const { name, value, maxAge, expires } = parseSetCookie(line);
      const expired = maxAge === 0 || (expires !== undefined && expires.getTime() <= Date.now());
      if (expired || !value) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) => this.request<T>("GET", path, undefined, headers);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>("POST", path, body, headers);
  put = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>("PUT", path, body, headers);
  delete = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>("DELETE", path, body, headers);
}

export interface TestApp {
  app: Application;
  /** @colyseus/testing's handle on the game server: its SDK client (a guest), getRoomById, createRoom. */
  colyseus: ColyseusTestServer;
  baseUrl: string;
  wsUrl: string;
  port: number;
  config: Config;
  prisma: Application["ctx"]["prisma"];
  /** A new HTTP client with its own cookie jar. */
  http(headers?: Record<string, string>): HttpClient;
  /** Registers (and logs in) a fresh account; returns its client and user. */
  account(name?: string, password?: string): Promise<{ http: HttpClient; user: { id: number; username: string }; cookie: string }>;
  /** A Colyseus SDK client sending the given cookie header; boot()'s own client (a guest) when omitted. */
  sdk(cookie?: string): ColyseusClient;
  /**
   * A new room of `name` (made on the server, as matchmaking or POST /api/boss/join makes them:
   * clients may not `create` most rooms), joined by the SDK client of `cookie` with `options`.
   */
  joinNewRoom(name: string, options?: Record<string, unknown>, cookie?: string): ReturnType<ColyseusClient["joinById"]>;
  stop(): Promise<void>;
}

let accountCounter = 0;

export async function startTestApp(
  overrides: Partial<Config> = {},
  options: { rooms?: Record<string, RegisteredHandler>; logger?: Logger } = {},
): Promise<TestApp> {
  const config = testConfig(overrides);
  const fresh = await freshDatabase();
  // boot() needs the port up front (its SDK client is built from it), so a free one is chosen here.
  const bootPort = await freePort();
  let colyseus: ColyseusTestServer | undefined;
  const app = await startApplication(config, {
    db: fresh.db,
    logger: options.logger ?? createLogger(config.logLevel),
    rooms: options.rooms,
    // The "~rooms"/"~routes" members ConfigOptions asks for are type-only markers.
    listen: async (definition) => (colyseus = await boot(definition as ConfigOptions, bootPort)).server,
  });
  const port = app.game.port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const wsUrl = `ws://127.0.0.1:${port}`;
  const test: TestApp = {
    app,
    colyseus: colyseus!,
    baseUrl,
    wsUrl,
    port,
    config,
    prisma: app.ctx.prisma,
    http: (headers) => new HttpClient(baseUrl, headers),
    async account(name, password = "correct horse battery") {
      const username = name ?? `user${process.pid}_${++accountCounter}`;
      const http = new HttpClient(baseUrl);
      const res = await http.post("/api/auth/register", { username, password });
      if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${res.text}`);
      return { http, user: res.body.user, cookie: http.cookieHeader };
    },
    sdk: (cookie) => (cookie ? new ColyseusClient(wsUrl, { headers: { cookie } }) : colyseus!.sdk),
    async joinNewRoom(name, options = {}, cookie) {
      const room = await colyseus!.createRoom(name, {});
      return test.sdk(cookie).joinById(room.roomId, options);
    },
    async stop() {
      await app.stop();
      await fresh.drop();
    },
  };
  return test;
}
