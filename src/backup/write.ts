// Writing a backup file from a snapshot (./snapshot.ts), a chunk of rows read and written at a
// time: compressed as it is written into a hidden temporary file of its own (opened exclusively,
// 0600), synced, then published under its final name with link(2), which never replaces a file
// (./target.ts says where a backup may land). Every failure of any stream in the chain (ENOSPC,
// EROFS, a closed descriptor) rejects the write, and the temporary file is removed before it does.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, open, rename, rm, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, join } from "node:path";
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createGzip } from "node:zlib";
import type { Database } from "../db/client.js";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, ContentHash, trailerLine, type BackupHeader } from "./format.js";
import type { Snapshot } from "./snapshot.js";
import { backupFileName, BackupTargetRefusal, PARTIAL, partialFiles, targetFolder, type BackupTarget } from "./target.js";

export interface BackupSummary {
  /** Absolute path of the file written. */
  file: string;
  bytes: number;
  /** ISO instant the snapshot represents. */
  at: string;
  engine: "pglite" | "postgres";
  /** The last migration applied to the database backed up. */
  migration: string;
  /** Rows per table. */
  rows: Record<string, number>;
  /** sha256 of the file as written (what `sha256sum FILE` prints), to check a copy. */
  sha256: string;
  /** The whole backup, ms. */
  ms: number;
  /** How long the database was held for the snapshot, ms: on the embedded database, the pause its other queries saw. */
  snapshotMs: number;
  /** The embedded database: the peak memory of the process that read the copy (Linux), MB. */
  readerPeakRssMb?: number;
}

/** What writing gives; the caller adds the times. */
export type WrittenBackup = Omit<BackupSummary, "ms" | "snapshotMs" | "readerPeakRssMb">;

const packageVersion = (() => {
  try {
    return (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
})();

/** Folders a backup creates: only the server's user may list them (the files are 0600 too). */
export const BACKUP_FOLDER_MODE = 0o700;

/**
 * A failure injected where the file is opened or written (tests: a full or read-only disk without
 * root; see injectBackupWriteFault). Returns the error to fail with, or undefined to go on.
 */
export type BackupWriteFault = (at: { phase: "open" | "write"; bytes: number; file: string }) => NodeJS.ErrnoException | undefined;
let fault: BackupWriteFault | undefined;

/** Tests only: makes this process's backup writes fail as `f` says (undefined: no more faults). */
export function injectBackupWriteFault(f: BackupWriteFault | undefined): void {
  fault = f;
}

/** Temporary files this process is writing now: a sweep never takes them. */
const writing = new Set<string>();

/** Writes `snapshot` to `target`; call it inside the snapshot's use (the rows are read as they are written). */
export async function writeBackupFile(snapshot: Snapshot, engine: Database["kind"], target: BackupTarget): Promise<WrittenBackup> {
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_FORMAT_VERSION,
    engine,
    at: snapshot.at,
    migrations: snapshot.migrations,
    tables: snapshot.tables,
    ...(packageVersion ? { writtenBy: packageVersion } : {}),
  };
  const folder = targetFolder(target);
  await mkdir(folder, { recursive: true, mode: BACKUP_FOLDER_MODE });
  const base = "file" in target ? basename(target.file) : backupFileName(new Date(snapshot.at), target.suffix);
  const tmp = join(folder, `.${base}.${process.pid}.${randomBytes(4).toString("hex")}.partial`);
  writing.add(tmp);
  let handle: FileHandle | undefined;
  try {
    const opening = fault?.({ phase: "open", bytes: 0, file: tmp });
    if (opening) throw opening;
    handle = await open(tmp, "wx", 0o600);
    const fileHash = createHash("sha256");
    const content = new ContentHash();
    async function* text(): AsyncGenerator<string> {
      const first = JSON.stringify(header);
      content.update(first);
      yield `${first}\n`;
      for (const table of snapshot.tables) {
        if (table.rows === 0) continue;
        // A chunk of lines joined by newlines: hashed and written as its lines would be.
        for await (const chunk of snapshot.rows(table)) {
          content.update(chunk);
          yield `${chunk}\n`;
        }
      }
      yield `${trailerLine(content.digest())}\n`;
    }
    let bytes = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        const failure = fault?.({ phase: "write", bytes, file: tmp });
        if (failure) return done(failure);
        fileHash.update(chunk);
        done(null, chunk);
      },
    });
    // pipeline: an error anywhere (the disk's, the reader's) destroys every stream and rejects here.
    // The write stream closes the descriptor when it ends or fails (pipeline waits for that close).
    const sink = handle.createWriteStream() as Writable;
    handle = undefined;
    await pipeline(Readable.from(text(), { objectMode: false }), createGzip({ level: 6 }), hashing, sink);
    const synced = await open(tmp, "r+");
    try {
      await synced.sync();
    } finally {
      await synced.close();
    }
    const file = await publish(tmp, target, snapshot.at);
    await syncDir(folder);
    return {
      file,
      bytes: (await stat(file)).size,
      at: snapshot.at,
      engine,
      migration: snapshot.migrations.at(-1) ?? "",
      rows: Object.fromEntries(snapshot.tables.map((t) => [t.name, t.rows])),
      sha256: fileHash.digest("hex"),
    };
  } catch (err) {
    await handle?.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  } finally {
    writing.delete(tmp);
  }
}

/** Gives the complete temporary file its final name; never over an existing file (but --force's). */
async function publish(tmp: string, target: BackupTarget, at: string): Promise<string> {
  if ("file" in target) {
    if (target.force) {
      await rename(tmp, target.file); // the operator's --force over a regular file (./target.ts checked it)
      return target.file;
    }
    try {
      await linkExclusively(tmp, target.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      throw new BackupTargetRefusal(`--out ${target.file} already exists (it appeared while the backup was written): name a new file, or add --force to replace it`);
    }
    return target.file;
  }
  for (let n = 1; n <= 1000; n++) {
    const file = join(target.folder, backupFileName(new Date(at), target.suffix, n));
    try {
      await linkExclusively(tmp, file);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`${target.folder}: a thousand backups already carry this second's name`);
}

/** Names `tmp` `file` unless `file` exists (EEXIST), then removes `tmp`'s own name. */
async function linkExclusively(tmp: string, file: string): Promise<void> {
  try {
    await link(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || !(code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS")) throw err;
    // A file system without hard links: the name is claimed exclusively, then the file renamed onto its own claim.
    const claim = await open(file, "wx", 0o600);
    await claim.close();
    await rename(tmp, file);
    return;
  }
  await unlink(tmp);
}

/** Whether process `pid` is alive (a partial it is writing must stay). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the temporary files backups left in `folder` (a failure, a kill -9): all but those a live
 * process is writing now. Run at every start and after every failure; returns the names removed.
 */
export async function sweepPartials(folder: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of partialFiles(folder)) {
    const path = join(folder, name);
    const pid = Number(PARTIAL.exec(name)![1]);
    if (writing.has(path) || (pid !== process.pid && alive(pid))) continue;
    await rm(path, { force: true }).catch(() => {});
    removed.push(name);
  }
  return removed;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    /* some file systems cannot sync a folder; the link is still atomic */
  } finally {
    await handle.close();
  }
}
