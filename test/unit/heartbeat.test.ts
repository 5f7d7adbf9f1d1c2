// The heartbeat's rules (src/net/heartbeat.ts) on a clock the test moves: only a pong echoing a pending
// ping's nonce answers, maxMissed unanswered pings cut, and a stall never counts against a client.
import { describe, expect, it } from "vitest";
import { Heartbeat, PingState, STALL_MS } from "../../src/net/heartbeat.js";

function setup() {
  let now = 0;
  const heartbeat = new Heartbeat({ intervalMs: 3000, maxMissed: 2, now: () => now });
  const state = new PingState();
  /** Runs the loop monitor every 250 ms up to `ms` later (a loop that is not stalled). */
  const run = (ms: number) => {
    for (const end = now + ms; now < end; ) {
      now = Math.min(end, now + 250);
      heartbeat.beat();
    }
  };
  /** A heartbeat round: the nonce sent, or undefined for a cut. */
  const round = () => heartbeat.round(state, heartbeat.beat());
  const stall = (ms: number) => void (now += ms);
  return { heartbeat, state, run, round, stall };
}

describe("Heartbeat", () => {
  it("cuts a client whose last two pings went unanswered: the third round, 6–9 s after it went dark", () => {
    const { run, round } = setup();
    expect(round()).toBeDefined();
    run(3000);
    expect(round()).toBeDefined();
    run(3000);
    expect(round()).toBeUndefined();
  });

  it("keeps a client that echoes each ping, late answers to an older ping included", () => {
    const { heartbeat, state, run, round } = setup();
    for (let i = 0; i < 10; i++) {
      const nonce = round()!;
      run(3000);
      if (i % 2) expect(heartbeat.answered(state, nonce)).toBe(true);
    }
    expect(round()).toBeDefined();
  });

  it("does not count unsolicited pongs, nor a guessed or truncated nonce", () => {
    const { heartbeat, state, run, round } = setup();
    const nonce = round()!;
    expect(heartbeat.answered(state, Buffer.alloc(8))).toBe(false);
    expect(heartbeat.answered(state, Buffer.alloc(0))).toBe(false);
    expect(heartbeat.answered(state, nonce.subarray(0, 4))).toBe(false);
    run(3000);
    round();
    run(3000);
    expect(round()).toBeUndefined();
  });

  it("does not count pings sent before a stall: their answers wait in the read buffer", () => {
    const { heartbeat, state, run, round, stall } = setup();
    round();
    run(3000);
    round(); // two pending, unanswered: the next round would cut…
    stall(10_000); // …but the server was stopped: the answers are unread
    expect(round()).toBeDefined();
    expect(heartbeat.missed(state)).toBe(1); // only the ping sent after the stall counts
    run(3000);
    expect(round()).toBeDefined();
    run(3000);
    expect(round()).toBeUndefined(); // dark for two full rounds after the stall: cut
  });

  it("treats a gap of the loop longer than STALL_MS as a stall, a busy but running loop not", () => {
    const { heartbeat, state, run, round, stall } = setup();
    round();
    stall(STALL_MS - 250); // with the monitor's next run: a gap of exactly STALL_MS
    run(3000 - STALL_MS);
    round();
    run(3000);
    expect(heartbeat.missed(state)).toBe(2);
    stall(STALL_MS + 1);
    heartbeat.beat();
    expect(heartbeat.missed(state)).toBe(0);
  });
});
