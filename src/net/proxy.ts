// Which peers may speak for the client: the reverse proxies named by TRUST_PROXY (default loopback:
// the proxy on this machine, as in docs/deploy/nginx.conf). Their X-Forwarded-For / X-Forwarded-Host
// count; from any other peer those headers are the client's own words and are ignored. Express gets
// the very same function as its "trust proxy" setting, so req.ip and clientAddress() never differ.
// Every per-address rule (rate limits, the WebSocket connection cap, the origin checks, the admin
// endpoint's direct-connection rule) asks this one module.
import type { IncomingMessage } from "node:http";
import { isIPv6 } from "node:net";
import { compileTrust, DEFAULT_TRUST_PROXY, type TrustFn } from "../config.js";

export { DEFAULT_TRUST_PROXY, TRUST_PROXY, parseTrustProxy } from "../config.js";

/** "::ffff:198.51.100.7" and "198.51.100.7" are one client. */
export function normalizeAddress(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/**
 * What per-address limits count: an IPv4 address as it is, an IPv6 address by its /64 (one
 * subscriber or one school network gets a /64 or more; counting single addresses would give an
 * attacker 2^64 fresh budgets).
 */
export function addressKey(address: string): string {
  const a = normalizeAddress(address);
  if (!isIPv6(a)) return a;
  const [head, tail = ""] = a.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = a.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g || "0", 16).toString(16)).join(":")}::/64`;
}

export class TrustedProxies {
  /** The function Express's "trust proxy" is set to (src/http/app.ts). */
  readonly trusts: TrustFn;

  constructor(readonly list: readonly string[] = DEFAULT_TRUST_PROXY) {
    this.trusts = compileTrust(list);
  }

  isTrusted(address: string | undefined): boolean {
    return !!address && this.trusts(address, 0);
  }

  /**
   * The client's address, as Express's req.ip computes it: the peer, unless the peer is a trusted
   * proxy; then the nearest X-Forwarded-For entry that is not itself a trusted proxy.
   */
  clientAddress(req: Pick<IncomingMessage, "headers" | "socket">): string {
    let address = req.socket.remoteAddress ?? "unknown";
    if (!this.isTrusted(address)) return normalizeAddress(address);
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((h) => h.trim()).filter(Boolean).reverse();
    for (const [i, hop] of hops.entries()) {
      address = hop;
      if (!this.trusts(hop, i + 1)) break;
    }
    return normalizeAddress(address);
  }

  /** The host the browser used: X-Forwarded-Host from a trusted proxy, else the Host header. */
  requestHost(req: Pick<IncomingMessage, "headers" | "socket">): string | undefined {
    const forwarded = req.headers["x-forwarded-host"];
    if (forwarded !== undefined && this.isTrusted(req.socket.remoteAddress)) return (Array.isArray(forwarded) ? forwarded[0] : forwarded).split(",")[0].trim();
    return req.headers.host;
  }
}

/** The default (loopback) trust, for callers without a context (tests, tools). */
export const LOOPBACK_PROXIES = new TrustedProxies();

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6: the default trust. */
export function isTrustedProxy(address: string | undefined, proxies: TrustedProxies = LOOPBACK_PROXIES): boolean {
  return proxies.isTrusted(address);
}

export function clientAddress(req: Pick<IncomingMessage, "headers" | "socket">, proxies: TrustedProxies = LOOPBACK_PROXIES): string {
  return proxies.clientAddress(req);
}

export function requestHost(req: Pick<IncomingMessage, "headers" | "socket">, proxies: TrustedProxies = LOOPBACK_PROXIES): string | undefined {
  return proxies.requestHost(req);
}
