// The server's stdout destination against a fake pipe (issue 30): a broken pipe (EPIPE) stops the
// writing at once, for good, with the lines counted and the count reported; the flush at exit never
// retries a broken pipe, and waits a bounded time for a full one (EAGAIN).
import { describe, expect, it } from "vitest";
import { stdoutLog, type LogIo } from "../../src/ops/logger.js";

const errno = (code: string) => Object.assign(new Error(code), { code });

/** A pipe whose behaviour each test sets: "ok", "full" (EAGAIN) or "broken" (EPIPE). */
function fakePipe() {
  const pipe = {
    state: "ok" as "ok" | "full" | "broken",
    written: "",
    syncCalls: 0,
    reports: [] as string[],
    pending: [] as Array<() => void>,
  };
  const attempt = (buf: Buffer): number => {
    if (pipe.state === "broken") throw errno("EPIPE");
    if (pipe.state === "full") throw errno("EAGAIN");
    pipe.written += buf.toString();
    return buf.length;
  };
  const io: LogIo = {
    write(_fd, buf, callback) {
      // Completes when the test says so, as fs.write's callback comes on a later turn.
      pipe.pending.push(() => {
        try {
          callback(null, attempt(buf));
        } catch (err) {
          callback(err as NodeJS.ErrnoException, 0);
        }
      });
    },
    writeSync(_fd, buf) {
      pipe.syncCalls++;
      return attempt(buf);
    },
    report: (line) => void pipe.reports.push(line),
  };
  const settle = () => {
    while (pipe.pending.length) pipe.pending.shift()!();
  };
  return { pipe, io, settle };
}

describe("stdoutLog", () => {
  it("writes lines in order while the reader reads", () => {
    const { pipe, io, settle } = fakePipe();
    const log = stdoutLog({ fd: 9, io });
    log.destination.write("a\n");
    log.destination.write("b\n");
    log.destination.write("c\n");
    settle();
    expect(pipe.written).toBe("a\nb\nc\n");
    log.flush(1000);
    expect(log.dropped()).toBe(0);
    expect(pipe.reports).toEqual([]);
  });

  it("EPIPE on a write while running: stops writing for good, says so once, counts every later line, reports the count at exit", () => {
    const { pipe, io, settle } = fakePipe();
    const log = stdoutLog({ fd: 9, io });
    log.destination.write("a\n");
    pipe.state = "broken";
    log.destination.write("b\n"); // held behind the write in flight
    settle();
    expect(pipe.reports).toEqual([expect.stringContaining("stdout cannot be written (EPIPE)")]);
    for (let i = 0; i < 10; i++) log.destination.write(`x${i}\n`);
    settle();
    expect(log.dropped()).toBe(12);
    const t0 = Date.now();
    log.flush(60_000);
    expect(Date.now() - t0).toBeLessThan(1000); // never waits on a broken pipe
    expect(pipe.syncCalls).toBe(0);
    expect(pipe.reports.at(-1)).toBe("12 log lines dropped: stdout could not be written (EPIPE)");
  });

  it("EPIPE met by the flush at exit itself (the lines of the last turn, before any callback): one attempt, no retry", () => {
    const { pipe, io } = fakePipe();
    const log = stdoutLog({ fd: 9, io });
    log.destination.write("first\n"); // in flight: its callback never comes (the process exits)
    log.destination.write("stopped\n");
    log.destination.write("more\n");
    pipe.state = "broken";
    const t0 = Date.now();
    log.flush(60_000);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(pipe.syncCalls).toBe(1);
    expect(pipe.reports).toEqual(["2 log lines dropped: stdout could not be written (EPIPE)"]);
  });

  it("a full pipe (EAGAIN): lines are held and written when the reader comes back; at exit it waits the given time at most, then gives up", () => {
    const { pipe, io, settle } = fakePipe();
    const log = stdoutLog({ fd: 9, io });
    pipe.state = "full";
    log.destination.write("a\n");
    log.destination.write("b\n");
    settle();
    expect(pipe.written).toBe("");
    const t0 = Date.now();
    log.flush(200);
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(200);
    expect(waited).toBeLessThan(5000);
    expect(pipe.reports).toEqual(["2 log lines dropped: stdout was not being read"]);
  });

  it("a buffer full of lines nobody reads: later lines are dropped, counted, and the count is the last line written once the reader is back", () => {
    const { pipe, io, settle } = fakePipe();
    const log = stdoutLog({ fd: 9, io, maxBytes: 11 });
    pipe.state = "full";
    log.destination.write("12345\n"); // in flight, then held again
    settle();
    log.destination.write("6789\n");
    log.destination.write("dropped\n");
    expect(log.dropped()).toBe(1);
    pipe.state = "ok";
    log.flush(1000);
    expect(pipe.written.split("\n").slice(0, 2)).toEqual(["12345", "6789"]);
    expect(JSON.parse(pipe.written.split("\n")[2])).toMatchObject({ dropped: 1, msg: "log lines dropped: stdout was not being read" });
  });
});
