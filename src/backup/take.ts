// Taking a backup: the snapshot (./snapshot.ts) is read first, which is all the database is held
// for; the file (./write.ts) is compressed and written afterwards, off the database's time. The
// embedded database in a folder does both in a process of its own (./embedded.ts).
import type { Database } from "../db/client.js";
import { takeEmbeddedBackup } from "./embedded.js";
import { readSnapshot } from "./snapshot.js";
import { writeBackup, type BackupSummary } from "./write.js";

export type { BackupSummary } from "./write.js";

export interface TakeOptions {
  /**
   * Whether anything else uses the database meanwhile (default true). The embedded database in a
   * folder is then copied at one instant and read by a process of its own (./embedded.ts), so that
   * the server's queries hardly wait; before a start serves (the backup before a migration) nothing
   * waits, and it is read here, faster and without a second PGlite.
   */
  serving?: boolean;
}

/** Writes a backup of `db` to `outFile` (its folder is created when missing). PostgreSQL is read here. */
export async function takeBackup(db: Database, outFile: string, { serving = true }: TakeOptions = {}): Promise<BackupSummary> {
  if (serving && db.kind === "pglite" && db.pglite && db.dataDir) return takeEmbeddedBackup(db.pglite, db.dataDir, outFile);
  const started = performance.now();
  return writeBackup(await readSnapshot(db), db.kind, outFile, started);
}

