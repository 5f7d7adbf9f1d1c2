// npm test — every suite: unit tests, and the integration suites on the embedded PGlite; the same
// integration suites again on PostgreSQL when TEST_DATABASE_URL is set, and the Redis suites when
// TEST_REDIS_URL is set (CI sets both); the chaos suite when redis-server and PostgreSQL's binaries
// are installed (`npm run test:chaos` runs it alone). Says what it skipped, and ends with one plain summary line.
// `npm test -- --record` (the whole run only) also writes that line's figures, the wall time and what
// ran into docs/test-runs.json, where README.md and docs/testing.md take their figures from
// (test/unit/docFigures.test.ts checks that they do).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
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

const args = process.argv.slice(2);
const record = args.includes("--record");
const vitestArgs = args.filter((a) => a !== "--record");
if (record && vitestArgs.length > 0) {
  console.error(`--record records the whole run only: drop ${vitestArgs.join(" ")}`);
  process.exit(2);
}

const outDir = mkdtempSync(join(tmpdir(), "snakes-vitest-"));
const report = join(outDir, "report.json");
const startedAt = Date.now();
const loadAtStart = loadavg()[0];
const run = spawnSync(
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...vitestArgs],
  { cwd: root, stdio: "inherit", env: process.env },
);
const wallSeconds = Math.round((Date.now() - startedAt) / 1000);

let passed = 0, failed = 0, pending = 0;
/** The files that took longest (a file run in two projects appears twice). */
let longest = [];
try {
  const r = JSON.parse(readFileSync(report, "utf8"));
  longest = r.testResults
    .map((t) => ({ file: t.name.startsWith(root) ? t.name.slice(root.length) : t.name, seconds: Math.round((t.endTime - t.startTime) / 100) / 10 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 12);
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
if (record) writeRecord();
process.exit(status !== 0 ? status : passed === 0 ? 1 : 0);

/**
 * docs/test-runs.json keeps one run per form: "ci" (TEST_DATABASE_URL and TEST_REDIS_URL set, as
 * .ci/run runs it) and "local" (neither). A run of another form, or a failed one, is not recorded.
 */
function writeRecord() {
  const form = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL ? "ci" : !process.env.TEST_DATABASE_URL && !process.env.TEST_REDIS_URL ? "local" : undefined;
  if (!form || status !== 0 || failed > 0) return console.log("not recorded: only a passing run with both TEST_DATABASE_URL and TEST_REDIS_URL set, or neither, is");
  const file = join(root, "docs/test-runs.json");
  let runs = {};
  try {
    runs = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // none yet
  }
  let commit = null;
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  runs[form] = {
    date: new Date(startedAt).toISOString().slice(0, 10),
    commit,
    wall_seconds: wallSeconds,
    passed,
    failed,
    skipped: pending,
    suites_skipped: skipped.map((s) => s.split(/ \(|: /)[0]),
    cores: availableParallelism(),
    load_1m_at_start: Math.round(loadAtStart * 10) / 10,
    longest_files: longest,
    source: "npm test -- --record",
  };
  writeFileSync(file, `${JSON.stringify(runs, null, 2)}\n`);
  console.log(`recorded in docs/test-runs.json (${form}): ${wallSeconds} s, ${passed} passed`);
}
