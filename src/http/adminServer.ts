// The admin endpoint's own HTTP server (issue 41): POST /admin/commands for `npm run admin`, on a
// listener bound to loopback on a port of its own (chosen by the system; DATA_DIR/admin.json names
// it), never on the public port. So whatever HOST is, and whatever a proxy in front of the public
// port relays (nginx's bare proxy_pass adds no X-Forwarded-For), no other machine can reach it; a
// connection that is not from loopback is closed unanswered all the same, and a request carrying
// any forwarding header is refused as relayed (./adminRoutes.ts). Started and stopped with the
// application (src/app.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { AppContext } from "../context.js";
import { adminRoutes } from "./adminRoutes.js";
import { jsonErrorHandler, notFoundHandler } from "./errorHandler.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./limits.js";
import { isTrustedProxy } from "../net/proxy.js";
import { requestLog } from "./requestLog.js";

export interface AdminServer {
  /** http://127.0.0.1:PORT (or [::1] when HOST is ::1): what admin.json publishes. */
  url: string;
  /** Stops taking connections and resolves once the commands in flight have been answered. */
  close(): Promise<void>;
}

/** Loopback, in the family the server was asked to listen on. */
export const adminListenHost = (host: string) => (host === "::1" ? "::1" : "127.0.0.1");

export async function startAdminServer(ctx: AppContext, token: string, host: string): Promise<AdminServer> {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLog(ctx.logger));
  app.use(adminRoutes(ctx, token));
  app.use(notFoundHandler);
  app.use(jsonErrorHandler(ctx.logger, ctx.storage));
  const server: Server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, app);
  // Bound to loopback, so this cannot happen; checked anyway, as the guarantee this listener gives.
  server.on("connection", (socket) => {
    if (!isTrustedProxy(socket.remoteAddress)) socket.destroy();
  });
  let closing: Promise<void> | undefined;
  // A command answered while stopping: its keep-alive connection must not hold the stop.
  server.on("request", (_req, res) => res.on("finish", () => closing && setImmediate(() => server.closeIdleConnections())));
  const address = adminListenHost(host);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: address, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      })),
  };
}
