// The game server's HTTP edge: what every request and WebSocket upgrade meets before Colyseus or
// Express does (docs/security.md, "HTTP").
// - The HTTP server gives a request REQUEST_TIMEOUT_MS to arrive whole and HEADERS_TIMEOUT_MS for
//   its headers (Node's defaults hold a slow body 300 s).
// - Forwarded headers from a peer that is not the trusted proxy (./proxy.ts) are dropped, so
//   nothing behind (Colyseus' auth context, the origin checks) can be told another address or host.
// - POST /matchmake/* goes to Express, where src/http/matchmake.ts guards it, instead of Colyseus'
//   own router, which would read any body whole and hand its options to the rooms unchecked.
// - WebSocket upgrades beyond MAX_CONNECTIONS_PER_ADDRESS open sockets of one address get 429.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { matchMaker } from "@colyseus/core";
import type { Logger } from "../ops/logger.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./limits.js";
import { addressKey, type TrustedProxies } from "../net/proxy.js";
import { MATCHMAKE_PREFIX } from "./matchmake.js";
import { refusalLogGate } from "./refusalLog.js";

/** How often Node checks requests against the timeouts (its default, 30 s, would let one run 45 s). */
const TIMEOUT_CHECK_MS = 1000;

/** The HTTP server the transport listens on, with the edge's timeouts. */
export function createGameHttpServer(): Server {
  return createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS });
}

/** What a proxy says about the client; also what marks a request to the admin endpoint as relayed. */
export const FORWARDING_HEADERS = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "x-client-ip", "forwarded"];

/** Drops what a peer other than a trusted proxy (TRUST_PROXY) says about the client (its address, host, scheme). */
export function dropUntrustedForwarding(req: IncomingMessage, proxies: TrustedProxies): void {
  if (proxies.isTrusted(req.socket.remoteAddress)) return;
  for (const name of FORWARDING_HEADERS) delete req.headers[name];
}

const isMatchmake = (req: IncomingMessage) => req.method !== "OPTIONS" && (req.url ?? "").startsWith(MATCHMAKE_PREFIX);

/**
 * Puts the edge in front of the listeners Colyseus bound (call after it listens): its CORS +
 * router listener keeps every other request, OPTIONS preflights included.
 */
export function guardRequests(http: Server, app: RequestListener, proxies: TrustedProxies): void {
  const bound = http.listeners("request") as RequestListener[];
  http.removeAllListeners("request");
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    dropUntrustedForwarding(req, proxies);
    if (!isMatchmake(req)) {
      for (const listener of bound) listener.call(http, req, res);
      return;
    }
    // The CORS headers Colyseus' listener would have set (src/http/cors.ts decides them).
    const cors = { ...matchMaker.controller.DEFAULT_CORS_HEADERS, ...matchMaker.controller.getCorsHeaders(new Headers(req.headers as Record<string, string>)) };
    for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
    app(req, res);
  });
}

/** Open WebSocket sockets per client address. */
export class ConnectionCounts {
  private readonly open = new Map<string, number>();
  constructor(readonly maxPerAddress: number) {}

  /** Takes a slot for `address` until `socket` closes; false when the address has none left. */
  admit(address: string, socket: Duplex): boolean {
    const n = this.open.get(address) ?? 0;
    if (n >= this.maxPerAddress) return false;
    this.open.set(address, n + 1);
    socket.once("close", () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left > 0) this.open.set(address, left);
      else this.open.delete(address);
    });
    return true;
  }

  of(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** Puts the edge in front of the transport's upgrade listener (call once the transport exists). */
export function guardUpgrades(http: Server, counts: ConnectionCounts, logger: Logger, proxies: TrustedProxies): void {
  const bound = http.listeners("upgrade") as Array<(req: IncomingMessage, socket: Duplex, head: Buffer) => void>;
  http.removeAllListeners("upgrade");
  const logDue = refusalLogGate();
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    dropUntrustedForwarding(req, proxies);
    const address = addressKey(proxies.clientAddress(req));
    if (!counts.admit(address, socket)) {
      if (logDue(address)) {
        logger.warn({ address, open: counts.of(address), limit: counts.maxPerAddress }, "WebSocket upgrade refused (429): too many open connections from this address (MAX_CONNECTIONS_PER_ADDRESS)");
      }
      const body = JSON.stringify({ error: { code: "too_many_connections", message: `At most ${counts.maxPerAddress} open connections per address` } });
      socket.end(`HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    for (const listener of bound) listener.call(http, req, socket, head);
  });
}
