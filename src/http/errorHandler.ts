// The JSON error body for every game-server route: { "error": { "code", "message", "details"? } }.
import type { ErrorRequestHandler, Request, Response } from "express";
import { AppError } from "../errors.js";
import type { Logger } from "../ops/logger.js";
import { isStorageFull, type StorageHealth } from "../process/storageHealth.js";
import { DEPENDENCY_RETRY_AFTER_S, dependencyUnavailable, isDependencyUnavailable } from "../dependencies.js";
import { isDatabaseUnreachable } from "../db/unreachable.js";

export function sendError(res: Response, status: number, code: string, message: string, details?: Record<string, unknown>): void {
  res.status(status).json({ error: { code, message, ...(details ? { details } : {}) } });
}

/** Prisma error codes that mean "this value cannot be stored or compared" (too long, wrong type, out of range). */
const PRISMA_INPUT_CODES = new Set(["P2000", "P2005", "P2006", "P2007", "P2009", "P2033"]);

/**
 * Why the database refused a value of the request, when it did: Prisma's own validation, or a
 * PostgreSQL data exception (SQLSTATE class 22: a NUL in text, an invalid encoding, a number out of
 * range). The text rule (protocol/text.ts) and the schemas stop such values first; this is the
 * second line, so a value they miss is still the client's mistake and not a server fault.
 */
export function databaseInputProblem(err: unknown): string | undefined {
  const e = err as { name?: string; code?: string; meta?: { driverAdapterError?: { cause?: { code?: string; message?: string } } } } | null;
  if (e?.name === "PrismaClientValidationError") return "PrismaClientValidationError";
  if (e?.name !== "PrismaClientKnownRequestError") return undefined;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause?.code?.startsWith("22")) return `${cause.code} ${cause.message ?? ""}`.trim();
  return e.code && PRISMA_INPUT_CODES.has(e.code) ? e.code : undefined;
}

/** The warn line of a database input refusal: no stack, and a message the fuzz suite looks for. */
export const DATABASE_REFUSED_INPUT = "the database refused a value of this request (the input schemas should have)";

/** How long a client should wait before retrying a write refused for a full disk (body and Retry-After). */
const STORAGE_FULL_RETRY_AFTER_S = 30;

/** Logs a client mistake at warn (without a stack) or a server fault at error; returns what to answer. */
export function classifyError(err: unknown, logger: Logger, req: Request, storage?: StorageHealth): AppError | undefined {
  if (storage && isStorageFull(err)) {
    storage.refused(err); // one line per interval, not one per request
    return new AppError(503, "storage_full", "The server's storage is full: nothing was saved. Retry later", { retry_after_s: STORAGE_FULL_RETRY_AFTER_S });
  }
  // The database could not be reached: the statement itself marked it down (src/db/health.ts: one
  // error line per interval); this request gets the 503 and the request log's warn line, no more.
  if (isDatabaseUnreachable(err)) return dependencyUnavailable("database");
  const problem = databaseInputProblem(err);
  if (problem) {
    logger.warn({ requestId: req.requestId, method: req.method, path: req.path, problem }, DATABASE_REFUSED_INPUT);
    return new AppError(400, "invalid_input", "A value of this request cannot be stored: check its text and numbers");
  }
  const known = toAppError(err);
  if (!known) logger.error({ err, requestId: req.requestId, path: req.path }, "unhandled error");
  // A 503 is a refusal the server means (stopping, a room not answering in time): the request log's warn line says it, no stack.
  else if (known.status >= 500 && known.status !== 503) logger.error({ err, requestId: req.requestId }, known.message);
  return known;
}

/** Maps body-parser and router failures (malformed JSON, oversized bodies, bad charset, undecodable paths) to AppErrors. */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  // The router could not percent-decode a path parameter (bytes that are not UTF-8, such as a lone surrogate's).
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    return new AppError(400, "invalid_path", "The URL path is not valid percent-encoded UTF-8");
  }
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

export function jsonErrorHandler(logger: Logger, storage?: StorageHealth): ErrorRequestHandler {
  return (err, req: Request, res: Response, _next) => {
    const known = classifyError(err, logger, req, storage);
    if (res.headersSent) return;
    if (known?.code === "storage_full") res.setHeader("Retry-After", String(STORAGE_FULL_RETRY_AFTER_S));
    else if (isDependencyUnavailable(known)) res.setHeader("Retry-After", String(known.details?.retry_after_s ?? DEPENDENCY_RETRY_AFTER_S));
    if (known) return sendError(res, known.status, known.code, known.message, known.details);
    sendError(res, 500, "internal_error", "Internal server error");
  };
}

export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, 404, "not_found", `No route for ${req.method} ${req.path}`);
}
