// Boss battle load: full rooms of 10 bot players (guests) against a server in its own process.
// Each bot moves at 10 Hz (within the speed cap) and shoots at 2 Hz, as the game client does.
// Prints the authoritative move round trip (boss_player_move → boss_self_position), messages
// received per second, and the server's CPU and memory, for each room count.
//   npm run loadtest:boss -- --rooms 5,20 --duration 10
import { Client, type Room } from "@colyseus/sdk";

import { ms, processUsage, startServer, summarize } from "./lib.js";

const i = process.argv.indexOf("--rooms");
const roomCounts = (i >= 0 ? process.argv[i + 1] : "5,20").split(",").map(Number);
const d = process.argv.indexOf("--duration");
const duration = (d >= 0 ? Number(process.argv[d + 1]) : 10) * 1000;
const PLAYERS_PER_ROOM = 10;

// Messages the server sends during the join handshake reach a bot before it can register its
// handlers; the SDK warns about each one. They are expected here: keep the output readable.
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === "string" && args[0].includes("onMessage() not registered")) return;
  warn(...args);
};

async function scenario(ws: string, pid: number, rooms: number) {
  const client = new Client(ws);
  const bots: Room[] = [];
  for (let n = 0; n < rooms * PLAYERS_PER_ROOM; n++) {
    bots.push(await client.joinOrCreate("boss", { username: `bot${n}`, bullets: 30 }));
  }
  const rtts: number[] = [];
  let received = 0;
  const timers: NodeJS.Timeout[] = [];
  for (const room of bots) {
    let x = 0, y = 0, sentAt = 0, waiting = false;
    room.onMessage("*", () => received++);
    room.onMessage("boss_room_state", (s: { self: { x: number; y: number } }) => ((x = s.self.x), (y = s.self.y)));
    room.onMessage("boss_self_position", (p: { x: number; y: number }) => {
      received++;
      x = p.x;
      y = p.y;
      if (waiting) rtts.push(performance.now() - sentAt);
      waiting = false;
    });
    let tick = 0;
    timers.push(
      setInterval(() => {
        const angle = Math.random() * Math.PI * 2;
        sentAt = performance.now();
        waiting = true;
        room.send("boss_player_move", { x: x + Math.cos(angle) * 30, y: y + Math.sin(angle) * 30 });
        if (++tick % 5 === 0) room.send("boss_player_shoot", { dx: 0, dy: -1 });
      }, 100),
    );
  }
  await new Promise((r) => setTimeout(r, 1000)); // settle
  rtts.length = 0;
  received = 0;
  const before = processUsage(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, duration));
  const seconds = (performance.now() - t0) / 1000;
  const after = processUsage(pid);
  timers.forEach(clearInterval);
  const s = summarize(rtts);
  await Promise.all(bots.map((b) => b.leave().catch(() => {})));
  return {
    rooms,
    players: bots.length,
    "moves/s in": Math.round(s.n / seconds),
    "msgs/s out": Math.round(received / seconds),
    "move RTT p50 ms": ms(s.p50),
    "p95 ms": ms(s.p95),
    "p99 ms": ms(s.p99),
    "server CPU %": Math.round(((after.cpuSeconds - before.cpuSeconds) / seconds) * 100),
    "server RSS MB": Math.round(after.rssBytes / 2 ** 20),
  };
}

const server = await startServer();
try {
  console.log(`Boss load: ${PLAYERS_PER_ROOM} bots per room, move 10 Hz + shoot 2 Hz each, ${duration / 1000} s per row, server pid ${server.proc.child.pid}`);
  const rows = [];
  for (const rooms of roomCounts) rows.push(await scenario(server.ws, server.proc.child.pid!, rooms));
  console.table(rows);
} finally {
  await server.stop();
}
