import { describe, expect, it } from "vitest";
import { isStorageFull, StorageHealth, STORAGE_FULL_LOG_INTERVAL_MS, STORAGE_FULL_RECENT_MS } from "../../src/process/storageHealth.js";
import type { Logger } from "../../src/ops/logger.js";

function recorder() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, logger: { error: at("error"), info: at("info"), warn: at("warn") } as unknown as Logger };
}

// What Prisma throws on the embedded database when a write cannot extend a file (seen on a full tmpfs).
const prismaDiskFull = Object.assign(new Error("Invalid `prisma.gameProgress.upsert()` invocation:\n\nDatabase error. Code: `53100`."), {
  name: "PrismaClientKnownRequestError",
  code: "P2039",
  meta: { driverAdapterError: { name: "DriverAdapterError", cause: { originalCode: "53100", code: "53100", message: 'could not extend file "base/5/16414": No space left on device' } } },
});

describe("storage full (issue 24)", () => {
  it("recognises PostgreSQL's disk_full and ENOSPC, and nothing else", () => {
    expect(isStorageFull(prismaDiskFull)).toBe(true);
    expect(isStorageFull(Object.assign(new Error("write failed"), { code: "ENOSPC" }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error("raw"), { name: "PrismaClientKnownRequestError", code: "P2010", meta: { code: "53100" } }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error("unique"), { code: "P2002", meta: { driverAdapterError: { cause: { code: "23505" } } } }))).toBe(false);
    expect(isStorageFull(new Error("boom"))).toBe(false);
    expect(isStorageFull(undefined)).toBe(false);
  });

  it("logs one error line per interval with the count of refused writes; ready again once not full", () => {
    let now = 1_000_000;
    let full = true;
    const { lines, logger } = recorder();
    const health = new StorageHealth(logger, "DATA_DIR /data", () => full, () => now);
    expect(health.writable()).toBe(true);
    for (let i = 0; i < 500; i++) {
      health.refused(prismaDiskFull);
      now += 10; // 500 refusals in 5 s
    }
    expect(lines.filter((l) => l.level === "error")).toHaveLength(1);
    expect(lines[0].fields).toMatchObject({ storage: "DATA_DIR /data", refused_writes: 1 });
    expect(lines[0].fields.cause).toMatch(/53100/);
    now += STORAGE_FULL_LOG_INTERVAL_MS;
    health.refused(prismaDiskFull);
    expect(lines.filter((l) => l.level === "error")).toHaveLength(2);
    expect(lines[1].fields.refused_writes).toBe(500); // the 499 held back, and this one
    expect(health.writable()).toBe(false); // a refusal just now
    now += STORAGE_FULL_RECENT_MS;
    expect(health.writable()).toBe(false); // still full by its own measure
    full = false;
    expect(health.writable()).toBe(true);
    expect(lines.at(-1)).toMatchObject({ level: "info", msg: "storage writable again: writes resume", fields: { refused_writes: 501 } });
    health.refused(prismaDiskFull); // full again: a line at once
    expect(lines.filter((l) => l.level === "error")).toHaveLength(3);
  });
});
