// Session-token micro-benchmark: what verifying the session cookie's JWT costs per request, with
// the TokenService of this checkout (src/auth/tokens.ts). Two shapes: one verify at a time (the
// latency a request pays) and 32 in flight (the HTTP load test's 32 keep-alive connections, where
// an asynchronous implementation's thread-pool hops overlap). CPU is the whole process's (main
// thread and thread pool), per verify.
//   taskset -c 0 npm run --silent loadtest:session-token -- --seconds 5
import { TokenService } from "../src/auth/tokens.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const SECONDS = arg("seconds", 5);
const IN_FLIGHT = arg("in-flight", 32);
const tokens = new TokenService("benchmark-secret-0123456789abcdefghijklmnop", 3600);
const token = await tokens.sign(123_456, 3600, 2);

async function verifyOnce(): Promise<void> {
  const check = await tokens.verify(token);
  if (check.status !== "ok") throw new Error(`benchmark token did not verify: ${check.status}`);
}

/** Verifies for `seconds` keeping `inFlight` verifies pending; µs of wall and CPU time per verify. */
async function measure(seconds: number, inFlight: number) {
  let done = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        await verifyOnce();
        done++;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    in_flight: inFlight,
    verifies: done,
    verifies_per_s: Math.round(done / (wallMs / 1000)),
    wall_us_per_verify: +((wallMs * 1000) / done).toFixed(2),
    cpu_us_per_verify: +((cpu.user + cpu.system) / done).toFixed(2),
  };
}

await measure(Math.min(2, SECONDS), IN_FLIGHT); // warm-up: optimised code, not the JIT, is measured
const sequential = await measure(SECONDS, 1);
const concurrent = await measure(SECONDS, IN_FLIGHT);
const { loadavg } = await import("node:os");
console.table([sequential, concurrent]);
console.log(JSON.stringify({ benchmark: "session-token-verify", sequential, concurrent, machine_load_1m: +loadavg()[0].toFixed(2), at: new Date().toISOString() }));
