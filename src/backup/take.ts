// Taking a backup: the snapshot (./snapshot.ts) is read first, which is all the database is held
// for; the file (./write.ts) is compressed and written afterwards, off the database's time. The
// embedded database in a folder does both in a process of its own (./embedded.ts).
import type { Database } from "../db/client.js";
import { takeEmbeddedBackup } from "./embedded.js";
import { readSnapshot } from "./snapshot.js";
import { writeBackup, type BackupSummary } from "./write.js";

export type { BackupSummary } from "./write.js";

/**
 * Writes a backup of `db` to `outFile` (its folder is created when missing). The embedded database
 * in a folder is copied at one instant and read by a process of its own (./embedded.ts); PostgreSQL
 * (and an in-memory PGlite) is read here.
 */
export async function takeBackup(db: Database, outFile: string): Promise<BackupSummary> {
  if (db.kind === "pglite" && db.pglite && db.dataDir) return takeEmbeddedBackup(db.pglite, db.dataDir, outFile);
  const started = performance.now();
  return writeBackup(await readSnapshot(db), db.kind, outFile, started);
}

