// Writing a backup file from a snapshot (./snapshot.ts): compressed as it is written, it appears
// under its final name only when complete and on disk (a temporary name beside it, fsync, rename).
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createGzip } from "node:zlib";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Database } from "../db/client.js";
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, ContentHash, trailerLine, type BackupHeader } from "./format.js";
import type { Snapshot } from "./snapshot.js";

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

const packageVersion = (() => {
  try {
    return (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
})();

/** Writes `snapshot` as a backup file; `started`: when the backup began (performance.now()). */
export async function writeBackup(snapshot: Snapshot, engine: Database["kind"], outFile: string, started: number): Promise<BackupSummary> {
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_FORMAT_VERSION,
    engine,
    at: snapshot.at,
    migrations: snapshot.migrations,
    tables: snapshot.tables.map(({ name, columns, types, rows }) => ({ name, columns, types, rows })),
    ...(packageVersion ? { writtenBy: packageVersion } : {}),
  };

  await mkdir(dirname(outFile), { recursive: true });
  const tmp = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.partial`);
  const fileHash = createHash("sha256");
  const content = new ContentHash();
  try {
    const gzip = createGzip({ level: 6 });
    const out = createWriteStream(tmp, { mode: 0o600 });
    gzip.on("data", (chunk: Buffer) => fileHash.update(chunk));
    gzip.pipe(out);
    const closed = once(out, "close");
    const write = async (text: string) => {
      if (!gzip.write(text)) await once(gzip, "drain");
    };
    const line = async (text: string) => {
      content.update(text);
      await write(`${text}\n`);
    };
    await line(JSON.stringify(header));
    for (const table of snapshot.tables) {
      if (table.rows === 0) continue;
      // One aggregated string per table: hashed and written whole, its lines are the file's lines.
      content.update(table.lines);
      await write(`${table.lines}\n`);
      table.lines = ""; // let the memory go as soon as it is compressed
    }
    gzip.end(`${trailerLine(content.digest())}\n`);
    await closed;
    const handle = await open(tmp, "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, outFile);
    await syncDir(dirname(outFile));
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  const bytes = (await stat(outFile)).size;
  return {
    file: outFile,
    bytes,
    at: snapshot.at,
    engine,
    migration: snapshot.migrations.at(-1) ?? "",
    rows: Object.fromEntries(snapshot.tables.map((t) => [t.name, t.rows])),
    sha256: fileHash.digest("hex"),
    ms: Math.round(performance.now() - started),
    snapshotMs: Math.round(snapshot.heldMs),
  };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    /* some file systems cannot sync a folder; the rename is still atomic */
  } finally {
    await handle.close();
  }
}
