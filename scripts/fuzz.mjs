// `npm run fuzz [-- --runs N] [--seed S]`: the property-based fuzz suite (test/fuzz) alone. Without
// --runs it is the time-bounded CI run; with it, every property runs exactly N cases (no time bound).
// --seed replays a run (CI prints its seed); a failure prints the seed, the path and the shrunk case.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: { runs: { type: "string" }, seed: { type: "string" }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log("usage: npm run fuzz [-- --runs N] [--seed S]");
  process.exit(0);
}
for (const [name, value] of Object.entries({ runs: values.runs, seed: values.seed })) {
  if (value !== undefined && !/^-?\d+$/.test(value)) {
    console.error(`--${name} must be an integer, not "${value}"`);
    process.exit(2);
  }
}
const env = { ...process.env };
if (values.runs !== undefined) env.FUZZ_RUNS = values.runs;
if (values.seed !== undefined) env.FUZZ_SEED = values.seed;
const run = spawnSync(process.execPath, [join(root, "node_modules/vitest/vitest.mjs"), "run", "--project", "fuzz"], { cwd: root, stdio: "inherit", env });
process.exit(run.status ?? 1);
