// While the process waits for a dependency at start (Redis: src/shared/redisLink.ts), its port
// already answers: GET /health 200 (the process is up), everything else 503 `not_ready` with
// Retry-After and the dependencies it waits for, so a load balancer's /ready check sees 503 instead
// of a refused connection. The real server takes the port over once the wait is over.
import { createServer } from "node:http";

export interface WaitingServer {
  close(): Promise<void>;
}

/** Listens on port/host until closed; resolves undefined when the port cannot be taken (the real listen reports why). */
export async function listenWhileWaiting(port: number, host: string | undefined, down: () => string[]): Promise<WaitingServer | undefined> {
  const server = createServer((req, res) => {
    const health = req.method === "GET" && req.url?.split("?")[0] === "/health";
    const body = health
      ? { status: "starting", waiting_for: down() }
      : { error: { code: "not_ready", message: `Not reachable: ${down().join(", ")}`, details: { down: down() } } };
    if (!health) res.setHeader("Retry-After", "5");
    res.writeHead(health ? 200 : 503, { "content-type": "application/json; charset=utf-8", connection: "close" });
    res.end(JSON.stringify(body));
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return undefined;
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
