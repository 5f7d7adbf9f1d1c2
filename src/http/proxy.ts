// Which peer may speak for the client: only the reverse proxy on this machine (loopback, as in
// docs/deploy/nginx.conf). Its X-Forwarded-For / X-Forwarded-Host count; from any other peer those
// headers are the client's own words and are ignored. Express gets the same rule ("trust proxy").
import type { IncomingMessage } from "node:http";

/** Express's "trust proxy" setting (src/http/app.ts); isTrustedProxy below is the same rule. */
export const TRUST_PROXY = "loopback";

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (what Express's "loopback" names). */
export function isTrustedProxy(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/**
 * The client's address, as Express's req.ip computes it: the peer, unless the peer is the trusted
 * proxy; then the nearest X-Forwarded-For entry that is not itself the proxy.
 */
export function clientAddress(req: Pick<IncomingMessage, "headers" | "socket">): string {
  let address = req.socket.remoteAddress ?? "unknown";
  if (!isTrustedProxy(address)) return address;
  const header = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((h) => h.trim()).filter(Boolean).reverse();
  for (const hop of hops) {
    address = hop;
    if (!isTrustedProxy(hop)) break;
  }
  return address;
}

/** The host the browser used: X-Forwarded-Host from the trusted proxy, else the Host header. */
export function requestHost(req: Pick<IncomingMessage, "headers" | "socket">): string | undefined {
  const forwarded = req.headers["x-forwarded-host"];
  if (forwarded !== undefined && isTrustedProxy(req.socket.remoteAddress)) return (Array.isArray(forwarded) ? forwarded[0] : forwarded).split(",")[0].trim();
  return req.headers.host;
}
