import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { acquireDataDirLock, DatabaseInUseError } from "../../src/db/lock.js";

describe("embedded database lock", () => {
  it("is exclusive while held and released on close", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "snakes-lock-")), "pglite");
    const release = acquireDataDirLock(dir);
    expect(existsSync(`${dir}.lock`)).toBe(true);
    release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    acquireDataDirLock(dir)();
  });

  it("refuses while another live process holds it, and takes over a stale lock", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "snakes-lock-")), "pglite");
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)"]);
    try {
      writeFileSync(`${dir}.lock`, String(other.pid));
      expect(() => acquireDataDirLock(dir)).toThrow(DatabaseInUseError);
      expect(() => acquireDataDirLock(dir)).toThrow(/in use by another process \(pid \d+\)/);
    } finally {
      other.kill();
      await new Promise((r) => other.once("exit", r));
    }
    acquireDataDirLock(dir)(); // its process is gone: stale
  });
});
