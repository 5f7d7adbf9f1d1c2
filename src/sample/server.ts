// The sample information server (spec 000): one HTML page and one JSON list, readable
// cross-origin with credentials. Plain node:http: two routes need no framework.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { informationRecords } from "./records.js";
import type { Logger } from "../ops/logger.js";

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sample information server</title></head>
<body>
<h1>Sample information server</h1>
<p>The information records are served as JSON at <a href="/api/data">/api/data</a>.</p>
</body>
</html>
`;

type Route = { methods: string[]; handle: (req: IncomingMessage, res: ServerResponse) => void };

const routes: Record<string, Route> = {
  "/": {
    methods: ["GET", "HEAD"],
    handle: (req, res) => send(res, req, 200, "text/html; charset=utf-8", PAGE),
  },
  "/api/data": {
    methods: ["GET", "HEAD"],
    handle: (req, res) => send(res, req, 200, "application/json; charset=utf-8", JSON.stringify(informationRecords)),
  },
};

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}

function sendError(res: ServerResponse, req: IncomingMessage, status: number, code: string, message: string): void {
  send(res, req, status, "application/json; charset=utf-8", JSON.stringify({ error: { code, message } }));
}

/** Any Origin is accepted and reflected, with credentials (the spec's cross-origin rule). */
function applyCors(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("Vary", "Origin");
  const origin = req.headers.origin;
  if (!origin) return;
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Access-Control-Allow-Credentials", "true");
}

export function handleSampleRequest(req: IncomingMessage, res: ServerResponse): void {
  applyCors(req, res);
  const path = new URL(req.url ?? "/", "http://sample").pathname;
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  if (!route) return sendError(res, req, 404, "not_found", `No resource at ${path}`);
  const allow = [...route.methods, "OPTIONS"].join(", ");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", allow);
    const requested = req.headers["access-control-request-headers"];
    if (requested) res.setHeader("Access-Control-Allow-Headers", requested);
    res.setHeader("Access-Control-Max-Age", "600");
    res.writeHead(204).end();
    return;
  }
  if (!route.methods.includes(req.method ?? "")) {
    res.setHeader("Allow", allow);
    return sendError(res, req, 405, "method_not_allowed", `${req.method} is not allowed on ${path}; allowed: ${allow}`);
  }
  route.handle(req, res);
}

export interface SampleServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startSampleServer(port: number, logger: Logger, host?: string): Promise<SampleServer> {
  const server = createServer((req, res) => {
    try {
      handleSampleRequest(req, res);
    } catch (err) {
      logger.error({ err }, "sample server error");
      if (!res.headersSent) sendError(res, req, 500, "internal_error", "Internal server error");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
