import { describe, expect, it } from "vitest";
import { Dependencies, DEPENDENCY_LOG_INTERVAL_MS, dependencyUnavailable, isDependencyUnavailable } from "../../src/dependencies.js";
import type { Logger } from "../../src/ops/logger.js";

function recorder() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, logger: { error: at("error"), info: at("info"), warn: at("warn") } as unknown as Logger };
}

describe("dependencies (issue 29)", () => {
  it("one error line per interval with the count of failures, one info line on return, listeners run once", async () => {
    let now = 1_000_000;
    const { lines, logger } = recorder();
    const deps = new Dependencies(logger, () => now);
    deps.describe("redis", { variable: "REDIS_URL", address: "127.0.0.1:6390" });
    let returned = 0;
    deps.onRecovered("redis", () => void returned++);
    for (let i = 0; i < 500; i++) {
      deps.failed("redis", new Error("connect ECONNREFUSED 127.0.0.1:6390"));
      now += 40; // 500 failures over 20 s
    }
    expect(deps.down()).toEqual(["redis"]);
    expect(() => deps.require("redis")).toThrow(/not answering/);
    const errors = lines.filter((l) => l.level === "error");
    expect(errors.length).toBe(2);
    expect(errors[0].fields).toMatchObject({ dependency: "redis", variable: "REDIS_URL", address: "127.0.0.1:6390", failures: 1 });
    expect(errors[1].fields.failures).toBe(DEPENDENCY_LOG_INTERVAL_MS / 40);
    deps.ok("redis");
    deps.ok("redis");
    await Promise.resolve();
    await Promise.resolve();
    expect(returned).toBe(1);
    expect(lines.filter((l) => l.level === "info")).toHaveLength(1);
    expect(deps.down()).toEqual([]);
    expect(deps.isDown("database")).toBe(false);
  });

  it("the 503s carry a code, a retry delay and no driver text", () => {
    const redis = dependencyUnavailable("redis");
    const db = dependencyUnavailable("database");
    expect([redis.status, redis.code, db.code]).toEqual([503, "dependency_unavailable", "database_unavailable"]);
    expect(redis.details).toEqual({ retry_after_s: 5 });
    expect(isDependencyUnavailable(db)).toBe(true);
    expect(isDependencyUnavailable(new Error("x"))).toBe(false);
  });
});
