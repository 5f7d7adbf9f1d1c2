// Backups and restores of the whole database, on either engine (issue 34). The public entry:
//   takeBackup(db, outFile)            one file, the database at one instant, while it serves
//   verifyBackup(file)                 the file checked whole; BackupFileError (one line) if not usable
//   restoreBackup(file, target, opts)  into DATA_DIR or DATABASE_URL, migrated to this build's latest
// The file format is ./format.ts; why it is a logical copy in PostgreSQL's own JSON: docs/backups.md.
import { basename, dirname, join, resolve } from "node:path";

export { takeBackup, type BackupSummary } from "./take.js";
export { backupFileName, checkBackupTarget, BackupTargetRefusal, type BackupTarget } from "./target.js";
export { sweepPartials } from "./write.js";
export { verifyBackup, restoreBackup, RestoreRefusal, type RestoreTarget, type RestoreOptions, type RestoreSummary } from "./restore.js";
export { useBackupKey } from "./format.js";
export { BackupFileError, BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BACKUP_EXTENSION, type BackupHeader, type BackupTable } from "./format.js";

/**
 * Where backups go unless told otherwise: BACKUP_DIR, else a folder beside DATA_DIR named after it
 * (./data → ./data-backups). Never inside DATA_DIR: a backup must survive the loss of that folder,
 * and a restore replaces what is in it.
 */
export function defaultBackupDir(config: { dataDir: string; backupDir?: string }): string {
  if (config.backupDir) return resolve(config.backupDir);
  const dataDir = resolve(config.dataDir);
  return join(dirname(dataDir), `${basename(dataDir)}-backups`);
}

