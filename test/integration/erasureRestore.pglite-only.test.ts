// Issue 42: `admin restore` of a backup taken before an erasure never brings the erased account back,
// and the erasure records of the database it replaced survive the restore. All through the operator's
// commands, in-process, on an embedded DATA_DIR (no server running, so the commands open it themselves).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runAdmin } from "../../src/admin/main.js";
import { openDatabase } from "../../src/db/client.js";
import { migratedDataDir } from "../helpers/process.js";

vi.setConfig({ testTimeout: 120_000 });

async function admin(args: string[], dataDir: string) {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: { NODE_ENV: "development", PASSWORD_HASH_COST: "1024", LOG_LEVEL: "warn", DATA_DIR: dataDir }, out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stderr, lines: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
}

describe("erasures survive a restore (issue 42)", () => {
  it("back up, erase, restore the older backup: the erased student stays gone, its erasure record is kept, the others are back", async () => {
    const dataDir = await migratedDataDir("snakes-erasure-restore-");
    const made = async (username: string) => {
      const created = await admin(["create-account", "--username", username, "--role", "teacher"], dataDir);
      expect(created.code, created.stderr).toBe(0);
      expect((await admin(["set-role", "--username", username, "--role", "student"], dataDir)).code).toBe(0);
      return created.lines[0].id as number;
    };
    const erasedId = await made("erased_kid");
    const keptId = await made("kept_kid");
    const file = join(mkdtempSync(join(tmpdir(), "snakes-erasure-backups-")), "before.jsonl.gz");
    const backup = await admin(["backup", "--out", file], dataDir);
    expect(backup.code, backup.stderr).toBe(0);
    // The audit log and the erasures are in backups like every table.
    expect(Object.keys(backup.lines[0].rows)).toEqual(expect.arrayContaining(["audit_log", "erasures"]));

    expect((await admin(["erase-account", "--username", "erased_kid"], dataDir)).code).toBe(2); // --yes is required
    const erased = await admin(["erase-account", "--username", "erased_kid", "--yes"], dataDir);
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.lines[0].erased.id).toBe(erasedId);

    const restored = await admin(["restore", file], dataDir);
    expect(restored.code, restored.stderr).toBe(0);

    const found = await admin(["find-account", "--name", "_kid"], dataDir);
    expect(found.lines.map((a) => a.username)).toEqual(["kept_kid"]);
    expect((await admin(["export-account", "--id", String(erasedId)], dataDir)).code).toBe(1);
    // The backup's audit entries about the erased account (its creation, its role change) keep its id only.
    const audit = await admin(["audit", "--target", String(erasedId)], dataDir);
    expect(audit.lines.length).toBeGreaterThan(0);
    expect(audit.lines.every((e) => e.target.id === erasedId && e.target.name === null)).toBe(true);
    expect(JSON.stringify(audit.lines)).not.toContain("erased_kid");

    const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
    try {
      expect(await db.prisma.erasure.findMany({ select: { userId: true } })).toEqual([{ userId: erasedId }]);
      expect(await db.prisma.user.findUnique({ where: { id: keptId }, select: { username: true } })).toEqual({ username: "kept_kid" });
      // A new account never takes the erased one's id.
      const next = await db.prisma.user.create({ data: { username: "after_restore", passwordHash: "x" } });
      expect(next.id).toBeGreaterThan(erasedId);
    } finally {
      await db.close();
    }
  });
});
