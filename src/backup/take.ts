// Taking a backup: the snapshot (./snapshot.ts) is read a chunk at a time and each chunk compressed
// and written (./write.ts) before the next is read, so memory stays flat whatever the data's size.
// The embedded database in a folder does it in a process of its own (./embedded.ts) on a copy made
// at one instant, so the server's queries hardly wait.
import type { Database } from "../db/client.js";
import { takeEmbeddedBackup } from "./embedded.js";
import { withSnapshot } from "./snapshot.js";
import type { BackupTarget } from "./target.js";
import { sweepPartials, writeBackupFile, type BackupSummary } from "./write.js";
import { targetFolder } from "./target.js";

export type { BackupSummary } from "./write.js";

export interface TakeOptions {
  /**
   * Whether anything else uses the database meanwhile (default true). The embedded database in a
   * folder is then copied at one instant and read by a process of its own (./embedded.ts); before a
   * start serves (the backup before a migration) nothing waits, and it is read here, streaming.
   */
  serving?: boolean;
}

/**
 * Writes a backup of `db` to `target` (a file, or a new name in a folder; created 0700 when
 * missing). A failure leaves no temporary file behind (nor any that a dead writer left there).
 */
export async function takeBackup(db: Database, target: BackupTarget | string, { serving = true }: TakeOptions = {}): Promise<BackupSummary> {
  const to: BackupTarget = typeof target === "string" ? { file: target } : target;
  try {
    if (serving && db.kind === "pglite" && db.pglite && db.dataDir) return await takeEmbeddedBackup(db.pglite, db.dataDir, to);
    const started = performance.now();
    // An in-memory database that serves is read whole under a short hold (PgliteReadMode); all else streams.
    const mode = serving && db.kind === "pglite" ? "buffered" : "streaming";
    const { value, heldMs } = await withSnapshot(db, (snapshot) => writeBackupFile(snapshot, db.kind, to), mode);
    return { ...value, ms: Math.round(performance.now() - started), snapshotMs: Math.round(heldMs) };
  } catch (err) {
    await sweepPartials(targetFolder(to)).catch(() => {});
    throw err;
  }
}
