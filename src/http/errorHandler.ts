// The JSON error body for every game-server route: { "error": { "code", "message", "details"? } }.
import type { ErrorRequestHandler, Request, Response } from "express";
import { AppError } from "../errors.js";
import type { Logger } from "../logger.js";

export function sendError(res: Response, status: number, code: string, message: string, details?: Record<string, unknown>): void {
  res.status(status).json({ error: { code, message, ...(details ? { details } : {}) } });
}

/** Maps body-parser failures (malformed JSON, oversized bodies, bad charset) to AppErrors. */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const type = (err as { type?: string } | null)?.type;
  switch (type) {
    case "entity.parse.failed":
      return new AppError(400, "invalid_json", "Request body is not valid JSON");
    case "entity.too.large":
      return new AppError(413, "payload_too_large", "Request body is too large");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new AppError(415, "unsupported_encoding", "Unsupported request body encoding");
    case "request.aborted":
      return new AppError(400, "request_aborted", "Request body was not received completely");
  }
  return undefined;
}

export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req: Request, res: Response, _next) => {
    const known = toAppError(err);
    if (known) {
      if (known.status >= 500) logger.error({ err, requestId: req.requestId }, known.message);
      return sendError(res, known.status, known.code, known.message, known.details);
    }
    logger.error({ err, requestId: req.requestId, path: req.path }, "unhandled error");
    if (res.headersSent) return;
    sendError(res, 500, "internal_error", "Internal server error");
  };
}

export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, 404, "not_found", `No route for ${req.method} ${req.path}`);
}
