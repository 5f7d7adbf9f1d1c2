// A copy of the embedded database's folder as it is at one instant, made while the server serves
// (./embedded.ts reads the backup from it in a process of its own). PGlite has one connection,
// and whatever reads the database holds it: reading 10,000 accounts inside the server held every
// query for 0.7-2.7 s. Copying files is cheaper, and most of the copy needs no hold at all:
//   1. copy every file while the server goes on writing (a copy that is not consistent yet), noting
//      each file's size and modification time as it was before its copy;
//   2. then, with the database held (no statement runs, so no file changes), copy again only the
//      files that changed since: the WAL segment being written, the tables and indexes written
//      meanwhile. The result is the folder as a crash would have left it at that instant: every
//      acknowledged commit is in its WAL, and PGlite recovers it on opening, as after a kill -9.
// A modification time is coarse (a few ms on Linux), so a file written within SLACK_MS before its
// first copy counts as changed too.
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { copyFile, mkdir, readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";

/** Files a copy leaves out: the live server's process mark (the copy is opened by another process). */
const LEFT_OUT = new Set(["postmaster.pid"]);

/** A file written this long before its first copy is copied again under the hold (timestamp granularity). */
export const SLACK_MS = 2000;

/** Each file as step 1 saw it, by path relative to the folder: size and modification time, read when (`at`). */
export type Manifest = Map<string, { size: number; mtimeMs: number; at: number }>;

/** Step 1: copies `from` into `to` (which must not exist) while the database is in use. */
export async function copyWhileServing(from: string, to: string): Promise<Manifest> {
  const manifest: Manifest = new Map();
  const walk = async (dir: string): Promise<void> => {
    await mkdir(join(to, relative(from, dir)), { recursive: true });
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !LEFT_OUT.has(entry.name)) {
        const at = Date.now();
        const before = await stat(path);
        const rel = relative(from, path);
        await copyFile(path, join(to, rel));
        manifest.set(rel, { size: before.size, mtimeMs: before.mtimeMs, at });
      }
    }
  };
  await walk(from);
  return manifest;
}

/**
 * Step 2, to be run while nothing writes to `from`: makes `to` equal to `from` by copying the files
 * that changed since step 1 (or that step 1 did not see) and removing those that are gone.
 * Synchronous: the hold lasts exactly as long as this. Returns what it copied.
 */
export function catchUp(from: string, to: string, manifest: Manifest): { files: number; bytes: number } {
  const copied = { files: 0, bytes: 0 };
  const present = new Set<string>();
  const walk = (dir: string) => {
    mkdirSync(join(to, relative(from, dir)), { recursive: true });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !LEFT_OUT.has(entry.name)) {
        const rel = relative(from, path);
        present.add(rel);
        const now = statSync(path);
        const seen = manifest.get(rel);
        // Unchanged, and last written well before step 1 looked: a later write would show in its time.
        if (seen && seen.size === now.size && seen.mtimeMs === now.mtimeMs && now.mtimeMs < seen.at - SLACK_MS) continue;
        copyFileSync(path, join(to, rel));
        copied.files++;
        copied.bytes += now.size;
      }
    }
  };
  walk(from);
  for (const rel of manifest.keys()) if (!present.has(rel)) rmSync(join(to, rel), { force: true });
  return copied;
}

