// A backup of the embedded database while the server serves. PGlite runs in the server's thread on
// one connection, so reading the database there holds every query of the server (and JSON and gzip
// of the rows take the same core): 10,000 accounts paused writes for 1.5 s. Instead:
//   - the folder is copied at one instant (./stage.ts): everything while serving, then, with the
//     database held, only what changed meanwhile (the hold: tens of ms);
//   - a child process (this file run as a script, at the lowest CPU priority) opens that copy with
//     PGlite of its own, which recovers it as after a crash, reads it (./snapshot.ts) and writes the
//     file (./write.ts); the server's thread does none of that work.
// The copy lies beside the database's folder (DATA_DIR/pglite.backup: the same disk, so copying is
// cheap; it needs as much free space as the folder) and is removed afterwards, or by the next start
// if the process dies meanwhile. One backup at a time per process (a scheduled one and the
// operator's share the copy's place): the second waits for the first.
import { setPriority } from "node:os";
import { mkdir, readdir, rm, stat, statfs } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { EMBEDDED_SETTINGS } from "../db/client.js";
import { copies } from "../db/prepareEmbedded.js";
import { ChildFailure, peakRssMb, runChild } from "../process/child.js";
import { withPgliteSnapshot } from "./snapshot.js";
import { catchUp, copyWhileServing } from "./stage.js";
import { targetFolder, type BackupTarget } from "./target.js";
import { BACKUP_FOLDER_MODE, writeBackupFile, type BackupSummary } from "./write.js";

const self = fileURLToPath(import.meta.url);

/** The backup running in this process: the next one starts after it. */
let running: Promise<unknown> = Promise.resolve();

/** Backs up the embedded database in `folder` (open as `pglite` in this process) to `target`. */
export function takeEmbeddedBackup(pglite: PGlite, folder: string, target: BackupTarget): Promise<BackupSummary> {
  const next = running.then(() => backupOnce(pglite, folder, target));
  running = next.catch(() => {});
  return next;
}

/** Free space the copy leaves at least, beyond its own size: the database goes on writing meanwhile. */
export const COPY_MARGIN_BYTES = 64 * 1024 * 1024;

/** The copy needs room beside the folder: refused in one line rather than filling the database's disk. */
export class BackupSpaceError extends Error {
  override name = "BackupSpaceError";
}

/** Bytes of the files under `dir`. */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/** Refuses (BackupSpaceError) when the copy of `folder` would leave less than COPY_MARGIN_BYTES free on its disk. */
export async function checkRoomForCopy(folder: string, freeBytes?: number): Promise<void> {
  const needed = (await folderBytes(folder)) + COPY_MARGIN_BYTES;
  const fs = freeBytes === undefined ? await statfs(dirname(folder)) : undefined;
  const free = freeBytes ?? fs!.bavail * fs!.bsize;
  if (free < needed) {
    const mb = (n: number) => Math.round(n / 1024 / 1024);
    throw new BackupSpaceError(
      `not enough free space beside ${folder} for the backup's copy of the database: it needs ${mb(needed)} MB (the folder and ${mb(COPY_MARGIN_BYTES)} MB to spare), ${mb(free)} MB are free; nothing was copied: make room on that disk`,
    );
  }
}

async function backupOnce(pglite: PGlite, folder: string, target: BackupTarget): Promise<BackupSummary> {
  const started = performance.now();
  // A folder that cannot be made fails the backup at once, before any copying.
  await mkdir(targetFolder(target), { recursive: true, mode: BACKUP_FOLDER_MODE });
  const stage = copies(folder).backup;
  await rm(stage, { recursive: true, force: true });
  await checkRoomForCopy(folder);
  try {
    const manifest = await copyWhileServing(folder, stage);
    let at = "";
    let heldMs = 0;
    // A transaction of its own holds PGlite: no other statement runs until it ends, so no file of
    // the folder changes while the changed ones are copied again.
    await pglite.transaction(async () => {
      const holding = performance.now();
      catchUp(folder, stage, manifest);
      at = new Date().toISOString();
      heldMs = performance.now() - holding;
    });
    const summary = await backupInChild(stage, target, at, heldMs);
    return { ...summary, ms: Math.round(performance.now() - started) };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Runs this file as a script on the copy; resolves with its summary. */
async function backupInChild(stage: string, target: BackupTarget, at: string, heldMs: number): Promise<BackupSummary> {
  try {
    return await runChild<BackupSummary>(self, [stage, JSON.stringify(target), at, String(heldMs)]);
  } catch (err) {
    if (!(err instanceof ChildFailure)) throw err;
    // The child's own one line when it could say why (a full disk); else the start of what it printed (a kill).
    const reason = /^backup failed: (.*)$/m.exec(err.output)?.[1] ?? err.output.split("\n").slice(0, 5).join(" ");
    throw new Error(`the backup's reading process failed (exit ${err.status}): ${reason || "no output (killed?)"}`);
  }
}

if (process.argv[1] === self) {
  process.on("disconnect", () => process.exit(1));
  const [stage, target, at, heldMs] = process.argv.slice(2);
  try {
    setPriority(10); // the server first: this work may take longer, players do not wait for it
  } catch {
    /* not allowed here: runs at the server's priority */
  }
  const started = performance.now();
  // PGlite alone (no Prisma): the least memory beside the server's (the copy is private: no lock).
  const pglite = await PGlite.create(stage, { startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])] });
  try {
    // Streaming: a chunk read, a chunk written (the copy is private: holding it costs no one).
    // The instant is the hold's, not this read's (the copy has not changed since).
    const { value } = await withPgliteSnapshot(pglite, (snapshot) => writeBackupFile({ ...snapshot, at }, "pglite", JSON.parse(target) as BackupTarget), "streaming");
    const summary: BackupSummary = { ...value, ms: Math.round(performance.now() - started), snapshotMs: Math.round(Number(heldMs)), readerPeakRssMb: peakRssMb() };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } catch (err) {
    process.stderr.write(`backup failed: ${(err as Error)?.message ?? String(err)}\n`);
    process.exit(1);
  } finally {
    await pglite.close().catch(() => {});
  }
  process.exit(0);
}
