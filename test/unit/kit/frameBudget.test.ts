// The hard frame budget on a simulated clock: a server stall and a client's outage (frames of a
// silence read at once) pass; a true flood from a client that was not silent is cut within 250 ms.
import { describe, expect, it } from "vitest";
import { CREDIT_KEEP_MS, FrameBudget, MAX_SILENCE_MS } from "../../../src/rooms/kit/frameBudget.js";
import { hardFrameLimit, MESSAGE_RATE_LIMIT, STEERING_RATE_LIMIT } from "../../../src/rooms/kit/guard.js";

const PVP = hardFrameLimit(STEERING_RATE_LIMIT);
const BOSS = hardFrameLimit(MESSAGE_RATE_LIMIT);
const HONEST_HZ = 30;

function clocked(limit = PVP) {
  const clock = { now: 0 };
  const budget = new FrameBudget(limit, () => clock.now);
  return { clock, budget };
}

/** Sends at `hz` for `ms` (one frame per period, each read when sent); returns how many were refused and when the first was. */
function send(b: ReturnType<typeof clocked>, hz: number, ms: number): { refused: number; firstRefusedAfterMs?: number } {
  const start = b.clock.now;
  let refused = 0;
  let firstRefusedAfterMs: number | undefined;
  const n = Math.round((hz * ms) / 1000);
  for (let i = 0; i < n; i++) {
    b.clock.now = start + (i * 1000) / hz;
    if (!b.budget.take()) {
      refused++;
      firstRefusedAfterMs ??= b.clock.now - start;
    }
  }
  b.clock.now = start + ms;
  return { refused, firstRefusedAfterMs };
}

/** `count` frames read at one instant (a backlog). */
function backlog(b: ReturnType<typeof clocked>, count: number): number {
  let refused = 0;
  for (let i = 0; i < count; i++) if (!b.budget.take()) refused++;
  return refused;
}

describe("FrameBudget", () => {
  it("the budgets of the rooms: PvP and SlitherRush 180 frames/s, boss and lobbies 150", () => {
    expect(PVP).toEqual({ ratePerSecond: 180, burst: 135 });
    expect(BOSS).toEqual({ ratePerSecond: 150, burst: 112 });
  });

  for (const stallMs of [6000, 10_000, 30_000]) {
    it(`a ${stallMs / 1000} s server stall: the 30 inputs/s every client sent meanwhile, read at once, all pass`, () => {
      for (const limit of [PVP, BOSS]) {
        const b = clocked(limit);
        expect(send(b, HONEST_HZ, 5000).refused).toBe(0);
        b.clock.now += stallMs; // nothing read meanwhile
        expect(backlog(b, (stallMs / 1000) * HONEST_HZ)).toBe(0);
        expect(send(b, HONEST_HZ, 5000).refused).toBe(0);
      }
    });
  }

  it("a client dark 7 s whose held inputs arrive at once, in a few reads a round trip apart, keeps its budget", () => {
    const b = clocked(BOSS);
    send(b, HONEST_HZ, 3000);
    b.clock.now += 7000;
    // TCP's slow start after the outage: 1, 2, 4, 8 … segments per round trip of 100 ms.
    let left = 7 * HONEST_HZ;
    let refused = 0;
    for (let segments = 1; left > 0; segments *= 2, b.clock.now += 100) {
      const n = Math.min(left, segments * 20);
      refused += backlog(b, n);
      left -= n;
    }
    expect(refused).toBe(0);
    expect(send(b, HONEST_HZ, 3000).refused).toBe(0);
  });

  it("a flood of 5x the budget from a client that was sending normally is cut within 250 ms", () => {
    for (const limit of [PVP, BOSS]) {
      const b = clocked(limit);
      send(b, HONEST_HZ, 5000);
      const flood = send(b, limit.ratePerSecond * 5, 1000);
      expect(flood.firstRefusedAfterMs).toBeDefined();
      expect(flood.firstRefusedAfterMs!).toBeLessThanOrEqual(250);
    }
  });

  it("a silence's credit is once: spent, or lapsed after CREDIT_KEEP_MS, a flood is cut within 250 ms again", () => {
    const b = clocked(PVP);
    send(b, HONEST_HZ, 1000);
    b.clock.now += 10_000;
    expect(send(b, HONEST_HZ, CREDIT_KEEP_MS + 500).refused).toBe(0); // came back, sending normally
    const flood = send(b, PVP.ratePerSecond * 5, 1000);
    expect(flood.firstRefusedAfterMs!).toBeLessThanOrEqual(250);
  });

  it("a silence is credited up to MAX_SILENCE_MS: a backlog beyond what it could have sent at the budget's rate is cut", () => {
    const b = clocked(PVP);
    b.clock.now += 5 * MAX_SILENCE_MS;
    const credit = (MAX_SILENCE_MS / 1000) * PVP.ratePerSecond;
    expect(backlog(b, credit + PVP.burst)).toBe(0);
    expect(b.budget.take()).toBe(false);
  });

  it("sustained sending just under the rate passes; just over it is eventually refused", () => {
    const under = clocked(PVP);
    expect(send(under, PVP.ratePerSecond * 0.95, 20_000).refused).toBe(0);
    const over = clocked(PVP);
    expect(send(over, PVP.ratePerSecond * 1.2, 20_000).refused).toBeGreaterThan(0);
  });
});
