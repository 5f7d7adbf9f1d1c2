// Request ids and one structured log line per request.
import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../logger.js";

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && ID_PATTERN.test(incoming) ? incoming : randomUUID();
    req.requestId = id;
    res.setHeader("X-Request-Id", id);
    const started = process.hrtime.bigint();
    // Routers rewrite req.path while routing; the original URL is what the client asked for.
    const path = req.originalUrl.split("?")[0];
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? "error" : "info";
      logger[level]({ requestId: id, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
    });
    next();
  };
}
