// Environment configuration, validated once at start-up. Every variable is listed in .env.example.
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import dotenv from "dotenv";
import { DEFAULT_PASSWORD_HASH_COST } from "./auth/passwords.js";
import { claimDataDir } from "./process/dataDir.js";
import express from "express";
import { backupDirProblem } from "./backup/target.js";

/** At most `limit` hits per window. */
export interface WindowLimit {
  limit: number;
  windowMs: number;
}

export interface Config {
  nodeEnv: "development" | "production" | "test";
  /** The address both servers listen on (HOST): loopback unless production. */
  host: string;
  port: number;
  /** 0 turns the sample information server off. */
  samplePort: number;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  publicAddress?: string;
  jwtSecret: string;
  jwtCookieName: string;
  jwtTtlSeconds: number;
  cookieSecure: boolean;
  corsOrigins: string[];
  monitorUser?: string;
  monitorPassword?: string;
  /** Bearer token for GET /metrics (besides the monitor credentials). */
  metricsToken?: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** scrypt's N for new password hashes (PASSWORD_HASH_COST); at least the default in production. */
  passwordHashCost: number;
  /** How long running duels and boss battles may play on after SIGTERM/SIGINT (SHUTDOWN_DRAIN_SECONDS). */
  shutdownDrainSeconds: number;
  /** After this long from the first signal the process exits (code 1) whatever is pending (SHUTDOWN_DEADLINE_SECONDS). */
  shutdownDeadlineSeconds: number;
  /**
   * TRUST_PROXY: the reverse proxies whose X-Forwarded-For / X-Forwarded-Host count, as Express's
   * "trust proxy" takes them (addresses, CIDRs, loopback / linklocal / uniquelocal).
   */
  trustProxy: string[];
  rateLimits: {
    /** Registrations per client address (each costs an scrypt hash). */
    register: WindowLimit;
    /** Writes (POST/PUT/PATCH/DELETE) to /api/snakes and /api/boss per account. */
    accountWrites: WindowLimit;
    /** POST /matchmake/* requests per signed-in account. */
    matchmake: WindowLimit;
    /** POST /matchmake/* requests without a session (guests), per client address. */
    matchmakeAddress: WindowLimit;
    /**
     * Failed sign-ins at one account from one address before each further failure locks that
     * pair out for a growing delay (game login and workspace sign-in). Successes never count.
     */
    login: WindowLimit;
    /** Failed sign-ins at one account from every address together before the growing delay. */
    loginAccount: WindowLimit;
    /**
     * Failed sign-ins from one address at any accounts, not forgiven by a later success at the same
     * account (password spraying); over it, sign-ins from the address wait out the window.
     */
    loginAddress: WindowLimit;
    /** Failed workspace API-key authentications per client address. */
    apiKeyFailures: WindowLimit;
  };
  /** Open WebSocket connections per client address; the next upgrade is refused with 429. */
  maxConnectionsPerAddress: number;
  /** Bytes the server may hold for one WebSocket client that does not read; past it the client is cut (4005). */
  maxClientBacklogBytes: number;
  /** Scheduled backups (docs/operations.md#backups-and-restores): every this many seconds, or undefined when off (BACKUP_EVERY). */
  backupEverySeconds?: number;
  /** How many scheduled backups are kept (BACKUP_KEEP). */
  backupKeep: number;
  /** BACKUP_DIR when set; else src/backup's defaultBackupDir puts them beside DATA_DIR. */
  backupDir?: string;
  /** Settings accepted but risky (production with COOKIE_SECURE=false): one warn line each at start-up. */
  warnings?: string[];
  /** BACKUP_KEY: what authenticates backup files (src/backup/format.ts); unset: derived from JWT_SECRET. */
  backupKey?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/**
 * Where the servers listen when HOST is unset: every interface in production (a container or a
 * host behind its proxy), loopback otherwise, so a development server on a laptop is not open to
 * the LAN unless asked (HOST=0.0.0.0).
 */
export const defaultHost = (nodeEnv: Config["nodeEnv"]) => (nodeEnv === "production" ? "0.0.0.0" : "127.0.0.1");

const DEV_CORS_ORIGINS = [4000, 4100, 4500, 8500].flatMap((p) => [`http://localhost:${p}`, `http://127.0.0.1:${p}`]);
export const MIN_SECRET_LENGTH = 32;
/**
 * WebSocket connections one address may hold open: a /play player holds one room at a time, two
 * while one closes and the next opens, three with a reconnection the server has not yet noticed;
 * a class of 40 behind one NAT at most 120 (docs/security.md, "Classrooms and shared addresses");
 * thousands are an attack.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 200;
/**
 * Bytes held for one client (docs/security.md "Slow and silent clients"): ~6x the largest honest
 * burst (a SlitherRush join at 32 snakes), so a slow reader is never cut for one burst, and 100
 * stalled connections from one address hold at most 100 MB.
 */
export const DEFAULT_MAX_CLIENT_BACKLOG_BYTES = 1024 * 1024;
/** Below this a join snapshot could not leave while the previous one waits. */
const MIN_CLIENT_BACKLOG_BYTES = 64 * 1024;

/** The RATE_LIMIT_* defaults, as they are written in .env.example and README's table. */
export const DEFAULT_RATE_LIMITS: Record<keyof Config["rateLimits"], string> = {
  register: "120/10m",
  accountWrites: "120/1m",
  matchmake: "60/1m",
  matchmakeAddress: "600/1m",
  login: "5/15m",
  loginAccount: "20/1h",
  loginAddress: "30/15m",
  apiKeyFailures: "20/1m",
};

/** The defaults parsed, for tests that play on them. */
export function defaultRateLimits(): Config["rateLimits"] {
  return Object.fromEntries(Object.entries(DEFAULT_RATE_LIMITS).map(([k, v]) => [k, parseWindowLimit(v)!])) as Config["rateLimits"];
}

const port = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : Number(v)))
    .refine((n) => Number.isInteger(n) && n >= 0 && n <= 65535, `${name} must be an integer port 0..65535`);

const boolean = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false` });
      return z.NEVER;
    });

/** "3600", "90s", "30m", "12h", "7d" → seconds. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)\s*([smhd]?)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2].toLowerCase() as "" | "s" | "m" | "h" | "d"];
  const seconds = Number(m[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}

/** "30/10m" → { limit: 30, windowMs: 600000 }. */
export function parseWindowLimit(text: string): WindowLimit | undefined {
  const m = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(text);
  if (!m) return undefined;
  const seconds = parseDuration(m[2]);
  const limit = Number(m[1]);
  return seconds !== undefined && limit > 0 ? { limit, windowMs: seconds * 1000 } : undefined;
}

/** An integer setting: `fallback` when unset, else an integer `valid` accepts, or `message`. */
const integer = (fallback: number, valid: (n: number) => boolean, message: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || !valid(n)) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return n;
    });

const windowLimit = (name: string, fallback: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseWindowLimit(v || fallback);
      if (!parsed) {
        ctx.addIssue({ code: "custom", message: `${name} must look like 30/10m (at most 30 per 10 minutes)` });
        return z.NEVER;
      }
      return parsed;
    });

/** Whole seconds or a duration ("90", "90s", "10m"); `min` is the least number of seconds; undefined when unset. */
const seconds = (name: string, min: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return undefined;
      const s = v.trim() === "0" ? 0 : parseDuration(v);
      if (s === undefined || s < min) {
        ctx.addIssue({ code: "custom", message: `${name} must be ${min ? "" : "0 or "}seconds or a duration like 90s, 10m` });
        return z.NEVER;
      }
      return s;
    });

/**
 * Scheduled backups: hourly on the embedded database (its one copy is otherwise all there is); off on
 * PostgreSQL, whose operators have pg_dump and WAL archiving and whose N processes would each take one.
 */
export const DEFAULT_BACKUP_EVERY = { embedded: 3600, postgres: undefined } as const;
/** A day of hourly backups. */
export const DEFAULT_BACKUP_KEEP = 24;

/** BACKUP_EVERY: a duration ("30s", "15m", "1h"), or "off"; null when unset (the engine's default applies). */
const backupEvery = z
  .string()
  .optional()
  .transform((v, ctx): number | "off" | null => {
    if (v === undefined || v.trim() === "") return null;
    if (/^(off|0|false|no|none)$/i.test(v.trim())) return "off";
    const s = parseDuration(v);
    if (s === undefined) {
      ctx.addIssue({ code: "custom", message: "BACKUP_EVERY must be a duration like 30s, 15m, 1h, or off" });
      return z.NEVER;
    }
    return s;
  });

/** Defaults: duels and boss battles get 5 minutes to finish; closing gets 30 s more. */
export const DEFAULT_SHUTDOWN_DRAIN_SECONDS = 300;
export const SHUTDOWN_CLOSE_ALLOWANCE_SECONDS = 30;

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"], { message: "NODE_ENV must be development, production or test" }).default("development"),
  HOST: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined)
    .refine((v) => v === undefined || isIP(v) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(v), "HOST must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name"),
  PORT: port("PORT", 8500),
  SAMPLE_PORT: port("SAMPLE_PORT", 5001),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), "DATABASE_URL must be a postgresql:// URL"),
  REDIS_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => v === undefined || /^rediss?:\/\//.test(v), "REDIS_URL must be a redis:// URL"),
  PUBLIC_ADDRESS: z.string().optional().transform((v) => v || undefined),
  JWT_SECRET: z.string().optional().transform((v) => v || undefined),
  JWT_COOKIE_NAME: z
    .string()
    .default("jwt")
    .refine((v) => /^[A-Za-z0-9_\-]+$/.test(v), "JWT_COOKIE_NAME may only contain letters, digits, _ and -"),
  JWT_TTL: z
    .string()
    .default("12h")
    .transform((v, ctx) => {
      const s = parseDuration(v);
      if (s === undefined) {
        ctx.addIssue({ code: "custom", message: "JWT_TTL must be seconds or a duration like 30m, 12h, 7d" });
        return z.NEVER;
      }
      return s;
    }),
  COOKIE_SECURE: z.string().optional(),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const list = v.split(",").map((s) => s.trim()).filter(Boolean);
      for (const origin of list) {
        if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
          ctx.addIssue({ code: "custom", message: `CORS_ORIGINS entry "${origin}" must be an origin like https://game.example.com (no path, no *)` });
        }
      }
      return list;
    }),
  MONITOR_USER: z.string().optional().transform((v) => v || undefined),
  MONITOR_PASSWORD: z.string().optional().transform((v) => v || undefined),
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => v === undefined || v.length >= 16, "METRICS_TOKEN must have at least 16 characters (e.g. openssl rand -hex 24)"),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseTrustProxy(v);
      if ("problem" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.problem });
        return z.NEVER;
      }
      return parsed.list;
    }),
  // Defaults sized for a class of 40 behind one school address (docs/security.md, "Classrooms and shared addresses").
  RATE_LIMIT_REGISTER: windowLimit("RATE_LIMIT_REGISTER", DEFAULT_RATE_LIMITS.register),
  RATE_LIMIT_WRITES: windowLimit("RATE_LIMIT_WRITES", DEFAULT_RATE_LIMITS.accountWrites),
  RATE_LIMIT_MATCHMAKE: windowLimit("RATE_LIMIT_MATCHMAKE", DEFAULT_RATE_LIMITS.matchmake),
  RATE_LIMIT_MATCHMAKE_ADDRESS: windowLimit("RATE_LIMIT_MATCHMAKE_ADDRESS", DEFAULT_RATE_LIMITS.matchmakeAddress),
  RATE_LIMIT_LOGIN: windowLimit("RATE_LIMIT_LOGIN", DEFAULT_RATE_LIMITS.login),
  RATE_LIMIT_LOGIN_ACCOUNT: windowLimit("RATE_LIMIT_LOGIN_ACCOUNT", DEFAULT_RATE_LIMITS.loginAccount),
  RATE_LIMIT_LOGIN_ADDRESS: windowLimit("RATE_LIMIT_LOGIN_ADDRESS", DEFAULT_RATE_LIMITS.loginAddress),
  RATE_LIMIT_API_KEY_FAILURES: windowLimit("RATE_LIMIT_API_KEY_FAILURES", DEFAULT_RATE_LIMITS.apiKeyFailures),
  MAX_CONNECTIONS_PER_ADDRESS: integer(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, (n) => n >= 1, "MAX_CONNECTIONS_PER_ADDRESS must be a positive integer"),
  MAX_CLIENT_BACKLOG_BYTES: integer(
    DEFAULT_MAX_CLIENT_BACKLOG_BYTES,
    (n) => n >= MIN_CLIENT_BACKLOG_BYTES,
    `MAX_CLIENT_BACKLOG_BYTES must be an integer number of bytes, at least ${MIN_CLIENT_BACKLOG_BYTES}`,
  ),
  PASSWORD_HASH_COST: integer(
    DEFAULT_PASSWORD_HASH_COST,
    (n) => n >= 1024 && n <= 1_048_576 && (n & (n - 1)) === 0,
    "PASSWORD_HASH_COST must be a power of two from 1024 to 1048576 (scrypt's N)",
  ),
  SHUTDOWN_DRAIN_SECONDS: seconds("SHUTDOWN_DRAIN_SECONDS", 0),
  SHUTDOWN_DEADLINE_SECONDS: seconds("SHUTDOWN_DEADLINE_SECONDS", 1),
  BACKUP_EVERY: backupEvery,
  BACKUP_KEEP: integer(DEFAULT_BACKUP_KEEP, (n) => n >= 1, "BACKUP_KEEP must be a positive integer (how many scheduled backups to keep)"),
  BACKUP_DIR: z.string().optional().transform((v) => v?.trim() || undefined),
  BACKUP_KEY: z.string().optional().transform((v) => v || undefined),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { message: "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent" }).default("info"),
});

/** The embedded PGlite database's folder (used when DATABASE_URL is unset). */
export function embeddedDatabaseDir(config: Pick<Config, "dataDir">): string {
  return join(config.dataDir, "pglite");
}

/** Reads ./.env into process.env (variables already set win); silent, so CLI stdout stays clean. */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) dotenv.config({ path, quiet: true, override: false });
}

/** A secret that is long and not one of the well-known placeholders. */
export function isStrongSecret(secret: string): boolean {
  if (secret.length < MIN_SECRET_LENGTH) return false;
  if (new Set(secret).size < 10) return false;
  return !/secret|change.?me|password|example|your.?secret/i.test(secret);
}

/**
 * Reads and validates the environment. In development a missing JWT_SECRET is generated once and
 * kept in DATA_DIR so sessions survive a restart; production refuses to start without a strong one.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".") || "environment"}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  const production = e.NODE_ENV === "production";
  const cookieSecure = boolean("COOKIE_SECURE", production).safeParse(e.COOKIE_SECURE);
  if (!cookieSecure.success) problems.push("COOKIE_SECURE: must be true or false");

  let jwtSecret = e.JWT_SECRET;
  if (jwtSecret !== undefined && !isStrongSecret(jwtSecret)) {
    if (production) problems.push(`JWT_SECRET: too weak (use at least ${MIN_SECRET_LENGTH} random characters, e.g. openssl rand -hex 32)`);
  }
  // DATA_DIR holds the embedded database (and the admin endpoint), and the development secret.
  if (!e.DATABASE_URL || (jwtSecret === undefined && !production)) claimDataDir(resolve(e.DATA_DIR));
  if (jwtSecret === undefined) {
    if (production) problems.push("JWT_SECRET: required when NODE_ENV=production (e.g. openssl rand -hex 32)");
    else jwtSecret = devSecret(e.DATA_DIR);
  }
  // Whoever knows the key can write a backup a restore accepts: the rule JWT_SECRET has, everywhere.
  if (e.BACKUP_KEY !== undefined && !isStrongSecret(e.BACKUP_KEY)) {
    problems.push(`BACKUP_KEY: too weak (use at least ${MIN_SECRET_LENGTH} random characters, e.g. openssl rand -hex 32), or leave it unset to derive it from JWT_SECRET`);
  }
  if (production && !e.CORS_ORIGINS) problems.push("CORS_ORIGINS: required when NODE_ENV=production (comma-separated origins)");
  if ((e.MONITOR_USER === undefined) !== (e.MONITOR_PASSWORD === undefined)) {
    problems.push("MONITOR_USER / MONITOR_PASSWORD: set both to mount /monitor, or neither");
  }
  // The monitor can end any room and /metrics shows the whole server: the JWT_SECRET rule.
  if (production && e.MONITOR_PASSWORD !== undefined && !isStrongSecret(e.MONITOR_PASSWORD)) {
    problems.push(`MONITOR_PASSWORD: too weak for production (use at least ${MIN_SECRET_LENGTH} random characters, e.g. openssl rand -hex 24)`);
  }
  const warnings: string[] = [];
  // Warned, not refused: a deployment on a LAN without TLS (a classroom) needs it, since browsers do
  // not send a Secure cookie over plain http; anywhere else it lets the session cookie travel in clear.
  if (production && cookieSecure.success && !cookieSecure.data) {
    warnings.push("COOKIE_SECURE=false in production: session cookies are also sent over plain http, where anyone on the network can read and reuse them; keep it only for a LAN without TLS");
  }
  if (production && e.PASSWORD_HASH_COST < DEFAULT_PASSWORD_HASH_COST) {
    problems.push(`PASSWORD_HASH_COST: at least ${DEFAULT_PASSWORD_HASH_COST} in production`);
  }
  const shutdownDrainSeconds = e.SHUTDOWN_DRAIN_SECONDS ?? DEFAULT_SHUTDOWN_DRAIN_SECONDS;
  const shutdownDeadlineSeconds = e.SHUTDOWN_DEADLINE_SECONDS ?? shutdownDrainSeconds + SHUTDOWN_CLOSE_ALLOWANCE_SECONDS;
  if (shutdownDeadlineSeconds <= shutdownDrainSeconds) {
    problems.push(`SHUTDOWN_DEADLINE_SECONDS: must be longer than SHUTDOWN_DRAIN_SECONDS (${shutdownDrainSeconds} s): closing needs time after the drain`);
  }
  // Links resolved: a BACKUP_DIR that reaches into DATA_DIR through a symlink is inside it too.
  const backupDirInside = backupDirProblem(e.BACKUP_DIR ? resolve(e.BACKUP_DIR) : undefined, resolve(e.DATA_DIR));
  if (backupDirInside) problems.push(backupDirInside);
  if (problems.length) throw new ConfigError(problems);

  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST ?? defaultHost(e.NODE_ENV),
    port: e.PORT,
    samplePort: e.SAMPLE_PORT,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    publicAddress: e.PUBLIC_ADDRESS,
    jwtSecret: jwtSecret!,
    jwtCookieName: e.JWT_COOKIE_NAME,
    jwtTtlSeconds: e.JWT_TTL,
    cookieSecure: cookieSecure.success ? cookieSecure.data : production,
    corsOrigins: e.CORS_ORIGINS ?? (production ? [] : DEV_CORS_ORIGINS),
    monitorUser: e.MONITOR_USER,
    monitorPassword: e.MONITOR_PASSWORD,
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    passwordHashCost: e.PASSWORD_HASH_COST,
    shutdownDrainSeconds,
    shutdownDeadlineSeconds,
    trustProxy: e.TRUST_PROXY,
    rateLimits: {
      register: e.RATE_LIMIT_REGISTER,
      accountWrites: e.RATE_LIMIT_WRITES,
      matchmake: e.RATE_LIMIT_MATCHMAKE,
      matchmakeAddress: e.RATE_LIMIT_MATCHMAKE_ADDRESS,
      login: e.RATE_LIMIT_LOGIN,
      loginAccount: e.RATE_LIMIT_LOGIN_ACCOUNT,
      loginAddress: e.RATE_LIMIT_LOGIN_ADDRESS,
      apiKeyFailures: e.RATE_LIMIT_API_KEY_FAILURES,
    },
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    maxClientBacklogBytes: e.MAX_CLIENT_BACKLOG_BYTES,
    backupEverySeconds: e.BACKUP_EVERY === "off" ? undefined : (e.BACKUP_EVERY ?? (e.DATABASE_URL ? DEFAULT_BACKUP_EVERY.postgres : DEFAULT_BACKUP_EVERY.embedded)),
    backupKeep: e.BACKUP_KEEP,
    backupDir: e.BACKUP_DIR ? resolve(e.BACKUP_DIR) : undefined,
    warnings,
    ...(e.BACKUP_KEY ? { backupKey: e.BACKUP_KEY } : {}),
  };
}

function devSecret(dataDir: string): string {
  const file = join(resolve(dataDir), "jwt-secret");
  if (existsSync(file)) {
    const stored = readFileSync(file, "utf8").trim();
    if (isStrongSecret(stored)) return stored;
  }
  mkdirSync(resolve(dataDir), { recursive: true });
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, secret + "\n", { mode: 0o600 });
  return secret;
}

// TRUST_PROXY's parsing lives here, not in net/proxy.ts (which uses it), so that config imports no
// layer that imports config back (test/unit/layers.test.ts).
/** TRUST_PROXY's default: the proxy on this machine. */
export const DEFAULT_TRUST_PROXY: readonly string[] = ["loopback"];
/** Kept for callers that set Express themselves: the default, as Express's "trust proxy" takes it. */
export const TRUST_PROXY = DEFAULT_TRUST_PROXY.join(",");

export type TrustFn = (address: string, hop: number) => boolean;

/**
 * Express's own compilation of a "trust proxy" list (proxy-addr: addresses, CIDRs, and the names
 * loopback, linklocal, uniquelocal), so TRUST_PROXY means exactly what Express documents. Throws
 * (a TypeError naming the entry) on anything else.
 */
export function compileTrust(list: readonly string[]): TrustFn {
  const app = express();
  app.set("trust proxy", [...list]);
  return app.get("trust proxy fn") as TrustFn;
}

/**
 * TRUST_PROXY: comma-separated addresses, CIDRs and loopback / linklocal / uniquelocal. Returns
 * the list, or a problem. "true", "*" and hop counts are refused: trusting every peer would let any
 * client name its own address and so escape every per-address limit.
 */
export function parseTrustProxy(text: string | undefined): { list: string[] } | { problem: string } {
  if (text === undefined || text.trim() === "") return { list: [...DEFAULT_TRUST_PROXY] };
  const list = text.split(",").map((s) => s.trim()).filter(Boolean);
  for (const entry of list) {
    if (/^(true|\*|\d+)$/i.test(entry)) return { problem: `"${entry}" would trust any peer: list the proxies' addresses or CIDRs (e.g. 10.0.0.5, 10.0.0.0/24, loopback)` };
    try {
      compileTrust([entry]);
    } catch {
      return { problem: `"${entry}" is not an address, a CIDR, or one of loopback, linklocal, uniquelocal` };
    }
  }
  return { list };
}
