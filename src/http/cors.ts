// Credentialed CORS and WebSocket origin checks against CORS_ORIGINS. Colyseus would otherwise
// reflect any Origin with credentials on every HTTP response (cross-site request and socket
// hijacking with the session cookie).
import { matchMaker, type BeforeUpgradeHandler } from "@colyseus/core";

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

/** Refuses WebSocket upgrades from browser pages on origins outside the list. */
export function upgradeOriginGuard(policy: OriginPolicy): BeforeUpgradeHandler {
  return (_url, context) => {
    const origin = context.headers.get("origin");
    if (policy.allows(origin)) return undefined;
    return new Response(JSON.stringify({ error: { code: "origin_not_allowed", message: "Origin not allowed" } }), {
      status: 403,
      headers: { "content-type": "application/json" },
    });
  };
}
