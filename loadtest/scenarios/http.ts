// HTTP: closed-loop keep-alive connections (one request in flight each), spread over up to 32
// accounts, against one endpoint (--endpoint, default progress). Latency is the request's round
// trip; an input is a request; loss does not apply.
import type { RunningLoad, Scenario, ScenarioContext } from "../harness/scenario.js";
import { LeanHttpConnection } from "../harness/leanHttp.js";

const MAX_ACCOUNTS = 32;

interface Endpoint {
  summary: string;
  request(base: URL, cookie: string, n: number): Buffer;
}

const json = (method: string, path: string, body?: (n: number) => unknown): Endpoint["request"] => {
  // Requests without a varying body are built once per account.
  const cache = new Map<string, Buffer>();
  return (base, cookie, n) => {
    if (body) return LeanHttpConnection.request(method, base, path, { Cookie: cookie }, body(n));
    let bytes = cache.get(cookie);
    if (!bytes) cache.set(cookie, (bytes = LeanHttpConnection.request(method, base, path, { Cookie: cookie })));
    return bytes;
  };
};

export const endpoints: Record<string, Endpoint> = {
  health: { summary: "GET /health", request: json("GET", "/health") },
  me: { summary: "GET /api/auth/me (session + user)", request: json("GET", "/api/auth/me") },
  progress: { summary: "GET /api/snakes/progress", request: json("GET", "/api/snakes/progress") },
  autosave: {
    summary: "PUT /api/snakes/ (autosave)",
    request: json("PUT", "/api/snakes/", (n) => ({ current_square: 1 + (n % 6), lives: 3, time_played: n })),
  },
  answer: {
    summary: "POST /api/snakes/answer-question",
    request: json("POST", "/api/snakes/answer-question", (n) => ({ square: 7 + (n % 49), correct: true, bullets_earned: 5 })),
  },
};

async function register(base: string, i: number): Promise<string> {
  const res = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: `lt_${process.pid}_${Date.now().toString(36)}_${i}`, password: "loadtest-password" }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return res.headers.getSetCookie()[0].split(";")[0];
}

export const http: Scenario = {
  name: "http",
  summary: `closed-loop REST connections; --endpoint ${Object.keys(endpoints).join("|")} (default progress)`,
  defaultClients: 32,
  clientStep: 1,
  roomName: null,
  tickBudgetMs: null,
  async start(ctx: ScenarioContext): Promise<RunningLoad> {
    const name = ctx.args.endpoint ?? "progress";
    const endpoint = endpoints[name];
    if (!endpoint) throw new Error(`unknown --endpoint "${name}" (${Object.keys(endpoints).join(", ")})`);
    ctx.log(`http: ${endpoint.summary}, ${ctx.clients} connections`);
    const base = new URL(ctx.base);
    const cookies: string[] = [];
    for (let i = 0; i < Math.min(MAX_ACCOUNTS, ctx.clients); i++) cookies.push(await register(ctx.base, i));
    const { recorder } = ctx;
    let running = true;
    const connections: LeanHttpConnection[] = [];
    const loops: Promise<void>[] = [];
    for (let c = 0; c < ctx.clients; c++) {
      const conn = new LeanHttpConnection(base);
      connections.push(conn);
      const cookie = cookies[c % cookies.length];
      loops.push(
        (async () => {
          for (let n = 0; running; n++) {
            const request = endpoint.request(base, cookie, n);
            const sentAt = performance.now();
            recorder.input(sentAt);
            recorder.sent(request.length);
            try {
              const reply = await conn.send(request);
              recorder.answered(sentAt);
              recorder.got(1, reply.bytes);
              if (reply.status >= 400) recorder.error(`HTTP ${reply.status}: ${reply.body.toString("utf8", 0, 120)}`);
            } catch (err) {
              recorder.error(`request failed: ${(err as Error).message}`);
              return;
            }
          }
        })(),
      );
    }
    return {
      stop: () => void (running = false),
      close: async () => {
        running = false;
        await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 5000))]);
        connections.forEach((c) => c.close());
      },
    };
  },
};
