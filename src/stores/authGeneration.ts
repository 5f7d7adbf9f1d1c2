// The database's authentication generation (auth_generation: one row, or none before any restore).
// Read here for the session checks (src/auth/sessions.ts); written only by a restore
// (src/backup/restore.ts), which replaces it with a fresh random value after loading a backup.
import type { PrismaClient } from "../db/client.js";

/** The current generation: "" when the database was never restored. */
export async function readAuthGeneration(prisma: PrismaClient): Promise<string> {
  const row = await prisma.authGeneration.findUnique({ where: { id: 1 }, select: { generation: true } });
  return row?.generation ?? "";
}
