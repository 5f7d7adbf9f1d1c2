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

/** The server's stdout as a log destination, and how to flush it before the process exits. */
export interface StdoutLog {
  destination: DestinationStream;
  /** Writes out what is held, waiting at most `timeoutMs` for a reader; gives up the rest. Call right before process.exit. */
  flush(timeoutMs: number): void;
}

/**
 * stdout, written without ever blocking the server on its reader. pino's default destination
 * writes synchronously and, when stdout is a pipe whose reader has stopped reading (a full pipe:
 * EAGAIN), retries in a sleep loop (Atomics.wait) that parks the main thread for as long as the
 * reader stays away: the server stopped answering and a SIGTERM never finished (issue 24). Here
 * lines are written asynchronously; while the reader is away they are held (up to
 * STDOUT_BUFFER_BYTES, then dropped and counted), and the flush at exit waits a bounded time.
 */
export function stdoutLog(): StdoutLog {
  let giveUpAt = Infinity;
  let dropped = 0;
  const stream = pino.destination({ dest: 1, sync: false, maxLength: STDOUT_BUFFER_BYTES, retryEAGAIN: () => Date.now() < giveUpAt });
  stream.on("drop", () => dropped++);
  return {
    destination: stream,
    flush(timeoutMs) {
      giveUpAt = Date.now() + timeoutMs;
      try {
        if (dropped) stream.write(`${JSON.stringify({ level: 40, time: new Date().toISOString(), service: "snakes-game", dropped, msg: "log lines dropped: stdout was not being read" })}\n`);
        stream.flushSync();
      } catch {
        // The reader is still away: what is held is given up (writing elsewhere could block too).
      }
      // Nothing left for pino's own flush at exit, which would wait again.
      stream.destroy();
    },
  };
}
