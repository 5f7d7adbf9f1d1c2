// Creating the embedded database (initdb) and applying migrations to it load two large Wasm
// programs, PGlite's initdb and Prisma's schema engine, whose memory a process never gets back.
// The server therefore has them done by a short-lived child process (this file run as a script)
// when there is anything to do, and opens the database afterwards: a first start idles as lean as
// a restart. Run as a script: `node [same flags] prepareEmbedded.js <pglite folder>`.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, type Database } from "./client.js";
import { applyPendingMigrations, hasPendingMigrations } from "./migrate.js";

const self = fileURLToPath(import.meta.url);

/** Whether the folder holds a database PGlite already created. */
export const embeddedDatabaseExists = (pgliteDir: string) => existsSync(join(pgliteDir, "PG_VERSION"));

/** Creates and migrates the database in a child process; resolves with the migrations it applied. */
function prepareInChild(pgliteDir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // process.execArgv: the same loader (tsx in development and tests) and V8 flags as this process.
    const child = spawn(process.execPath, [...process.execArgv, self, pgliteDir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "[]") as string[]);
      reject(new Error(`preparing the embedded database failed (exit ${code}): ${err.trim() || out.trim()}`));
    });
  });
}

/**
 * Opens the embedded database in `pgliteDir`, created and migrated first (in a child process when
 * either is needed). Returns the database and the names of the migrations just applied.
 */
export async function openPreparedEmbeddedDatabase(pgliteDir: string): Promise<{ db: Database; applied: string[] }> {
  let applied: string[] = [];
  if (!embeddedDatabaseExists(pgliteDir)) applied = await prepareInChild(pgliteDir);
  let db = await openDatabase({ pgliteDataDir: pgliteDir });
  if (await hasPendingMigrations(db.prisma)) {
    await db.close();
    applied = [...applied, ...(await prepareInChild(pgliteDir))];
    db = await openDatabase({ pgliteDataDir: pgliteDir });
  }
  return { db, applied };
}

// As a script: create (if needed) and migrate the database, print the applied migrations as JSON.
// Exits explicitly: the database is closed, but a library timer would keep the process around ~10 s.
if (process.argv[1] === self) {
  const db = await openDatabase({ pgliteDataDir: process.argv[2] });
  try {
    process.stdout.write(`${JSON.stringify(await applyPendingMigrations(db))}\n`);
  } finally {
    await db.close();
  }
  process.exit(0);
}
