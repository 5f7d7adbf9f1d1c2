// Credentialed CORS and WebSocket origin checks against CORS_ORIGINS. Colyseus would otherwise
// reflect any Origin with credentials on every HTTP response (cross-site request and socket
// hijacking with the session cookie).
import { matchMaker, type BeforeUpgradeHandler } from "@colyseus/core";
import type { RequestHandler } from "express";
import { AppError } from "../errors.js";
import type { Logger } from "../ops/logger.js";
import type { TrustedProxies } from "../net/proxy.js";
import { refusalLogGate } from "./refusalLog.js";

export class OriginPolicy {
  private readonly allowed: Set<string>;
  private readonly publicHost?: string;
  /**
   * @param origins CORS_ORIGINS
   * @param publicAddress PUBLIC_ADDRESS ("game.example.com/2568"): its host is this server's too
   */
  constructor(origins: string[], publicAddress?: string) {
    this.allowed = new Set(origins.map((o) => o.toLowerCase()));
    this.publicHost = publicAddress?.replace(/^[a-z]+:\/\//i, "").split("/")[0].toLowerCase() || undefined;
  }
  /** Requests without an Origin header are not cross-site browser requests. */
  allows(origin: string | null | undefined): boolean {
    return !origin || this.allowed.has(origin.toLowerCase());
  }
  isListed(origin: string | null | undefined): origin is string {
    return !!origin && this.allowed.has(origin.toLowerCase());
  }
  /**
   * A page served by this server itself, as the browser reached it: the Host of the request, the
   * host the trusted proxy forwarded, or PUBLIC_ADDRESS. (A browser cannot forge these headers; a
   * non-browser client can, and its X-Forwarded-Host is ignored unless it is the trusted proxy.)
   */
  isOwn(origin: string, requestHosts: Array<string | null | undefined>): boolean {
    let host: string;
    try {
      host = new URL(origin).host.toLowerCase();
    } catch {
      return false; // "null" and other opaque origins
    }
    if (!host) return false;
    if (host === this.publicHost) return true;
    return requestHosts.some((h) => !!h && h.split(",")[0].trim().toLowerCase() === host);
  }
  /** Listed, or the server's own origin, or no Origin at all (not a browser page). */
  admitsBrowser(origin: string | null | undefined, requestHosts: Array<string | null | undefined>): boolean {
    return !origin || this.isListed(origin) || this.isOwn(origin, requestHosts);
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
 * Refuses WebSocket upgrades from browser pages on origins outside the list (cross-site WebSocket
 * hijacking with the session cookie); the server's own origin always passes.
 */
export function upgradeOriginGuard(policy: OriginPolicy, logger: Logger): BeforeUpgradeHandler {
  const logDue = refusalLogGate();
  return (_url, context) => {
    const origin = context.headers.get("origin");
    // The edge (./edge.ts) dropped X-Forwarded-Host unless the trusted proxy sent it.
    const hosts = [context.headers.get("host"), context.headers.get("x-forwarded-host")];
    if (policy.admitsBrowser(origin, hosts)) return undefined;
    if (logDue(origin!)) {
      logger.warn(
        { origin: origin!.slice(0, 200), host: hosts[0] ?? undefined },
        "WebSocket upgrade refused (403): origin not allowed; add it to CORS_ORIGINS if pages on it may connect",
      );
    }
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
export function crossSiteWriteGuard(policy: OriginPolicy, proxies: TrustedProxies): RequestHandler {
  return (req, _res, next) => {
    if (!WRITE_METHODS.has(req.method)) return next();
    const origin = req.get("origin");
    // The host the browser used; X-Forwarded-Host counts only from a trusted proxy (./proxy.ts).
    const allowed = origin ? policy.admitsBrowser(origin, [proxies.requestHost(req)]) : req.get("sec-fetch-site") !== "cross-site";
    if (allowed) return next();
    next(new AppError(403, "origin_not_allowed", `Writes from origin ${JSON.stringify((origin ?? "cross-site").slice(0, 100))} are not allowed`));
  };
}
