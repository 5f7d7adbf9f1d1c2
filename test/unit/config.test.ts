import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseDuration, isStrongSecret } from "../../src/config.js";

const tmp = () => mkdtempSync(join(tmpdir(), "snakes-config-"));
const strong = "f3a9c1d27be84e0a9c6d5b1e2f7a8c90d4e3b2a1";

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("loadConfig", () => {
  it("has working defaults for a fresh machine: ports 8500/5001, embedded database, generated dev secret", () => {
    const dataDir = tmp();
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c.port).toBe(8500);
    expect(c.samplePort).toBe(5001);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.jwtCookieName).toBe("jwt");
    expect(c.jwtTtlSeconds).toBe(12 * 3600);
    expect(c.cookieSecure).toBe(false);
    expect(c.nodeEnv).toBe("development");
    expect(isStrongSecret(c.jwtSecret)).toBe(true);
    // persisted, so sessions survive a restart
    expect(readFileSync(join(dataDir, "jwt-secret"), "utf8").trim()).toBe(c.jwtSecret);
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(c.jwtSecret);
  });

  it("HOST: loopback by default outside production, every interface in production, validated when set", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).host).toBe("127.0.0.1");
    expect(loadConfig({ DATA_DIR: tmp(), NODE_ENV: "test" }).host).toBe("127.0.0.1");
    expect(loadConfig({ DATA_DIR: tmp(), NODE_ENV: "production", JWT_SECRET: strong, CORS_ORIGINS: "https://a.example" }).host).toBe("0.0.0.0");
    for (const host of ["0.0.0.0", "::", "::1", "192.168.1.20", "game-host.internal"]) expect(loadConfig({ DATA_DIR: tmp(), HOST: host }).host).toBe(host);
    expect(loadConfig({ DATA_DIR: tmp(), HOST: "" }).host).toBe("127.0.0.1");
    expect(problemsOf({ DATA_DIR: tmp(), HOST: "http://0.0.0.0" })).toEqual(["HOST: HOST must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name"]);
    expect(problemsOf({ DATA_DIR: tmp(), HOST: "a b" })).toHaveLength(1);
  });

  it("SHUTDOWN_DRAIN_SECONDS / SHUTDOWN_DEADLINE_SECONDS: 300 s and the drain + 30 s by default, durations accepted, the deadline after the drain", () => {
    expect(loadConfig({ DATA_DIR: tmp() })).toMatchObject({ shutdownDrainSeconds: 300, shutdownDeadlineSeconds: 330 });
    expect(loadConfig({ DATA_DIR: tmp(), SHUTDOWN_DRAIN_SECONDS: "10m" })).toMatchObject({ shutdownDrainSeconds: 600, shutdownDeadlineSeconds: 630 });
    expect(loadConfig({ DATA_DIR: tmp(), SHUTDOWN_DRAIN_SECONDS: "0", SHUTDOWN_DEADLINE_SECONDS: "5" })).toMatchObject({ shutdownDrainSeconds: 0, shutdownDeadlineSeconds: 5 });
    expect(problemsOf({ DATA_DIR: tmp(), SHUTDOWN_DRAIN_SECONDS: "soon" })[0]).toMatch(/^SHUTDOWN_DRAIN_SECONDS: /);
    expect(problemsOf({ DATA_DIR: tmp(), SHUTDOWN_DEADLINE_SECONDS: "0" })[0]).toMatch(/^SHUTDOWN_DEADLINE_SECONDS: /);
    expect(problemsOf({ DATA_DIR: tmp(), SHUTDOWN_DRAIN_SECONDS: "60", SHUTDOWN_DEADLINE_SECONDS: "60" })).toEqual([
      "SHUTDOWN_DEADLINE_SECONDS: must be longer than SHUTDOWN_DRAIN_SECONDS (60 s): closing needs time after the drain",
    ]);
  });

  it("reads rate limits as count/duration, with defaults sized for a class of 40 behind one address (issue 40)", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).rateLimits).toEqual({
      register: { limit: 120, windowMs: 600_000 },
      accountWrites: { limit: 120, windowMs: 60_000 },
      matchmake: { limit: 60, windowMs: 60_000 },
      matchmakeAddress: { limit: 600, windowMs: 60_000 },
      login: { limit: 5, windowMs: 900_000 },
      loginAccount: { limit: 20, windowMs: 3_600_000 },
      loginAddress: { limit: 30, windowMs: 900_000 },
      apiKeyFailures: { limit: 20, windowMs: 60_000 },
    });
    expect(
      loadConfig({
        DATA_DIR: tmp(),
        RATE_LIMIT_REGISTER: "5/1h",
        RATE_LIMIT_WRITES: "1000/30s",
        RATE_LIMIT_MATCHMAKE: "10/10s",
        RATE_LIMIT_MATCHMAKE_ADDRESS: "2000/1m",
        RATE_LIMIT_LOGIN: "8/30m",
        RATE_LIMIT_LOGIN_ACCOUNT: "50/1h",
        RATE_LIMIT_LOGIN_ADDRESS: "90/15m",
        RATE_LIMIT_API_KEY_FAILURES: "40/1m",
      }).rateLimits,
    ).toEqual({
      register: { limit: 5, windowMs: 3_600_000 },
      accountWrites: { limit: 1000, windowMs: 30_000 },
      matchmake: { limit: 10, windowMs: 10_000 },
      matchmakeAddress: { limit: 2000, windowMs: 60_000 },
      login: { limit: 8, windowMs: 1_800_000 },
      loginAccount: { limit: 50, windowMs: 3_600_000 },
      loginAddress: { limit: 90, windowMs: 900_000 },
      apiKeyFailures: { limit: 40, windowMs: 60_000 },
    });
    expect(problemsOf({ DATA_DIR: tmp(), RATE_LIMIT_REGISTER: "lots" }).join()).toMatch(/RATE_LIMIT_REGISTER must look like 30\/10m/);
    expect(problemsOf({ DATA_DIR: tmp(), RATE_LIMIT_WRITES: "0/1m" }).join()).toMatch(/RATE_LIMIT_WRITES/);
    for (const name of ["RATE_LIMIT_LOGIN", "RATE_LIMIT_LOGIN_ACCOUNT", "RATE_LIMIT_LOGIN_ADDRESS", "RATE_LIMIT_MATCHMAKE_ADDRESS", "RATE_LIMIT_API_KEY_FAILURES"]) {
      expect(problemsOf({ DATA_DIR: tmp(), [name]: "5 per minute" }).join()).toMatch(new RegExp(`${name} must look like 30/10m`));
    }
  });

  it("reads MAX_CONNECTIONS_PER_ADDRESS as a positive integer, 200 by default", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).maxConnectionsPerAddress).toBe(200);
    expect(loadConfig({ DATA_DIR: tmp(), MAX_CONNECTIONS_PER_ADDRESS: "8" }).maxConnectionsPerAddress).toBe(8);
    for (const bad of ["0", "-1", "2.5", "many"]) expect(problemsOf({ DATA_DIR: tmp(), MAX_CONNECTIONS_PER_ADDRESS: bad }).join()).toMatch(/MAX_CONNECTIONS_PER_ADDRESS must be a positive integer/);
  });

  it("reads MAX_CLIENT_BACKLOG_BYTES as a byte count of at least 64 KiB, 1 MiB by default", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).maxClientBacklogBytes).toBe(1024 * 1024);
    expect(loadConfig({ DATA_DIR: tmp(), MAX_CLIENT_BACKLOG_BYTES: "262144" }).maxClientBacklogBytes).toBe(262144);
    for (const bad of ["0", "65535", "1.5", "1MB"]) expect(problemsOf({ DATA_DIR: tmp(), MAX_CLIENT_BACKLOG_BYTES: bad }).join()).toMatch(/MAX_CLIENT_BACKLOG_BYTES must be an integer number of bytes, at least 65536/);
  });

  it("takes METRICS_TOKEN only when it is long enough", () => {
    expect(loadConfig({ DATA_DIR: tmp(), METRICS_TOKEN: "0123456789abcdef" }).metricsToken).toBe("0123456789abcdef");
    expect(loadConfig({ DATA_DIR: tmp() }).metricsToken).toBeUndefined();
    expect(problemsOf({ DATA_DIR: tmp(), METRICS_TOKEN: "short" }).join()).toMatch(/METRICS_TOKEN must have at least 16 characters/);
  });

  it("takes PASSWORD_HASH_COST as a power of two from 1024, never below the default in production", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).passwordHashCost).toBe(16384);
    expect(loadConfig({ DATA_DIR: tmp(), PASSWORD_HASH_COST: "1024" }).passwordHashCost).toBe(1024);
    for (const bad of ["1000", "512", "lots", "2097152"]) {
      expect(problemsOf({ DATA_DIR: tmp(), PASSWORD_HASH_COST: bad }).join()).toMatch(/PASSWORD_HASH_COST must be a power of two/);
    }
    const production = { NODE_ENV: "production", DATA_DIR: tmp(), CORS_ORIGINS: "https://game.example.org", JWT_SECRET: strong };
    expect(problemsOf({ ...production, PASSWORD_HASH_COST: "8192" }).join()).toMatch(/PASSWORD_HASH_COST: at least 16384 in production/);
    expect(loadConfig({ ...production, PASSWORD_HASH_COST: "32768" }).passwordHashCost).toBe(32768);
  });

  it("names the bad variable", () => {
    expect(problemsOf({ DATA_DIR: tmp(), PORT: "eighty" }).join()).toMatch(/^PORT: /);
    expect(problemsOf({ DATA_DIR: tmp(), SAMPLE_PORT: "70000" }).join()).toMatch(/SAMPLE_PORT/);
    expect(problemsOf({ DATA_DIR: tmp(), DATABASE_URL: "mysql://x" }).join()).toMatch(/DATABASE_URL/);
    expect(problemsOf({ DATA_DIR: tmp(), JWT_TTL: "forever" }).join()).toMatch(/JWT_TTL/);
    expect(problemsOf({ DATA_DIR: tmp(), CORS_ORIGINS: "*" }).join()).toMatch(/CORS_ORIGINS/);
    expect(problemsOf({ DATA_DIR: tmp(), LOG_LEVEL: "loud" }).join()).toMatch(/LOG_LEVEL/);
    expect(problemsOf({ DATA_DIR: tmp(), COOKIE_SECURE: "maybe" }).join()).toMatch(/COOKIE_SECURE/);
    expect(problemsOf({ DATA_DIR: tmp(), MONITOR_USER: "ops" }).join()).toMatch(/MONITOR_PASSWORD/);
  });

  it("takes a strong BACKUP_KEY, refuses a weak one in any environment, and leaves it unset by default", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).backupKey).toBeUndefined();
    expect(loadConfig({ DATA_DIR: tmp(), BACKUP_KEY: strong }).backupKey).toBe(strong);
    expect(problemsOf({ DATA_DIR: tmp(), BACKUP_KEY: "short" }).join()).toMatch(/BACKUP_KEY: too weak/);
    expect(problemsOf({ DATA_DIR: tmp(), BACKUP_KEY: "change-me-backup-key-0123456789-abcdef" }).join()).toMatch(/BACKUP_KEY: too weak/);
  });

  it("refuses production without a strong JWT_SECRET and without CORS_ORIGINS", () => {
    const base = { NODE_ENV: "production", DATA_DIR: tmp(), CORS_ORIGINS: "https://game.example.org" };
    expect(problemsOf(base).join()).toMatch(/JWT_SECRET: required/);
    expect(problemsOf({ ...base, JWT_SECRET: "short" }).join()).toMatch(/JWT_SECRET: too weak/);
    expect(problemsOf({ ...base, JWT_SECRET: "your-secret-key-change-this-please-ok-1234" }).join()).toMatch(/JWT_SECRET: too weak/);
    expect(problemsOf({ ...base, JWT_SECRET: strong, CORS_ORIGINS: undefined }).join()).toMatch(/CORS_ORIGINS/);
    const c = loadConfig({ ...base, JWT_SECRET: strong });
    expect(c.cookieSecure).toBe(true);
    expect(c.corsOrigins).toEqual(["https://game.example.org"]);
  });

  it("production: a weak MONITOR_PASSWORD is refused by name; COOKIE_SECURE=false is accepted with a warning (issue 41)", () => {
    const base = { NODE_ENV: "production", DATA_DIR: tmp(), CORS_ORIGINS: "https://game.example.org", JWT_SECRET: strong, MONITOR_USER: "ops" };
    for (const weak of ["a", "monitor-pass-1", "password-password-password-password-1"]) {
      expect(problemsOf({ ...base, MONITOR_PASSWORD: weak }).join()).toMatch(/^MONITOR_PASSWORD: too weak for production/);
    }
    expect(loadConfig({ ...base, MONITOR_PASSWORD: strong }).monitorPassword).toBe(strong);
    // Development keeps accepting a short one (a laptop's monitor).
    expect(loadConfig({ DATA_DIR: tmp(), MONITOR_USER: "ops", MONITOR_PASSWORD: "a" }).monitorPassword).toBe("a");
    const monitored = { ...base, MONITOR_PASSWORD: strong };
    expect(loadConfig(monitored).warnings).toEqual([]);
    const insecure = loadConfig({ ...monitored, COOKIE_SECURE: "false" });
    expect(insecure.cookieSecure).toBe(false);
    expect(insecure.warnings).toEqual([expect.stringMatching(/^COOKIE_SECURE=false in production: .*plain http/)]);
    expect(loadConfig({ DATA_DIR: tmp(), COOKIE_SECURE: "false" }).warnings).toEqual([]);
  });

  it("parses durations", () => {
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("30m")).toBe(1800);
    expect(parseDuration("7d")).toBe(7 * 86400);
    expect(parseDuration("0")).toBeUndefined();
    expect(parseDuration("-5m")).toBeUndefined();
  });
});

describe("loadDotEnv", () => {
  it("reads .env without overriding variables already set", async () => {
    const { loadDotEnv } = await import("../../src/config.js");
    const dir = tmp();
    const file = join(dir, ".env");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, "SNAKES_DOTENV_NEW=from-file\nSNAKES_DOTENV_SET=from-file\n");
    process.env.SNAKES_DOTENV_SET = "from-env";
    loadDotEnv(file);
    expect(process.env.SNAKES_DOTENV_NEW).toBe("from-file");
    expect(process.env.SNAKES_DOTENV_SET).toBe("from-env");
    loadDotEnv(join(dir, "missing.env")); // absent file: nothing happens
  });
});
