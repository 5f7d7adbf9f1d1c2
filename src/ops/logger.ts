import fs from "node:fs";
import { createRequire } from "node:module";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

export interface LogOutput {
  /** One readable line per event (pino-pretty) instead of JSON. */
  pretty?: boolean;
  /** Where the lines go (default stdout). */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/**
 * Readable lines for a person at a terminal in development; JSON lines everywhere else (production,
 * tests, and development output piped to a file or a log collector).
 */
export const prettyLogsWanted = (nodeEnv: string, stdoutIsTerminal: boolean | undefined): boolean =>
  nodeEnv === "development" && stdoutIsTerminal === true;

/** Structured logs, one line per event: JSON, or pino-pretty's readable form. */
export function createLogger(level: string, base: Record<string, unknown> = {}, output: LogOutput = {}): Logger {
  const options = {
    level,
    base: { service: "snakes-game", ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ["req.headers.cookie", "req.headers.authorization", "password", "*.password"], censor: "[redacted]" },
  };
  if (!output.pretty) return output.destination ? pino(options, output.destination as DestinationStream) : pino(options);
  return pino(options, prettyStream(output.destination));
}

/** pino-pretty, loaded only when asked for: production never loads it. */
function prettyStream(destination: LogOutput["destination"]): DestinationStream {
  const pretty = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
  return pretty({
    destination: destination ?? 1,
    sync: true, // a line is on the terminal before the next statement runs, even right before exit
    colorize: destination === undefined && process.stdout.isTTY === true,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname,service",
  });
}

/** Log lines held for a stdout that is not being read, at most; later lines are dropped and counted. */
const STDOUT_BUFFER_BYTES = 16 * 1024 * 1024;
/** How soon a write to a full pipe (EAGAIN) is tried again. */
const RETRY_FULL_MS = 20;

/** The server's stdout as a log destination, and how to flush it before the process exits. */
export interface StdoutLog {
  destination: DestinationStream;
  /**
   * Writes out what is held, waiting at most `timeoutMs` for a reader that is slow (a full pipe),
   * never for one that is gone (a broken pipe); gives up the rest and reports what was dropped.
   * Call right before process.exit.
   */
  flush(timeoutMs: number): void;
  /** Lines dropped so far (not held: the buffer was full, or stdout is broken). */
  dropped(): number;
}

/** The file operations stdoutLog uses (tests pass a fake pipe). */
export interface LogIo {
  write(fd: number, buf: Buffer, callback: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  writeSync(fd: number, buf: Buffer): number;
  /** One line for a person, on stderr, never blocking. */
  report(line: string): void;
}

interface Held {
  buf: Buffer;
  lines: number;
}

const linesIn = (buf: Buffer) => {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return Math.max(n, 1);
};

/**
 * stdout, written without ever blocking the server on its reader, and never waiting for one that is
 * gone. pino's default destination (sonic-boom) writes synchronously and retried a full pipe (EAGAIN)
 * in a sleep loop that parked the main thread (issue 24); asynchronously, its flushSync at exit
 * retries every other error too, EPIPE included, every 100 ms for ever: Ctrl-C on
 * `npm start | tee log` (tee dies first) left the server hung in that loop, deaf to every later
 * signal (issue 30). Here lines are written asynchronously; while a reader is slow they are held (up
 * to STDOUT_BUFFER_BYTES, then dropped and counted); the first error other than EAGAIN (EPIPE: the
 * reader is gone) stops writing to stdout for good, says so once on stderr, and counts every line
 * from then on as dropped. The flush at exit waits a bounded time for a slow reader only.
 */
export function stdoutLog(options: { fd?: number; maxBytes?: number; io?: LogIo } = {}): StdoutLog {
  const fd = options.fd ?? 1;
  const maxBytes = options.maxBytes ?? STDOUT_BUFFER_BYTES;
  const io = options.io ?? processIo;
  // libuv puts a stdout that is a pipe in non-blocking mode once process.stdout exists: a full pipe
  // is then EAGAIN, never a thread (or, at exit, the main thread) blocked in write().
  if (fd === 1 && !options.io) void process.stdout;
  const queue: Held[] = [];
  let queuedBytes = 0;
  let inFlight: Held | undefined; // handed to fs.write, its callback pending
  let retry: NodeJS.Timeout | undefined;
  let broken: string | undefined; // why stdout is written no more
  let dropped = 0;

  const takeQueue = (): Held => {
    const held = queue.length === 1 ? queue[0] : { buf: Buffer.concat(queue.map((h) => h.buf)), lines: queue.reduce((n, h) => n + h.lines, 0) };
    queue.length = 0;
    queuedBytes = 0;
    return held;
  };
  const breakOff = (err: NodeJS.ErrnoException) => {
    broken = err.code ?? err.message;
    dropped += queue.reduce((n, h) => n + h.lines, 0);
    queue.length = 0;
    queuedBytes = 0;
    io.report(`stdout cannot be written (${broken}): log lines are dropped from now on, their count is reported when the server exits`);
  };
  const pump = () => {
    if (inFlight || retry || broken || queue.length === 0) return;
    const held = (inFlight = takeQueue());
    io.write(fd, held.buf, (err, written) => {
      inFlight = undefined;
      if (err && err.code !== "EAGAIN") {
        dropped += held.lines;
        return breakOff(err);
      }
      const rest = held.buf.subarray(err ? 0 : written);
      if (rest.length > 0) {
        queue.unshift(rest.length === held.buf.length ? held : { buf: rest, lines: linesIn(rest) });
        queuedBytes += rest.length;
      }
      if (err) {
        retry = setTimeout(() => {
          retry = undefined;
          pump();
        }, RETRY_FULL_MS);
        retry.unref();
      } else pump();
    });
  };
  const destination = {
    write(line: string) {
      if (broken || queuedBytes + line.length > maxBytes) {
        dropped++;
        return true;
      }
      const buf = Buffer.from(line);
      queue.push({ buf, lines: 1 });
      queuedBytes += buf.length;
      pump();
      return true;
    },
  };
  return {
    destination,
    dropped: () => dropped,
    flush(timeoutMs) {
      const giveUpAt = Date.now() + timeoutMs;
      clearTimeout(retry);
      // A write already handed to the kernel is not repeated (it may be out already); the rest follows it.
      if (dropped > 0 && !broken) queue.push({ buf: Buffer.from(droppedLine(dropped)), lines: 0 });
      while (queue.length > 0 && !broken) {
        const held = takeQueue();
        try {
          const written = io.writeSync(fd, held.buf);
          if (written < held.buf.length) queue.unshift({ buf: held.buf.subarray(written), lines: linesIn(held.buf.subarray(written)) });
        } catch (err) {
          queue.unshift(held);
          if ((err as NodeJS.ErrnoException).code !== "EAGAIN") {
            broken = (err as NodeJS.ErrnoException).code ?? String(err);
            break;
          }
          if (Date.now() >= giveUpAt) break; // a reader that is still away: what is held is given up
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
      const givenUp = queue.reduce((n, h) => n + h.lines, 0);
      queue.length = 0;
      queuedBytes = 0;
      if (broken && dropped + givenUp > 0) io.report(`${dropped + givenUp} log lines dropped: stdout could not be written (${broken})`);
      else if (givenUp > 0) io.report(`${givenUp} log lines dropped: stdout was not being read`);
    },
  };
}

const droppedLine = (dropped: number) =>
  `${JSON.stringify({ level: 40, time: new Date().toISOString(), service: "snakes-game", dropped, msg: "log lines dropped: stdout was not being read" })}\n`;

/** The process's own file descriptors; reports go to stderr without ever blocking on it. */
const processIo: LogIo = {
  write: (fd, buf, callback) => fs.write(fd, buf, 0, buf.length, null, callback),
  writeSync: (fd, buf) => fs.writeSync(fd, buf),
  report(line) {
    // process.stderr, once it exists, has libuv put a pipe or socket in non-blocking mode: a full
    // or unread stderr is then EAGAIN here (the line is given up), never a blocked exit.
    void process.stderr;
    try {
      fs.writeSync(2, `${JSON.stringify({ level: 40, time: new Date().toISOString(), service: "snakes-game", msg: line })}\n`);
    } catch {
      // stderr is gone or full too: nowhere left to say it.
    }
  },
};
