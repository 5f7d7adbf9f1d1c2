// npm test — every suite: unit tests, and the integration suites on the embedded PGlite; the same
// integration suites again on PostgreSQL when TEST_DATABASE_URL is set, and the Redis suites when
// TEST_REDIS_URL is set (CI sets both); the chaos suite when redis-server and PostgreSQL's binaries
// are installed (`npm run test:chaos` runs it alone). Says what it skipped, and ends with one plain summary line.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium } from "./chromium.mjs";
import { chaosUnavailable, findNginx } from "./chaos-binaries.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const skipped = [];
if (!process.env.TEST_DATABASE_URL) skipped.push("integration:postgres (the integration suites on PostgreSQL): set TEST_DATABASE_URL=postgresql://user@host:5432/db");
if (!process.env.TEST_REDIS_URL) skipped.push("Redis presence/driver and multi-process scale-out suites: set TEST_REDIS_URL=redis://host:6379");
if (!findChromium()) skipped.push("e2e (the /play client in a real browser): no Chromium found; apt-get install chromium, or set CHROMIUM_PATH");
const chaos = chaosUnavailable();
if (chaos) skipped.push(`chaos (stalls, Redis and PostgreSQL outages, deploys: test/chaos, its own redis-server and PostgreSQL): ${chaos}`);
else if (!findNginx()) skipped.push("chaos: the rolling deploy behind docs/deploy/nginx.conf (test/chaos/nginxDeploy.test.ts): no nginx found; apt-get install nginx, or set NGINX");
const note = () => skipped.forEach((s) => console.log(`skipped: ${s}`));
note();

const outDir = mkdtempSync(join(tmpdir(), "snakes-vitest-"));
const report = join(outDir, "report.json");
const run = spawnSync(
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit", env: process.env },
);

let passed = 0, failed = 0, pending = 0;
try {
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed = r.numPassedTests;
  // A file that fails to load has no failed test of its own: count it as one failure.
  failed = r.numFailedTests || (r.numFailedTestSuites ?? 0);
  pending = r.numPendingTests + (r.numTodoTests ?? 0);
} catch {
  failed = Math.max(failed, 1);
}
rmSync(outDir, { recursive: true, force: true });
note();
console.log(`tests: ${passed} passed, ${failed} failed, ${pending} skipped`);
const status = run.status ?? 1;
process.exit(status !== 0 ? status : passed === 0 ? 1 : 0);
