// POST /matchmake/<method>/<room>: what the Colyseus SDK calls to be placed in a room (its answer,
// a seat reservation, is then redeemed over a WebSocket). Colyseus serves this route itself before
// Express and hands any body, whole, to the matchmaker and the rooms; the edge (./edge.ts) routes it
// here instead, and this is everything it meets, in order (docs/security.md, "/matchmake"):
//   request log line (app-wide) → a stopping process refuses (503 draining) → rate limit per account, or per address for guests (429) →
//   a browser page on an origin outside CORS_ORIGINS and not the server's own (403 origin_not_allowed) → body of at most 16 KB, refused by
//   its Content-Length before a byte is read, chunked ones as they arrive (413) → JSON (400) →
//   known method (404) → known room / live room id (404) → who may `create` it (403) → a declared
//   `sdk_version` of another Colyseus minor version (400, docs/clients.md) → the room's own
//   join-options schema (400) → the matchmaker, with the options that schema produced.
// Every refusal is a 4xx in the service's error shape, plus a top-level `message`: the Colyseus
// SDK reads `message` into its MatchMakeError. The matchmaker's own codes (520-526) never reach a
// client: each is mapped to what it means for the client, and anything unknown is a 500 logged at
// error (a server fault, never a client's).
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { createAuthContext, ErrorCode, matchMaker } from "@colyseus/core";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { resolveRoomIdentity } from "../auth/identity.js";
import { reconnectOptionsSchema, type CreatePolicy } from "../protocol/rooms.js";
import { roomIdSchema } from "../protocol/common.js";
import { COLYSEUS_PROTOCOL, SDK_VERSION_OPTION, sdkVersionRefusal, sdkVersionSchema } from "../protocol/version.js";
import { classifyError } from "./errorHandler.js";
import { JSON_BODY_LIMIT } from "./limits.js";
import { FixedWindowLimiter, rateLimit } from "./rateLimit.js";
import { addressKey } from "../net/proxy.js";
import { readCookie } from "../auth/cookies.js";
import { crossSiteWriteGuard, type OriginPolicy } from "./cors.js";
import { parseWith, problemsOf, summarizeProblems } from "./validate.js";
import { DEPENDENCY_RETRY_AFTER_S, dependencyUnavailable, isDependencyUnavailable } from "../dependencies.js";
import { activeRedisLink, isRedisUnreachable } from "../shared/redisLink.js";
import { activeRedisRecovery } from "../shared/redisRecovery.js";

export const MATCHMAKE_PREFIX = "/matchmake/";

/** What the edge knows of a room type: its join options and who may create one. */
export interface MatchmakeRoom {
  joinOptions: z.ZodType;
  /** "anyone": rooms only tests define. */
  create: CreatePolicy | "anyone";
}

/** The join options of a room only a test defines: any JSON object (still parsed into a fresh one). */
export const TEST_ROOM_OPTIONS = z.record(z.string(), z.unknown()).optional();

/** The SDK's matchmaking calls (Colyseus' controller.exposedMethods). */
const METHODS = ["joinOrCreate", "join", "create", "joinById", "reconnect"] as const;
type Method = (typeof METHODS)[number];
/** Methods whose path names a room id instead of a room type. */
const BY_ID = new Set<Method>(["joinById", "reconnect"]);

const STATUS_CODES: Record<number, string> = { 400: "invalid_join", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 409: "conflict", 410: "gone", 429: "rate_limited" };

/**
 * What a matchmaker failure means to the client. Colyseus answers its own failures with codes
 * 520-526 and wraps every other error (a room's ServerError keeps its code); those are read here.
 */
export function matchmakeRefusal(err: unknown): AppError | undefined {
  const { code, message = "" } = (err ?? {}) as { code?: unknown; message?: string };
  if (typeof code !== "number") return undefined;
  if (code >= 400 && code < 500) return new AppError(code, STATUS_CODES[code] ?? "refused", message);
  switch (code) {
    case ErrorCode.MATCHMAKE_NO_HANDLER:
      return new AppError(404, "unknown_room", "No such room type");
    case ErrorCode.MATCHMAKE_INVALID_CRITERIA:
      return new AppError(404, "no_room_found", "No room to join: use joinOrCreate to open one");
    case ErrorCode.MATCHMAKE_INVALID_ROOM_ID:
      return /locked/.test(message) ? new AppError(409, "room_locked", "The room takes no more players") : new AppError(404, "room_not_found", "No room with this id (it may have closed)");
    case ErrorCode.MATCHMAKE_EXPIRED:
      return new AppError(410, "reconnection_expired", "The reconnection token is invalid or expired");
    case ErrorCode.AUTH_FAILED:
      return new AppError(401, "unauthenticated", "The room refused the join");
    case 503:
      return new AppError(503, "shutting_down", "The server is shutting down; try again shortly");
    case ErrorCode.MATCHMAKE_UNHANDLED:
      // Seat reservations lost to concurrent joins (after Colyseus' own retries), or a room on
      // another process that did not answer in time.
      if (/is already full|not available/.test(message)) return new AppError(409, "room_full", "The room filled up meanwhile: join again");
      if (/timed out/.test(message)) return new AppError(503, "room_unavailable", "The room did not answer in time; try again");
      return undefined;
  }
  return undefined;
}

export function matchmakeRoutes(ctx: AppContext, rooms: Readonly<Record<string, MatchmakeRoom>>, origins: OriginPolicy): Router {
  const router = Router();
  const { matchmake, matchmakeAddress } = ctx.config.rateLimits;
  // A signed-in player counts on its account (a class behind one NAT is 40 budgets), a guest on its address.
  const perAccount = new FixedWindowLimiter(ctx.counters, "matchmake-account", matchmake.limit, matchmake.windowMs);
  const perAddress = new FixedWindowLimiter(ctx.counters, "matchmake-ip", matchmakeAddress.limit, matchmakeAddress.windowMs);

  // A stopping process leaves matchmaking at once (docs/operations.md, "Stopping and deploying"):
  // the client matchmakes again, through the load balancer, on another process.
  router.use((_req, res, next) => {
    if (matchMaker.state !== matchMaker.MatchMakerState.SHUTTING_DOWN) return next();
    res.setHeader("Retry-After", "1");
    throw new AppError(503, "draining", "The server is stopping: matchmake again to play on another process");
  });
  // Scaled out, while Redis is away, and after its return until this process has republished its
  // rooms and seats (src/shared/redisRecovery.ts): 503 dependency_unavailable with Retry-After.
  router.use((_req, _res, next) => {
    activeRedisRecovery()?.requireMatchmaking();
    next();
  });
  router.use(rateLimit(perAccount, (req) => sessionAccountOf(ctx, req)));
  router.use(rateLimit(perAddress, (req) => (sessionAccountOf(ctx, req) === undefined ? addressKey(ctx.proxies.clientAddress(req)) : undefined)));
  // A seat is reserved in the name of the cookie's account (and `create` opens a boss room as it):
  // a page on another origin, even same-site (another port of this host), gets 403 like every
  // cookie-reading write (src/http/cors.ts), in this router's shape.
  router.use(crossSiteWriteGuard(origins, ctx.proxies));
  router.post(
    "/:method/:target",
    refuseOversize,
    // Any content type: the SDK sends JSON, and Colyseus parsed every body as JSON too.
    express.json({ limit: JSON_BODY_LIMIT, strict: false, type: () => true }),
    async (req: Request, res: Response) => {
      const method = String(req.params.method) as Method;
      if (!METHODS.includes(method)) throw new AppError(404, "unknown_method", `Matchmaking methods: ${METHODS.join(", ")}`);
      const target = String(req.params.target);
      const roomName = BY_ID.has(method) ? await roomTypeOf(target) : target;
      const room = Object.hasOwn(rooms, roomName) ? rooms[roomName] : undefined;
      if (!room) throw new AppError(404, "unknown_room", `No such room type; rooms: ${Object.keys(rooms).join(", ")}`);
      if (method === "create") await mayCreate(ctx, req, roomName, room.create);
      const body: unknown = req.body === undefined ? {} : req.body; // no body at all: no options
      refuseOtherSdks(body);
      const options = method === "reconnect" ? parseWith(reconnectOptionsSchema, body, "options") : joinOptions(room.joinOptions, body);
      const auth = createAuthContext({ headers: req.headers as Record<string, string | undefined>, remoteAddress: ctx.proxies.clientAddress(req) });
      let seat: unknown;
      const recovery = activeRedisRecovery();
      try {
        const placing = matchMaker.controller.invokeMethod(method, target, (options ?? {}) as Record<string, unknown>, auth);
        seat = await (recovery ? recovery.whileUp(placing) : placing);
      } catch (err) {
        if (recovery && redisFailure(err)) throw dependencyUnavailable("redis");
        throw matchmakeRefusal(err) ?? err;
      }
      res.json(seat);
    },
  );
  router.all("/:method/:target", (_req, res) => {
    res.setHeader("Allow", "POST, OPTIONS");
    throw new AppError(405, "method_not_allowed", "Matchmaking takes POST");
  });
  router.use((_req, _res, next) => next(new AppError(404, "not_found", "Matchmaking paths are /matchmake/<method>/<room>")));
  router.use(matchmakeErrorHandler(ctx));
  return router;
}

/**
 * The account a request's session cookie names, for its rate limit: a token this server signed and
 * that has not expired (checked without the database: a forged cookie is a guest, and the join
 * itself checks the session again).
 */
function sessionAccountOf(ctx: AppContext, req: Request): string | undefined {
  const cached = (req as { matchmakeAccount?: string | null }).matchmakeAccount;
  if (cached !== undefined) return cached ?? undefined;
  const token = readCookie(req.headers.cookie, ctx.config.jwtCookieName);
  const check = token ? ctx.tokens.verify(token) : undefined;
  const account = check?.status === "ok" ? `u:${check.uid}` : undefined;
  (req as { matchmakeAccount?: string | null }).matchmakeAccount = account ?? null;
  return account;
}

/** A matchmaker failure that is Redis not answering (Colyseus wraps every error in a ServerError, keeping its code and message). */
function redisFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "dependency_unavailable" || isRedisUnreachable(err) || activeRedisLink()?.isDown() === true;
}

/** The options the room's schema makes of the body (unknown keys dropped), or 400 naming each problem. */
/**
 * A client that declares its SDK's version (join option `sdk_version`, src/protocol/version.ts) and
 * runs another Colyseus minor version is refused here, before it is seated: once in the room it could
 * not decode the handshake or the state frames, and would see no reason.
 */
function refuseOtherSdks(body: unknown): void {
  if (body === null || typeof body !== "object" || !Object.hasOwn(body, SDK_VERSION_OPTION)) return;
  const declared = sdkVersionSchema.safeParse((body as Record<string, unknown>)[SDK_VERSION_OPTION]);
  if (!declared.success) {
    throw new AppError(400, "invalid_join_options", `invalid join options: ${SDK_VERSION_OPTION} must be the SDK's version, such as ${COLYSEUS_PROTOCOL}.4`);
  }
  const refusal = sdkVersionRefusal(declared.data);
  if (refusal) {
    throw new AppError(400, "unsupported_sdk_version", refusal, { sdk_version: declared.data, protocol: COLYSEUS_PROTOCOL, supported: `${COLYSEUS_PROTOCOL}.x` });
  }
}

function joinOptions(schema: z.ZodType, body: unknown): unknown {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = problemsOf(parsed.error, "options");
  throw new AppError(400, "invalid_join_options", `invalid join options: ${summarizeProblems(problems)}`, { problems });
}

/**
 * A body over the limit is refused, and its connection closed, as soon as that is known: a declared
 * one before a byte of it is read, a chunked one when it passes the limit (the JSON parser would
 * otherwise read it to its end before answering).
 */
function refuseOversize(req: Request, res: Response, next: NextFunction): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined) {
    if (Number(declared) <= JSON_BODY_LIMIT) return next();
    res.setHeader("Connection", "close");
    return next(new AppError(413, "payload_too_large", "Request body is too large"));
  }
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= JSON_BODY_LIMIT) return;
    req.off("data", count);
    if (!res.headersSent) {
      res.setHeader("Connection", "close");
      res.status(413).json(errorBody(new AppError(413, "payload_too_large", "Request body is too large")));
    }
    res.once("finish", () => req.socket.destroy());
  };
  req.on("data", count);
  next();
}

/** The room type behind a room id of joinById / reconnect. */
async function roomTypeOf(roomId: string): Promise<string> {
  parseWith(roomIdSchema.min(1), roomId, "room id");
  const listing = await matchMaker.getRoomById(roomId);
  if (!listing) throw new AppError(404, "room_not_found", "No room with this id (it may have closed)");
  return listing.name;
}

async function mayCreate(ctx: AppContext, req: Request, roomName: string, policy: MatchmakeRoom["create"]): Promise<void> {
  if (policy === "anyone") return;
  if (policy === "matchmaking") throw new AppError(403, "create_not_allowed", `${roomName} rooms are made by matchmaking: use joinOrCreate`);
  const identity = await resolveRoomIdentity(ctx, req.headers.cookie);
  if (identity.kind !== "account") throw new AppError(403, "sign_in_required", `Only signed-in players open a ${roomName} room of their own; guests use joinOrCreate`);
}

function matchmakeErrorHandler(ctx: AppContext) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = classifyError(err, ctx.logger, req) ?? new AppError(500, "internal_error", "Internal server error");
    if (res.headersSent) return;
    // A client still sending a body it was told is too large gets the answer, then the socket closes.
    if (known.status === 413) res.setHeader("Connection", "close");
    if (isDependencyUnavailable(known)) res.setHeader("Retry-After", String(known.details?.retry_after_s ?? DEPENDENCY_RETRY_AFTER_S));
    res.status(known.status).json(errorBody(known));
  };
}

/** The service's error shape, plus the top-level `message` the Colyseus SDK reads. */
function errorBody(e: AppError) {
  return { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, message: e.message };
}
