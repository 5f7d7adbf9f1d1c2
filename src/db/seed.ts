// The embedded database's seed (scripts/build-pglite-seed.mjs, run on `npm install`): the folder
// PGlite's initdb makes, as a tar (uncompressed: unpacked a megabyte at a time, it never sits in memory whole). A first start unpacks it instead of running initdb, which
// needs ~600 MB of memory (docs/operations.md#memory); unpacking and migrating it needs ~170 MB.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The seed of the installed PGlite version, when `npm install` built it. */
export function seedFile(): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(projectRoot, "node_modules/@electric-sql/pglite/package.json"), "utf8")) as { version: string };
    const file = join(projectRoot, "node_modules", ".cache", "snakes-game", `pglite-seed-${version}.tar`);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** PostgreSQL's own lock file: meaningless in a copy (PGlite is one process, and DATA_DIR's lock is ours). */
const SKIPPED = new Set(["postmaster.pid"]);

/** Unpacks the seed (a ustar archive of regular files and folders, as PGlite's dumpDataDir writes it) into `dir`, a megabyte at a time. */
export function unpackSeed(file: string, dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tar = openSync(file, "r");
  const header = Buffer.alloc(512);
  const chunk = Buffer.alloc(1024 * 1024);
  try {
    for (let at = 0; readSync(tar, header, 0, 512, at) === 512; ) {
      if (header.every((b) => b === 0)) break; // the end: two empty records
      const field = (from: number, length: number) => header.subarray(from, from + length).toString("latin1").replace(/\0.*$/s, "");
      const prefix = field(345, 155);
      const name = normalize((prefix ? `${prefix}/` : "") + field(0, 100)).replace(/^\/+/, "");
      const size = parseInt(field(124, 12).trim() || "0", 8);
      const type = field(156, 1) || "0";
      at += 512;
      if (name.startsWith("..")) throw new Error(`the seed ${file} holds a path outside its folder: ${name}`);
      const path = join(dir, name);
      if (type === "5") mkdirSync(path, { recursive: true, mode: 0o700 });
      else if (type === "0" && !SKIPPED.has(name)) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        const out = openSync(path, "w", 0o600);
        try {
          for (let done = 0; done < size; ) {
            const n = readSync(tar, chunk, 0, Math.min(chunk.length, size - done), at + done);
            if (n === 0) throw new Error(`the seed ${file} is cut short`);
            writeSync(out, chunk, 0, n);
            done += n;
          }
        } finally {
          closeSync(out);
        }
      }
      at += Math.ceil(size / 512) * 512;
    }
  } finally {
    closeSync(tar);
  }
}
