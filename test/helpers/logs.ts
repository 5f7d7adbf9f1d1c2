// A logger that keeps every line it writes, so tests can check what the server logged and at
// which level (pino levels: 30 info, 40 warn, 50 error).
import { Writable } from "node:stream";
import { pino } from "pino";
import type { Logger } from "../../src/ops/logger.js";

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface CapturedLogs {
  logger: Logger;
  lines: LogLine[];
  /** Lines at `error` or above. */
  errors(): LogLine[];
}

export function captureLogs(level = "info"): CapturedLogs {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n")) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  const logger = pino({ level }, sink);
  return { logger, lines, errors: () => lines.filter((l) => l.level >= 50) };
}
