// Timers of a player's absence on the loop's live clock (src/rooms/kit/loopClock.ts): a stretch
// during which the event loop is blocked (here a synchronous busy loop, as a long GC or SIGSTOP
// would hold it) does not count, so a reconnection window does not lapse the moment the server
// comes back. What is asserted only gets truer on a slow machine: a late timer fires later still.
import { describe, expect, it } from "vitest";
import pino from "pino";
import { liveNow, liveTimeout, loopAwayMs } from "../../../src/rooms/kit/loopClock.js";
import { SeatBook } from "../../../src/rooms/kit/seats.js";
import { MatchSeats, MemoryLeaseStore } from "../../../src/shared/matchSeats.js";

function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}
const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the loop's live clock", () => {
  it("does not advance while the loop is blocked", async () => {
    const liveBefore = liveNow();
    const awayBefore = loopAwayMs();
    blockLoop(1500);
    expect(liveNow() - liveBefore).toBeLessThan(1000);
    await sleep(150); // a beat
    expect(loopAwayMs() - awayBefore).toBeGreaterThan(500);
  });

  it("a live timeout set before a stall longer than itself does not fire as the loop comes back, but after its live time", async () => {
    let firedAt: number | undefined;
    // Up to BEAT + TOLERANCE (0.5 s) of a stall still counts as live time: a timer longer than that.
    liveTimeout(() => (firedAt = performance.now()), 800);
    blockLoop(2500);
    const resumed = performance.now();
    await sleep(100);
    expect(firedAt).toBeUndefined(); // a plain setTimeout(300) would have fired at once
    while (firedAt === undefined) await turn();
    expect(firedAt - resumed).toBeGreaterThanOrEqual(200);
  });
});

describe("a seat's reconnection window", () => {
  it("outlives a server stall longer than the window, then lapses on live time", async () => {
    let rejected: unknown;
    let reject: (reason: unknown) => void = () => {};
    // Colyseus' Deferred: a promise with reject(); "manual" arms no timer of its own.
    const pending = new Promise((_, r) => (reject = r));
    pending.catch((err) => (rejected = err ?? "rejected"));
    const deferred = Object.assign(pending, { reject: (reason: unknown) => reject(reason) });
    const seconds: unknown[] = [];
    const room = { roomName: "duel", roomId: "r1", allowReconnection: (_c: unknown, s: unknown) => (seconds.push(s), deferred) };
    const book = new SeatBook<null>(room as never, new MatchSeats(new MemoryLeaseStore()), pino({ level: "silent" }), 0.8);
    await book.take("s1", { userId: null, username: "guest", guest: true } as never, null);
    expect(book.hold({ sessionId: "s1" } as never, 1006)).toBe(true);
    expect(seconds).toEqual(["manual"]);
    blockLoop(2500); // the server stands still for three windows
    await sleep(100);
    expect(rejected).toBeUndefined();
    while (rejected === undefined) await turn();
    expect(String(rejected)).toContain("reconnection window lapsed");
  });
});
