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
import { mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { EMBEDDED_SETTINGS } from "../db/client.js";
import { copies } from "../db/prepareEmbedded.js";
import { ChildFailure, peakRssMb, runChild } from "../process/child.js";
import { readPgliteSnapshot } from "./snapshot.js";
import { catchUp, copyWhileServing } from "./stage.js";
import { writeBackup, type BackupSummary } from "./write.js";

const self = fileURLToPath(import.meta.url);

/** The backup running in this process: the next one starts after it. */
let running: Promise<unknown> = Promise.resolve();

/** Backs up the embedded database in `folder` (open as `pglite` in this process) to `outFile`. */
export function takeEmbeddedBackup(pglite: PGlite, folder: string, outFile: string): Promise<BackupSummary> {
  const next = running.then(() => backupOnce(pglite, folder, outFile));
  running = next.catch(() => {});
  return next;
}

async function backupOnce(pglite: PGlite, folder: string, outFile: string): Promise<BackupSummary> {
  const started = performance.now();
  await mkdir(dirname(outFile), { recursive: true });
  const stage = copies(folder).backup;
  await rm(stage, { recursive: true, force: true });
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
    const summary = await backupInChild(stage, outFile, at, heldMs);
    return { ...summary, ms: Math.round(performance.now() - started) };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Runs this file as a script on the copy; resolves with its summary. */
async function backupInChild(stage: string, outFile: string, at: string, heldMs: number): Promise<BackupSummary> {
  try {
    return await runChild<BackupSummary>(self, [stage, outFile, at, String(heldMs)]);
  } catch (err) {
    if (!(err instanceof ChildFailure)) throw err;
    throw new Error(`the backup's reading process failed (exit ${err.status}): ${err.output.split("\n").slice(0, 5).join(" ")}`);
  }
}

if (process.argv[1] === self) {
  process.on("disconnect", () => process.exit(1));
  const [stage, outFile, at, heldMs] = process.argv.slice(2);
  try {
    setPriority(10); // the server first: this work may take longer, players do not wait for it
  } catch {
    /* not allowed here: runs at the server's priority */
  }
  const started = performance.now();
  // PGlite alone (no Prisma): the least memory beside the server's (the copy is private: no lock).
  const pglite = await PGlite.create(stage, { startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])] });
  try {
    const snapshot = await readPgliteSnapshot(pglite);
    // The instant is the hold's, not this read's (the copy has not changed since).
    const summary = await writeBackup({ ...snapshot, at, heldMs: Number(heldMs) }, "pglite", outFile, started);
    process.stdout.write(`${JSON.stringify({ ...summary, readerPeakRssMb: peakRssMb() })}\n`);
  } finally {
    await pglite.close();
  }
  process.exit(0);
}
