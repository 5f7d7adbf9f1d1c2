// Which way to copy the embedded database while it serves (issue 34, docs/backups.md): what
// src/backup does and the candidates PGlite and PostgreSQL provide, measured on an embedded database on disk (opened as the
// server opens it) holding --accounts game accounts with their progress, answers, boss stats and
// PvP results. For each: the time it takes, the pause it causes (the longest a query issued
// meanwhile waited, and the longest the event loop was blocked) and the size of its file. Not a
// test: a measurement, printed as a table and, last line, JSON. Median of --runs.
//
//   node --import tsx loadtest/backupCandidates.ts [--accounts 10000] [--runs 3] [--pg-dump PATH_TO_pglite-tools/dist/pg_dump.js]
//        [--database-url postgresql://postgres@127.0.0.1:5432/test]
//
// Then the chosen backup is restored into a new DATA_DIR and, with --database-url, into a new
// database on that server (created and dropped), and that database backed up: their times.
//
// --pg-dump: @electric-sql/pglite-tools is not a dependency of the project; to include its pg_dump,
// install it elsewhere (npm install --prefix /tmp/pgtools --legacy-peer-deps @electric-sql/pglite-tools,
// with a symlink to this project's @electric-sql/pglite beside it) and pass its dist/pg_dump.js.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import type { PGlite } from "@electric-sql/pglite";
import { openDatabase } from "../src/db/client.js";
import { applyMigrations } from "../src/db/migrate.js";
import pg from "pg";
import { restoreBackup, takeBackup } from "../src/backup/index.js";
import { catalog, quoteIdent } from "../src/backup/snapshot.js";
import { fillAccounts } from "./harness/seed.js";

const { values } = parseArgs({
  options: { accounts: { type: "string", default: "10000" }, runs: { type: "string", default: "3" }, "pg-dump": { type: "string" }, "database-url": { type: "string" } },
});
const accounts = Number(values.accounts);
const runs = Number(values.runs);

const dir = mkdtempSync(join(tmpdir(), "snakes-backup-candidates-"));
const db = await openDatabase({ pgliteDataDir: join(dir, "pglite") });
await applyMigrations(db.adapterFactory);
const pglite = db.pglite!;
await fillAccounts(pglite, accounts);

interface Measured {
  ms: number;
  /** Longest wait of a SELECT 1 issued every few ms while the candidate ran (it cannot even be issued while the loop is blocked). */
  queryPauseMs: number;
  /** Longest the event loop was blocked. */
  loopBlockMs: number;
  bytes: number;
}

/** Runs `candidate` while a prober keeps querying the database, as players' requests would. */
async function measure(candidate: () => Promise<number>): Promise<Measured> {
  // The longest gap between ticks of a 1 ms timer: a histogram (monitorEventLoopDelay) records
  // nothing when the loop never turns until the work is over, which is exactly the case to catch.
  let last = performance.now();
  let loopBlockMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    loopBlockMs = Math.max(loopBlockMs, now - last);
    last = now;
  }, 1);
  let probing = true;
  let queryPauseMs = 0;
  const prober = (async () => {
    while (probing) {
      const t = performance.now();
      await pglite.query("SELECT 1");
      queryPauseMs = Math.max(queryPauseMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  await new Promise((r) => setTimeout(r, 20));
  loopBlockMs = 0;
  const started = performance.now();
  let bytes: number;
  try {
    bytes = await candidate();
  } finally {
    probing = false;
    await prober;
  }
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 5)); // the tick that ends the last block
  clearInterval(ticker);
  return { ms, queryPauseMs, loopBlockMs, bytes };
}

const out = (name: string) => join(dir, name);

const candidates: Record<string, () => Promise<number>> = {
  // What src/backup does: one REPEATABLE READ transaction, COPY in chunks of 2000 rows by primary key
  // (the loop turning between), made JSON lines and gzip-compressed after the transaction, written with fsync.
  "chosen: COPY chunks->JSON": async () => {
    const summary = await takeBackup(db, out("b.jsonl.gz"));
    if (process.env.VERBOSE) console.error(`snapshot held ${summary.snapshotMs} ms of ${summary.ms} ms`);
    return summary.bytes;
  },
  // COPY ... TO '/dev/blob', one statement per table, in one transaction; gzipSync after, not written.
  "COPY whole tables": async () => {
    const tables = await catalog(pglite);
    const blobs: Buffer[] = [];
    await pglite.transaction(async (tx) => {
      await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      for (const t of tables) {
        const res = await tx.query(`COPY ${quoteIdent(t.name)} TO '/dev/blob'`);
        if (res.blob) blobs.push(Buffer.from(await res.blob.arrayBuffer()));
      }
    });
    return gzipSync(Buffer.concat(blobs)).length;
  },
  // PGlite's physical copy of its data folder (a tarball), gzip-compressed by PGlite.
  "dumpDataDir(gzip)": async () => (await pglite.dumpDataDir("gzip")).size,
};
if (values["pg-dump"]) {
  const { pgDump } = (await import(values["pg-dump"])) as { pgDump: (o: { pg: PGlite; args?: string[] }) => Promise<File> };
  candidates["pglite-tools pg_dump"] = async () => gzipSync(Buffer.from(await (await pgDump({ pg: pglite, args: ["--data-only"] })).arrayBuffer())).length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results: Record<string, Measured> = {};
for (const [name, candidate] of Object.entries(candidates)) {
  try {
    await measure(candidate); // warm-up (first-query costs, Wasm compilation)
    const all: Measured[] = [];
    for (let i = 0; i < runs; i++) all.push(await measure(candidate));
    results[name] = {
      ms: Math.round(median(all.map((m) => m.ms))),
      queryPauseMs: Math.round(median(all.map((m) => m.queryPauseMs))),
      loopBlockMs: Math.round(median(all.map((m) => m.loopBlockMs))),
      bytes: median(all.map((m) => m.bytes)),
    };
  } catch (err) {
    console.error(`${name}: failed: ${(err as Error).message}`);
  }
}

const folderMb = Number((du(join(dir, "pglite")) / 1e6).toFixed(1));
await db.close();

const restores: Record<string, number> = {};
const backupFile = out("b.jsonl.gz");
restores.restore_into_new_data_dir_ms = (await restoreBackup(backupFile, { dataDir: join(dir, "restored") })).ms;
if (values["database-url"]) {
  const name = `snakes_backup_candidates_${process.pid}`;
  const admin = new pg.Client({ connectionString: values["database-url"] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(values["database-url"]);
  url.pathname = `/${name}`;
  try {
    restores.restore_into_postgres_ms = (await restoreBackup(backupFile, { dataDir: dir, databaseUrl: url.toString() })).ms;
    const pgDb = await openDatabase({ databaseUrl: url.toString() });
    const summary = await takeBackup(pgDb, out("postgres.jsonl.gz"));
    await pgDb.close();
    restores.backup_of_postgres_ms = summary.ms;
    restores.backup_of_postgres_snapshot_ms = summary.snapshotMs;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(`embedded database on disk, ${accounts} accounts (folder ${folderMb} MB); median of ${runs}`);
console.log("candidate".padEnd(28), "ms".padStart(7), "query pause ms".padStart(15), "loop block ms".padStart(14), "file KB".padStart(9), "KB / 1000 accounts".padStart(19));
for (const [name, r] of Object.entries(results)) {
  console.log(name.padEnd(28), String(r.ms).padStart(7), String(r.queryPauseMs).padStart(15), String(r.loopBlockMs).padStart(14), String(Math.round(r.bytes / 1024)).padStart(9), String(Math.round(r.bytes / 1024 / (accounts / 1000))).padStart(19));
}
for (const [what, ms] of Object.entries(restores)) console.log(`${what.replace(/_ms$/, "").replace(/_/g, " ")}: ${ms} ms`);
console.log(JSON.stringify({ accounts, runs, folderMb, results, ...restores }));
process.exit(0); // pg's pool in the schema engine's adapter would keep the process a while

function du(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += du(join(path, entry));
  return total;
}
