// Helpers the real-time scenarios share.
import type { ScenarioContext } from "../harness/scenario.js";

/** How many rooms fill at once while clients join (each room's seats fill one after another). */
const JOIN_CONCURRENCY = 16;

/** Runs join(item) for every item, `concurrency` at a time, logging progress. */
export async function joinAll<T>(ctx: ScenarioContext, items: T[], join: (item: T, index: number) => Promise<void>, concurrency = JOIN_CONCURRENCY): Promise<void> {
  let next = 0;
  let done = 0;
  let lastLog = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await join(items[i], i);
      done++;
      if (performance.now() - lastLog > 2000) {
        lastLog = performance.now();
        ctx.log(`  joined ${done}/${items.length} rooms`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * One timer drives every simulated client: each tick it calls `step(now)` and the step sends what is
 * due. Thousands of setIntervals would cost more than the clients' own work.
 */
export class Ticker {
  private readonly timer: NodeJS.Timeout;

  constructor(step: (now: number) => void, everyMs = 5) {
    this.timer = setInterval(() => step(performance.now()), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
