// The logger Colyseus writes through. Colyseus logs every error it meets at `error`, stack
// included, among them errors a client causes by sending bytes that do not decode: an oversized or
// malformed WebSocket frame (the `ws` receiver), or a message payload that is not msgpack. Those
// are the client's mistakes, not the server's faults: they are logged at info, message line only,
// so a client cannot fill the error log. Everything else passes through unchanged.
import type { Logger } from "./logger.js";

/** The first stack frame lies in a wire decoder: the bytes came from a client and did not decode. */
const DECODER_FRAME = /node_modules[\\/](ws[\\/]lib[\\/]receiver\.js|msgpackr[\\/]|@colyseus[\\/]schema[\\/])|DataView\.prototype|at DataView\./;

/** The message of a client's undecodable input, when `text` (an error stack) is one; else undefined. */
export function undecodableInput(text: string): string | undefined {
  const firstFrame = text.split("\n").find((line) => /^\s+at /.test(line));
  if (!firstFrame || !DECODER_FRAME.test(firstFrame)) return undefined;
  return text.split("\n")[0].trim();
}

export interface ColyseusLogger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  trace(...args: unknown[]): void;
}

export function colyseusLogger(base: Logger): ColyseusLogger {
  const log = base.child({ component: "colyseus" });
  const write = (level: "debug" | "info" | "warn" | "error" | "trace") => (...args: unknown[]) => {
    const [first, ...rest] = args;
    if (typeof first === "string") (log[level] as (msg: string, ...a: unknown[]) => void)(first, ...rest);
    else (log[level] as (obj: unknown, ...a: unknown[]) => void)(first, ...rest);
  };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    trace: write("trace"),
    error(...args: unknown[]) {
      const text = args[0] instanceof Error ? (args[0].stack ?? args[0].message) : args[0];
      const mistake = typeof text === "string" ? undecodableInput(text) : undefined;
      if (mistake !== undefined) return log.info({ reason: mistake }, "client sent a frame that does not decode; its connection was closed");
      write("error")(...args);
    },
  };
}
