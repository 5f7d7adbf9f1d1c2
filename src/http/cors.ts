// Credentialed CORS and WebSocket origin checks against CORS_ORIGINS. Colyseus would otherwise
// reflect any Origin with credentials on every HTTP response (cross-site request and socket
// hijacking with the session cookie).
import { matchMaker, type BeforeUpgradeHandler } from "@colyseus/core";
import type { RequestHandler } from "express";
import { AppError } from "../errors.js";

export class OriginPolicy {
  private readonly allowed: Set<string>;
  constructor(origins: string[]) {
    this.allowed = new Set(origins.map((o) => o.toLowerCase()));
  }
  /** Requests without an Origin header are not cross-site browser requests. */
  allows(origin: string | null | undefined): boolean {
    return !origin || this.allowed.has(origin.toLowerCase());
  }
  isListed(origin: string | null | undefined): origin is string {
    return !!origin && this.allowed.has(origin.toLowerCase());
  }
}

const ALLOW_HEADERS = "Origin, X-Requested-With, Content-Type, Accept, Authorization";
const ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/**
 * Replaces Colyseus' reflect-any-origin default. Colyseus decorates every HTTP response (Express
 * routes included) with these headers and answers every OPTIONS preflight itself.
 */
export function installColyseusCors(policy: OriginPolicy): void {
  (matchMaker.controller as { DEFAULT_CORS_HEADERS: Record<string, string> }).DEFAULT_CORS_HEADERS = {
    "Access-Control-Allow-Headers": ALLOW_HEADERS,
    "Access-Control-Allow-Methods": ALLOW_METHODS,
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  };
  matchMaker.controller.getCorsHeaders = (headers: Headers): Record<string, string> => {
    const origin = headers.get("origin");
    return policy.isListed(origin)
      ? { "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true" }
      : {};
  };
}

/**
 * Refuses WebSocket upgrades from browser pages on origins outside the list. The server's own
 * origin always passes: the /play client is served from it.
 */
export function upgradeOriginGuard(policy: OriginPolicy): BeforeUpgradeHandler {
  return (_url, context) => {
    const origin = context.headers.get("origin");
    if (policy.allows(origin) || sameOrigin(origin!, context.headers.get("host") ?? undefined)) return undefined;
    return new Response(JSON.stringify({ error: { code: "origin_not_allowed", message: "Origin not allowed" } }), {
      status: 403,
      headers: { "content-type": "application/json" },
    });
  };
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Cross-site request forgery guard for cookie-authenticated writes. SameSite=Lax already keeps the
 * cookie off cross-site POSTs; this also refuses writes from pages on *same-site* origins outside
 * the list (another subdomain) and from browsers that send no cookie policy at all. A browser
 * write carries Origin (or at least Sec-Fetch-Site); a listed or same-origin page passes, and so
 * does any non-browser client (no Origin, no Sec-Fetch-Site).
 */
export function crossSiteWriteGuard(policy: OriginPolicy): RequestHandler {
  return (req, _res, next) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const origin = req.get("origin");
    const allowed = origin ? policy.isListed(origin) || sameOrigin(origin, req.get("host")) : req.get("sec-fetch-site") !== "cross-site";
    if (allowed) return next();
    next(new AppError(403, "origin_not_allowed", `Writes from origin ${JSON.stringify((origin ?? "cross-site").slice(0, 100))} are not allowed`));
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return Boolean(host) && new URL(origin).host.toLowerCase() === host!.toLowerCase();
  } catch {
    return false; // "null" and other opaque origins
  }
}
