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
