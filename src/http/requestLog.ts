// Request ids and one structured log line per request.
import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../ops/logger.js";
import { observeHttpRequest } from "../ops/metrics.js";

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
      // 503 is a known state with a line of its own (a full disk, once per interval; /play not built):
      // each request is a warning, not another error.
      const level = res.statusCode === 503 ? "warn" : res.statusCode >= 500 ? "error" : "info";
      logger[level]({ requestId: id, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
      observeHttpRequest(req.method, routeLabel(req, path, res.statusCode), res.statusCode, ms);
    });
    next();
  };
}

/** Where the app mounts routers (src/http/app.ts); a route's metric label is its mount plus its pattern. */
const MOUNTS = ["/api/public", "/api/auth", "/api/workspace", "/api/snakes", "/api/boss", "/api/pvp", "/api/slitherrush", "/api/modes", "/play", "/monitor", "/playground"];

/**
 * The route pattern of a request for the metrics (`/api/boss/room/:room_id`, never the raw path, so
 * labels stay few): its mount plus the matched route; `/api/boss/*` when a router's middleware
 * answered before any route (a 401); `unmatched` for paths no route serves.
 */
export function routeLabel(req: Request, path: string, status: number): string {
  const mount = MOUNTS.find((m) => path === m || path.startsWith(`${m}/`)) ?? "";
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === "string") return `${mount}${route.path}`.replace(/\/\/+/g, "/");
  if (status === 404 || !mount) return "unmatched";
  return `${mount}/*`;
}
