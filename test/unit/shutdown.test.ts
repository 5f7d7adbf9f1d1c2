// The stop's rules as the process sees them, with a fake clock: the first signal stops the
// application; the same stop delivered twice within a second is one; a later signal exits at once
// with what was pending; a stop that hangs ends at the deadline, exit 1, naming what was pending; a
// stop that waits says once how to stop at once, then what is left every 10 s.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { progress, PROGRESS_INTERVAL_MS, stopOnSignals, SAME_SIGNAL_MS } from "../../src/process/shutdown.js";
import { createLogger } from "../../src/ops/logger.js";

const pending = { step: "draining the rooms", rooms: [{ room: "pvp", roomId: "r1", clients: 2 }] };

function setup(stop: () => Promise<void>) {
  const lines: Array<Record<string, any>> = [];
  const logger = createLogger("info", {}, { destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const exits: number[] = [];
  const app = { stop: vi.fn(stop), pending: () => pending };
  const handler = stopOnSignals({ app, logger, drainSeconds: 300, deadlineSeconds: 330, exit: (code) => void exits.push(code) });
  return { lines, exits, app, handler };
}

describe("stopping on signals", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("the first signal stops the application and exits 0 when it has stopped", async () => {
    const { exits, app, handler, lines } = setup(() => Promise.resolve());
    handler.onSignal("SIGTERM");
    await vi.advanceTimersByTimeAsync(0);
    expect(app.stop).toHaveBeenCalledTimes(1);
    expect(exits).toEqual([0]);
    expect(lines[0]).toMatchObject({ signal: "SIGTERM", drain_seconds: 300, deadline_seconds: 330 });
  });

  it("the same stop twice within a second is one signal; a later one exits at once (1) with what was pending", async () => {
    const { exits, app, handler, lines } = setup(() => new Promise(() => {}));
    handler.onSignal("SIGINT");
    handler.onSignal("SIGINT");
    await vi.advanceTimersByTimeAsync(SAME_SIGNAL_MS - 1);
    handler.onSignal("SIGTERM");
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    handler.onSignal("SIGTERM");
    expect(exits).toEqual([1]);
    expect(app.stop).toHaveBeenCalledTimes(1);
    expect(lines.at(-1)).toMatchObject({ msg: "second signal: exiting now", pending });
  });

  it("a stop that never finishes ends at the deadline: an error line naming what was pending, exit 1", async () => {
    const { exits, handler, lines } = setup(() => new Promise(() => {}));
    handler.onSignal("SIGTERM");
    await vi.advanceTimersByTimeAsync(329_999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ level: 50, msg: "shutdown deadline passed: exiting with work still pending", pending, deadline_seconds: 330 });
  });

  it("a stop that fails exits 1 with the error", async () => {
    const { exits, handler, lines } = setup(() => Promise.reject(new Error("database would not close")));
    handler.onSignal("SIGTERM");
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ msg: "error during shutdown", err: { message: "database would not close" } });
  });

  it("the exit of a second signal is urgent (its log flush is brief), the others' are not (issue 30)", async () => {
    const logger = createLogger("info", {}, { destination: { write: () => true } });
    const calls: Array<[number, boolean | undefined]> = [];
    const handler = stopOnSignals({ app: { stop: () => new Promise(() => {}), pending: () => pending }, logger, drainSeconds: 1, deadlineSeconds: 5, exit: (code, urgent) => void calls.push([code, urgent]) });
    handler.onSignal("SIGTERM");
    await vi.advanceTimersByTimeAsync(SAME_SIGNAL_MS);
    handler.onSignal("SIGTERM");
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toEqual([
      [1, true],
      [1, undefined],
    ]);
  });

  it("a stop that waits says once, after a second, that a second Ctrl-C stops at once; then the matches left every 10 s, until it ends", async () => {
    let rooms = [
      { room: "pvp", roomId: "r1", clients: 2 },
      { room: "boss", roomId: "r2", clients: 7 },
      { room: "boss", roomId: "r3", clients: 3 },
    ];
    let finish = () => {};
    const lines: Array<Record<string, any>> = [];
    const logger = createLogger("info", {}, { destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    const exits: number[] = [];
    const app = { stop: () => new Promise<void>((resolve) => (finish = resolve)), pending: () => ({ step: "draining the rooms", rooms }) };
    const handler = stopOnSignals({ app, logger, drainSeconds: 300, deadlineSeconds: 330, exit: (code) => void exits.push(code) });
    handler.onSignal("SIGINT");
    const said = () => lines.slice(1).map((l) => l.msg);
    await vi.advanceTimersByTimeAsync(SAME_SIGNAL_MS - 1);
    expect(said()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(said()).toEqual(["draining: 3 matches left (boss 2, pvp 1), 12 players; called off in 299 s at the latest; Ctrl-C again (or a second signal) stops at once"]);
    expect(lines[1]).toMatchObject({ level: 30, step: "draining the rooms", rooms_open: 3, by_room: { boss: 2, pvp: 1 }, players: 12, drain_left_seconds: 299 });

    rooms = rooms.slice(0, 1);
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS - SAME_SIGNAL_MS);
    expect(said().slice(1)).toEqual(["draining: 1 match left (pvp 1), 2 players; called off in 290 s at the latest"]);
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS);
    expect(said().slice(2)).toEqual(["draining: 1 match left (pvp 1), 2 players; called off in 280 s at the latest"]);
    expect(lines.every((l) => l.level === 30)).toBe(true);

    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([0]);
    const count = lines.length;
    await vi.advanceTimersByTimeAsync(5 * PROGRESS_INTERVAL_MS);
    expect(lines.length).toBe(count);
  });

  it("a stop over within the second prints nothing more than its first line", async () => {
    const { handler, lines, exits } = setup(() => Promise.resolve());
    handler.onSignal("SIGINT");
    await vi.advanceTimersByTimeAsync(3 * PROGRESS_INTERVAL_MS);
    expect(exits).toEqual([0]);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^shutting down/)]);
  });

  it("the progress line after the drain limit, and past the rooms", () => {
    const app = (step: string) => ({ stop: () => Promise.resolve(), pending: () => ({ step, rooms: pending.rooms }) });
    expect(progress({ app: app("draining the rooms"), drainSeconds: 2 }, 0, 2500).line).toBe("draining: 1 match left (pvp 1), 2 players; the drain limit has passed: closing them");
    expect(progress({ app: app("closing the database"), drainSeconds: 300 }, 0, 5000).line).toBe("stopping: closing the database");
  });
});
