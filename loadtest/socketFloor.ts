// npm run --silent loadtest:socket-floor [-- --connections 400 --hz 30 --bytes 200 --input-every 100 --seconds 8]
// What the system calls alone cost, under any server design: a bare Node TCP server (core 0) that
// writes each of N connections `--hz` times a second (one write per client per tick, as the rooms
// do), then, in a second window, only reads what N clients (core 1) send every `--input-every` ms
// (one move each). No WebSocket, no Colyseus, no game: the microseconds of CPU per write and per
// read (user and kernel) are the floor under the rooms' CPU per 1,000 moves. On loopback the
// sender's system call also pays the receiving side's TCP work, so the kernel share is larger than
// on a network card. Not a test: a measurement, printed as a table and, last line, JSON.
import { fork, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    role: { type: "string", default: "main" },
    connections: { type: "string", default: "400" },
    hz: { type: "string", default: "30" },
    bytes: { type: "string", default: "200" },
    "input-every": { type: "string", default: "100" },
    seconds: { type: "string", default: "8" },
    port: { type: "string", default: "0" },
  },
});
const N = Number(values.connections);
const HZ = Number(values.hz);
const BYTES = Number(values.bytes);
const INPUT_EVERY_MS = Number(values["input-every"]);
const SECONDS = Number(values.seconds);

type Phase = "write" | "read";
interface Window {
  phase: Phase;
  userUs: number;
  sysUs: number;
  count: number;
  seconds: number;
}


/** Core 0: accepts, writes every connection each tick while the phase is "write", counts reads. */
function runServer(): void {
  const sockets: net.Socket[] = [];
  let phase: Phase | "idle" = "idle";
  let writes = 0;
  let reads = 0;
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    s.on("data", () => void reads++);
    s.on("error", () => undefined);
    sockets.push(s);
  });
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as net.AddressInfo).port }));
  const payload = Buffer.alloc(BYTES, 7);
  setInterval(() => {
    if (phase !== "write") return;
    for (const s of sockets) s.write(Buffer.from(payload)); // a fresh buffer per write, as a room's frames are
    writes += sockets.length;
  }, 1000 / HZ);
  process.on("message", (m: { measure: Phase }) => {
    const measured = m.measure;
    phase = measured;
    setTimeout(() => {
      // A second to settle, then the window.
      const u0 = process.cpuUsage();
      const t0 = performance.now();
      const c0 = measured === "write" ? writes : reads;
      setTimeout(() => {
        const u = process.cpuUsage(u0);
        const seconds = (performance.now() - t0) / 1000;
        const count = (measured === "write" ? writes : reads) - c0;
        process.send!({ phase: measured, userUs: u.user, sysUs: u.system, count, seconds } satisfies Window);
        phase = "idle";
      }, SECONDS * 1000);
    }, 1000);
  });
}

/** Core 1: N connections; each sends one small message every INPUT_EVERY_MS while told to. */
function runClient(): void {
  const port = Number(values.port);
  const sockets: net.Socket[] = [];
  let sending = false;
  const message = Buffer.alloc(40, 1);
  for (let i = 0; i < N; i++) {
    const s = net.connect(port, "127.0.0.1");
    s.setNoDelay(true);
    s.on("data", () => undefined);
    s.on("error", () => undefined);
    sockets.push(s);
    // Phases spread over the interval, as players' moves are.
    setTimeout(() => setInterval(() => sending && s.write(message), INPUT_EVERY_MS), (i * INPUT_EVERY_MS) / N);
  }
  process.on("message", (m: { send: boolean }) => void (sending = m.send));
}

function pinned(core: number): { execPath: string; execArgv: string[] } {
  const taskset = spawnSync("taskset", ["--version"]).status === 0;
  return taskset ? { execPath: "taskset", execArgv: ["-c", String(core), process.execPath, ...process.execArgv] } : { execPath: process.execPath, execArgv: process.execArgv };
}

function start(role: string, core: number, extra: string[] = []): ChildProcess {
  const { execPath, execArgv } = pinned(core);
  const args = ["--role", role, "--connections", String(N), "--hz", String(HZ), "--bytes", String(BYTES), "--input-every", String(INPUT_EVERY_MS), "--seconds", String(SECONDS), ...extra];
  // fork() runs `execPath execArgv module args`: with taskset, taskset runs node with the same loader.
  return fork(new URL(import.meta.url).pathname, args, { execPath, execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

const next = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));

async function runMain(): Promise<void> {
  const server = start("server", 0);
  const { port } = await next<{ port: number }>(server);
  const client = start("client", 1, ["--port", String(port)]);
  await new Promise((r) => setTimeout(r, 1500)); // connections up
  server.send({ measure: "write" });
  const write = await next<Window>(server);
  client.send({ send: true });
  server.send({ measure: "read" });
  const read = await next<Window>(server);
  server.kill();
  client.kill();

  const per = (w: Window) => ({ user_us: round(w.userUs / w.count), kernel_us: round(w.sysUs / w.count), total_us: round((w.userUs + w.sysUs) / w.count), per_s: Math.round(w.count / w.seconds) });
  const w = per(write);
  const r = per(read);
  // A move read once; its news reaches each client in that client's one write per tick.
  const floorPer1k = (writesPerMove: number) => round(writesPerMove * w.total_us + r.total_us);
  const report = {
    connections: N,
    hz: HZ,
    bytes: BYTES,
    input_every_ms: INPUT_EVERY_MS,
    write: w,
    read: r,
    floor_cpu_ms_per_1k_moves: {
      boss: { writes_per_move: HZ / (1000 / 100), value: floorPer1k(HZ / (1000 / 100)) },
      pvp: { writes_per_move: HZ / (1000 / 50), value: floorPer1k(HZ / (1000 / 50)) },
    },
  };
  console.log(`connections ${N}, ${HZ} writes/s each of ${BYTES} B; reads: one ${40} B message per connection every ${INPUT_EVERY_MS} ms`);
  console.log(`write: ${w.total_us} µs CPU (user ${w.user_us}, kernel ${w.kernel_us}) at ${w.per_s}/s`);
  console.log(`read:  ${r.total_us} µs CPU (user ${r.user_us}, kernel ${r.kernel_us}) at ${r.per_s}/s`);
  console.log(`floor, CPU-ms per 1,000 moves: boss (moves every 100 ms) ${report.floor_cpu_ms_per_1k_moves.boss.value}, PvP (every 50 ms) ${report.floor_cpu_ms_per_1k_moves.pvp.value}`);
  console.log(JSON.stringify(report));
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

if (values.role === "server") runServer();
else if (values.role === "client") runClient();
else await runMain();
