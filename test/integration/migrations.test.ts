import { describe, expect, it } from "vitest";
import { applyMigrations, applyPendingMigrations, hasPendingMigrations, listMigrations } from "../../src/db/migrate.js";
import { openDatabase } from "../../src/db/client.js";
import { freshDatabase } from "../helpers/app.js";

describe("migrations", () => {
  it("records every migration in _prisma_migrations like `prisma migrate deploy`, and re-applying is a no-op", async () => {
    const { db, drop } = await freshDatabase();
    try {
      const rows = await db.prisma.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
        SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name`;
      const names = (await listMigrations()).migrationDirectories.map((m) => m.path);
      expect(rows.map((r) => r.migration_name)).toEqual(names);
      expect(rows.every((r) => r.finished_at !== null)).toBe(true);
      expect(await applyMigrations(db.adapterFactory)).toEqual([]);
    } finally {
      await db.close();
      await drop();
    }
  });

  it("knows when migrations are pending, and applyPendingMigrations applies only then", async () => {
    const { db, drop } = await freshDatabase();
    try {
      expect(await hasPendingMigrations(db.prisma)).toBe(false);
      expect(await applyPendingMigrations(db)).toEqual([]);
    } finally {
      await db.close();
      await drop();
    }
    const empty = await openDatabase({ pgliteDataDir: "memory://" });
    try {
      expect(await hasPendingMigrations(empty.prisma)).toBe(true);
      const names = (await listMigrations()).migrationDirectories.map((m) => m.path);
      expect(await applyPendingMigrations(empty)).toEqual(names);
      expect(await hasPendingMigrations(empty.prisma)).toBe(false);
    } finally {
      await empty.close();
    }
  });
});
