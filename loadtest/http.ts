// HTTP load: closed-loop clients against a server in its own process, one scenario at a time.
// Prints requests/s, latency percentiles, errors, and the server's CPU and memory.
//   npm run loadtest:http -- --duration 10 --concurrency 32
import { arg, ms, processUsage, startServer, summarize } from "./lib.js";

const duration = arg("duration", 8) * 1000;
const concurrency = arg("concurrency", 32);

interface Scenario {
  name: string;
  request: (base: string) => Promise<Response>;
}

async function run(base: string, pid: number, scenario: Scenario) {
  const latencies: number[] = [];
  let errors = 0;
  const before = processUsage(pid);
  const started = performance.now();
  const deadline = started + duration;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const res = await scenario.request(base);
          await res.arrayBuffer();
          if (!res.ok) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = processUsage(pid);
  const s = summarize(latencies);
  return {
    scenario: scenario.name,
    "req/s": Math.round(s.n / seconds),
    "p50 ms": ms(s.p50),
    "p95 ms": ms(s.p95),
    "p99 ms": ms(s.p99),
    errors,
    "server CPU %": Math.round(((after.cpuSeconds - before.cpuSeconds) / seconds) * 100),
    "server RSS MB": Math.round(after.rssBytes / 2 ** 20),
  };
}

// DATABASE_URL in the environment measures PostgreSQL instead of the embedded PGlite.
const server = await startServer(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {});
try {
  const reg = await fetch(`${server.base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: `loadtester_${process.pid}`, password: "loadtest-password" }),
  });
  const cookie = reg.headers.getSetCookie()[0].split(";")[0];
  const scenarios: Scenario[] = [
    { name: "GET /health", request: (b) => fetch(`${b}/health`) },
    { name: "GET /api/auth/me (JWT + DB)", request: (b) => fetch(`${b}/api/auth/me`, { headers: { cookie } }) },
    { name: "GET /api/snakes/progress", request: (b) => fetch(`${b}/api/snakes/progress`, { headers: { cookie } }) },
    {
      name: "PUT /api/snakes/ (autosave)",
      request: (b) =>
        fetch(`${b}/api/snakes/`, {
          method: "PUT",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ current_square: 5, lives: 4, time_played: performance.now() / 1000 }),
        }),
    },
    {
      name: "POST /api/snakes/answer-question",
      request: (b) =>
        fetch(`${b}/api/snakes/answer-question`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ square: 7 + Math.floor(Math.random() * 50), correct: true, bullets_earned: 5 }),
        }),
    },
  ];
  console.log(`HTTP load: ${concurrency} concurrent clients, ${duration / 1000} s per scenario, ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"}, server pid ${server.proc.child.pid}`);
  const rows = [];
  for (const s of scenarios) rows.push(await run(server.base, server.proc.child.pid!, s));
  console.table(rows);
} finally {
  await server.stop();
}
