// What a person sees when the server starts: readable log lines at a terminal in development, JSON
// otherwise, and one line with the URLs once both ports serve.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, prettyLogsWanted } from "../../src/ops/logger.js";
import { readyLine } from "../../src/app.js";

describe("log format", () => {
  it("is readable only for development at a terminal; JSON in production, tests and when piped", () => {
    expect(prettyLogsWanted("development", true)).toBe(true);
    expect(prettyLogsWanted("development", false)).toBe(false);
    expect(prettyLogsWanted("development", undefined)).toBe(false);
    expect(prettyLogsWanted("production", true)).toBe(false);
    expect(prettyLogsWanted("test", true)).toBe(false);
  });

  it("pretty: one line per event with the time, level and message, no pid or hostname; JSON otherwise", () => {
    const pretty = new PassThrough();
    let text = "";
    pretty.on("data", (d) => (text += d));
    createLogger("info", {}, { pretty: true, destination: pretty }).info({ port: 8500 }, "game server listening");
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: game server listening \{"port":8500\}\n$/);

    const json = new PassThrough();
    let raw = "";
    json.on("data", (d) => (raw += d));
    createLogger("info", {}, { destination: json }).info({ port: 8500 }, "game server listening");
    expect(JSON.parse(raw)).toMatchObject({ level: 30, service: "snakes-game", port: 8500, msg: "game server listening" });
  });
});

describe("the ready line", () => {
  it("names /play, the monitor when mounted, and says when every interface listens", () => {
    expect(readyLine("127.0.0.1", 8500, false)).toBe("ready: play at http://127.0.0.1:8500/play/");
    expect(readyLine("127.0.0.1", 8500, true)).toBe("ready: play at http://127.0.0.1:8500/play/, monitor at http://127.0.0.1:8500/monitor");
    expect(readyLine("0.0.0.0", 8500, false)).toBe("ready: play at http://127.0.0.1:8500/play/ (listening on every interface, HOST=0.0.0.0)");
    expect(readyLine("::1", 9000, false)).toBe("ready: play at http://[::1]:9000/play/");
  });
});
