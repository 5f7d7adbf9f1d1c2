import fc from "fast-check";
// How long and from which seed the fuzz suite runs. CI: a fresh random seed each run (printed, so a
// failure can be replayed), bounded in time. `npm run fuzz -- --runs N --seed S` sets FUZZ_RUNS and
// FUZZ_SEED: exactly N cases per property from seed S, without the time bound.
const seedFromEnv = process.env.FUZZ_SEED;
const runsFromEnv = process.env.FUZZ_RUNS;

export const seed = seedFromEnv !== undefined && seedFromEnv !== "" ? Number(seedFromEnv) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${seedFromEnv}`);
export const fixedRuns = runsFromEnv ? Number(runsFromEnv) : undefined;
if (fixedRuns !== undefined && !(Number.isSafeInteger(fixedRuns) && fixedRuns > 0)) throw new Error(`FUZZ_RUNS must be a positive integer, not ${runsFromEnv}`);

/** The time budget of each property in CI (ms); the whole suite, server start included, stays under 60 s. */
export const budgetMs = { rest: 11_000, restText: 7_000, roomsTotal: 12_000, frames: 15_000 } as const;

/**
 * fast-check parameters for a property of at most `ciRuns` cases in CI. Its time budget is kept by
 * a Budget (below) rather than fast-check's time limits, which would also cut short the shrinking
 * of a failure; interruptAfterTimeLimit is only the hard stop for a shrink that never ends.
 */
export function runParameters(budget: Budget, ciRuns: number) {
  return fixedRuns !== undefined
    ? { seed, numRuns: fixedRuns }
    : { seed, numRuns: ciRuns, interruptAfterTimeLimit: budget.ms + 20_000, markInterruptAsFailure: true };
}

/** The vitest timeout of a property: its budget plus the hard stop, or a day with --runs. */
export const testTimeout = (budget: Budget) => (fixedRuns !== undefined ? 24 * 3600_000 : budget.ms + 30_000);

/** A property's time budget: past it, cases pass without running, unless a failure is being shrunk. */
export class Budget {
  private deadline: number | undefined;
  private shrinking = false;
  ran = 0;
  constructor(readonly ms: number) {}

  private over(): boolean {
    this.deadline ??= Date.now() + this.ms;
    return fixedRuns === undefined && !this.shrinking && Date.now() > this.deadline;
  }

  /** `arb` while the budget lasts, then nothing (undefined) without the cost of generating a case. */
  cases<T>(arb: () => fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
    return fc.constant(null).chain(() => (this.over() ? fc.constant(undefined) : arb()));
  }

  /** True when this case should run (call at its start with the generated case). */
  admit<T>(c: T | undefined): c is T {
    if (c === undefined) return false;
    this.ran++;
    return true;
  }

  /** Runs a case's checks; after a failure every later case runs (fast-check is shrinking it). */
  async check(body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (err) {
      this.shrinking = true;
      throw err;
    }
  }
}
