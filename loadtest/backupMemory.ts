// The backup reader's peak memory against the data's size (issue 41; figures in docs/performance.md
// and docs/operations.md#memory). For each --accounts size: an embedded database filled with that
// many varied accounts (loadtest/harness/seed.ts: progress, completions, stats, results; every
// fifth account also carries a longer text), then one backup as the running server takes it: the
// folder copied, read by the child process (src/backup/embedded.ts), which reports its own peak
// RSS (VmHWM). The reader streams a chunk at a time, so the peak should not follow the size.
//
//   taskset -c 0 node --import tsx loadtest/backupMemory.ts [--accounts 10000,30000,100000]
//
// Not a test: a measurement, a table on stderr and, last line, JSON.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { takeBackup } from "../src/backup/index.js";
import { openDatabase } from "../src/db/client.js";
import { applyMigrations } from "../src/db/migrate.js";
import { fillAccounts } from "./harness/seed.js";

const { values } = parseArgs({ options: { accounts: { type: "string", default: "10000,30000,100000" } } });
const sizes = values.accounts!.split(",").map(Number);
const log = (line: string) => process.stderr.write(`${line}\n`);

const results: Array<{ accounts: number; rows: number; bytes: number; ms: number; readerPeakRssMb?: number }> = [];
for (const accounts of sizes) {
  const dataDir = mkdtempSync(join(tmpdir(), "snakes-backup-memory-"));
  const out = mkdtempSync(join(tmpdir(), "snakes-backup-memory-out-"));
  try {
    const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
    await applyMigrations(db.adapterFactory);
    log(`filling ${accounts} accounts…`);
    await fillAccounts(db.pglite!, accounts);
    // Varied: every fifth account with a longer stored text (a 2 KB name of its last opponent).
    await db.pglite!.exec(`UPDATE pvp_results SET opponent_name = repeat(md5(id::text), 64) WHERE id % 5 = 0; CHECKPOINT;`);
    log(`backing up ${accounts} accounts (the reader in its own process)…`);
    const summary = await takeBackup(db, { folder: out });
    await db.close();
    const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0);
    results.push({ accounts, rows, bytes: summary.bytes, ms: summary.ms, readerPeakRssMb: summary.readerPeakRssMb });
    log(`  ${accounts} accounts, ${rows} rows, ${(summary.bytes / 1024 / 1024).toFixed(1)} MB file, ${summary.ms} ms, reader peak ${summary.readerPeakRssMb} MB`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}
log("\naccounts | rows | file MB | backup ms | reader peak RSS MB");
for (const r of results) log(`${r.accounts} | ${r.rows} | ${(r.bytes / 1024 / 1024).toFixed(1)} | ${r.ms} | ${r.readerPeakRssMb}`);
process.stdout.write(`${JSON.stringify(results)}\n`);
