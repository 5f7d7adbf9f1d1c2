// Clients that stop reading, beside clients that play (issue 30; docs/security.md "Slow and silent
// clients"). Starts the server as `npm start` starts it (pinned to core 0, this client on core 1),
// then:
// 1. sizes: the largest honest bursts a client gets at once — a boss room's full state at 10
//    players and a SlitherRush join (full state + first snapshot) at 32 snakes — the figures
//    MAX_CLIENT_BACKLOG_BYTES is set from;
// 2. slow readers: boss rooms of 10 where --stalled players stop reading after joining, send an
//    unsolicited pong every 2 s and `boss_get_players` --rate times a second, beside --normal players
//    that read; plus --silent clients that never acknowledge their SlitherRush join. Reports the
//    server's RSS (its own /proc), the bytes the kernel holds for the stalled sockets (`ss`), when and
//    why each was cut (the server's log lines), and whether the normal players kept their ticks.
// Not a test: a measurement, printed as a table and, last line, JSON.
//
//   npm run --silent loadtest:slow-readers [-- --stalled 20 --normal 10 --rate 25 --silent 10 --seconds 30 --root ../other-checkout]
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { LeanRoom, messagePrefix } from "./harness/leanClient.js";
import { Recorder } from "./harness/recorder.js";
import { pinSelf, startServer, type ServerUnderTest } from "./harness/server.js";

const { values } = parseArgs({
  options: {
    stalled: { type: "string", default: "20" },
    normal: { type: "string", default: "10" },
    rate: { type: "string", default: "25" },
    silent: { type: "string", default: "10" },
    seconds: { type: "string", default: "30" },
    "max-backlog": { type: "string" },
    /** Another checkout's server (e.g. main before this change), measured with this client. */
    root: { type: "string" },
  },
});
const STALLED = Number(values.stalled);
const NORMAL = Number(values.normal);
const RATE = Number(values.rate);
const SILENT = Number(values.silent);
const SECONDS = Number(values.seconds);
const ROOM_SIZE = 10;

const JOIN_ROOM = 10, ROOM_STATE = 14;
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const log = (text: string) => console.error(text);

interface Cut {
  sid: string;
  msg: string;
  code?: number;
  heldBytes?: number;
  at: number;
}
const cuts = new Map<string, Cut>();
const server: ServerUnderTest = await startServer({
  root: values.root,
  env: { LOG_LEVEL: "info", CORS_ORIGINS: "http://127.0.0.1", ...(values["max-backlog"] ? { MAX_CLIENT_BACKLOG_BYTES: values["max-backlog"] } : {}) },
  onStdout: (line) => {
    if (!line.includes("cut a client")) return;
    try {
      const entry = JSON.parse(line) as { sid?: string; msg: string; code?: number; heldBytes?: number };
      if (entry.sid) cuts.set(entry.sid, { sid: entry.sid, msg: entry.msg, code: entry.code, heldBytes: entry.heldBytes, at: performance.now() });
    } catch {
      // not JSON: not ours
    }
  },
});
const pinned = pinSelf(1);
const port = new URL(server.base).port;

const join = (method: "joinOrCreate" | "joinById", name: string, options: Record<string, unknown>, extra: Partial<Parameters<typeof LeanRoom.join>[0]> = {}) =>
  LeanRoom.join({ base: server.base, method, name, options, recorder: new Recorder(), ...extra });

/** The frames a client gets in its first 500 ms after its join: the burst a join is. */
async function joinBurst(method: "joinOrCreate" | "joinById", name: string, options: Record<string, unknown>) {
  let state = 0, total = 0, largest = 0, frames = 0;
  let joinedAt = Infinity;
  const room = await join(method, name, options, {
    onFrame: (code, bytes) => {
      if (code === JOIN_ROOM) joinedAt = performance.now();
      if (performance.now() - joinedAt > 500) return;
      if (code === ROOM_STATE) state = bytes;
      total += bytes;
      frames++;
      largest = Math.max(largest, bytes);
    },
  });
  await new Promise((r) => setTimeout(r, 600));
  return { room, state, total, largest, frames };
}

// 1. sizes
log("sizes: a boss room of 10, a SlitherRush arena of 32");
const bossRooms: LeanRoom[] = [];
let bossBurst = await joinBurst("joinOrCreate", "boss", { bullets: 30, username: "size0" });
bossRooms.push(bossBurst.room);
for (let i = 1; i < ROOM_SIZE; i++) {
  bossBurst = await joinBurst("joinById", bossRooms[0].roomId, { bullets: 30, username: `size${i}` });
  bossRooms.push(bossBurst.room);
}
const snakes: LeanRoom[] = [];
let slitherBurst = await joinBurst("joinOrCreate", "slitherrush", { name: "s0" });
snakes.push(slitherBurst.room);
for (let i = 1; i < 32; i++) {
  slitherBurst = await joinBurst("joinById", snakes[0].roomId, { name: `s${i}` });
  snakes.push(slitherBurst.room);
}
await Promise.all([...bossRooms, ...snakes].map((r) => r.leave(true)));
const sizes = {
  boss_state_10_players_bytes: bossBurst.state,
  boss_join_burst_bytes: bossBurst.total,
  slitherrush_state_32_snakes_bytes: slitherBurst.state,
  slitherrush_join_burst_bytes: slitherBurst.total,
  slitherrush_largest_frame_bytes: slitherBurst.largest,
};
log(JSON.stringify(sizes));

// 2. slow readers
const rssSamples: number[] = [];
const sample = () => rssSamples.push(server.usage().rssBytes);

interface Player {
  room: LeanRoom;
  stalled: boolean;
  frames: number;
  bytes: number;
  lastFrameAt: number;
  maxGapMs: number;
}
const players: Player[] = [];
let measuring = false;
const total = STALLED + NORMAL;
let roomId = "";
for (let i = 0; i < total; i++) {
  // Each room of 10 gets its share of stalled and normal players.
  const stalled = players.filter((p) => p.stalled).length < STALLED && i % ROOM_SIZE < Math.ceil((ROOM_SIZE * STALLED) / total);
  const player: Player = { room: undefined as never, stalled, frames: 0, bytes: 0, lastFrameAt: 0, maxGapMs: 0 };
  const onFrame = (_code: number, bytes: number) => {
    const now = performance.now();
    if (measuring && player.lastFrameAt) player.maxGapMs = Math.max(player.maxGapMs, now - player.lastFrameAt);
    player.lastFrameAt = now;
    if (measuring) (player.frames++, (player.bytes += bytes));
  };
  if (i % ROOM_SIZE === 0) roomId = "";
  player.room = await join(roomId ? "joinById" : "joinOrCreate", roomId || "boss", { bullets: 30, username: `p${i}` }, { onFrame });
  roomId = player.room.roomId;
  players.push(player);
}
const silent: LeanRoom[] = [];
const silentJoinedAt = new Map<string, number>();
for (let i = 0; i < SILENT; i++) {
  const room = await join("joinOrCreate", "slitherrush", { name: `quiet${i}` }, { acknowledge: false });
  silentJoinedAt.set(room.sessionId, performance.now()); // its JOIN_ROOM arrived: the server's timer runs
  silent.push(room);
}

await new Promise((r) => setTimeout(r, 2000)); // the joins settle
const rssBefore = server.usage().rssBytes;
measuring = true;
const started = performance.now();
const getPlayers = messagePrefix("boss_get_players");
const stalled = players.filter((p) => p.stalled);
const normal = players.filter((p) => !p.stalled);
for (const p of stalled) p.room.stopReading();
const silentSids = new Set(silent.map((r) => r.sessionId));
let maxKernelHeld = 0;
/** Bytes the kernel holds for this port's connections (both ends' queues), from `ss`. */
function kernelHeld(): number {
  const out = spawnSync("ss", ["-tnH", `( sport = :${port} or dport = :${port} )`], { encoding: "utf8" }).stdout ?? "";
  let sum = 0;
  for (const line of out.split("\n")) {
    const [, recvQ, sendQ] = line.trim().split(/\s+/);
    if (recvQ !== undefined) sum += Number(recvQ) + Number(sendQ);
  }
  return sum;
}
const requests = setInterval(() => {
  for (const p of stalled) if (!p.room.isClosed) p.room.send(getPlayers, {});
}, 1000 / RATE);
const pongs = setInterval(() => {
  for (const p of stalled) p.room.pong(randomBytes(8));
}, 2000);
const sampler = setInterval(() => {
  sample();
  maxKernelHeld = Math.max(maxKernelHeld, kernelHeld());
}, 500);
await new Promise((r) => setTimeout(r, SECONDS * 1000));
measuring = false;
clearInterval(requests);
clearInterval(pongs);
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;

const stalledCuts = stalled.map((p) => cuts.get(p.room.sessionId));
const silentCuts = [...silentSids].map((sid) => cuts.get(sid));
const cutMs = (list: (Cut | undefined)[]) => list.filter((c): c is Cut => !!c).map((c) => Math.round(c.at - (silentJoinedAt.get(c.sid) ?? started)));
const range = (xs: number[]) => (xs.length ? `${Math.min(...xs)}–${Math.max(...xs)}` : "–");
const report = {
  scenario: "slow-readers",
  at: new Date().toISOString(),
  server_pinned: server.pinnedCore,
  client_pinned: pinned ? 1 : null,
  ...sizes,
  stalled: STALLED,
  normal: NORMAL,
  requests_per_s: RATE,
  silent_joins: SILENT,
  seconds: Math.round(seconds),
  stalled_cut: stalledCuts.filter(Boolean).length,
  stalled_cut_ms: range(cutMs(stalledCuts)),
  stalled_cut_by: [...new Set(stalledCuts.filter(Boolean).map((c) => `${c!.msg.replace(/^cut a client (that )?/, "").slice(0, 40)}`))].join("; "),
  silent_cut: silentCuts.filter(Boolean).length,
  silent_cut_after_join_ms: range(cutMs(silentCuts)),
  rss_before_mb: mb(rssBefore),
  rss_peak_mb: mb(Math.max(...rssSamples)),
  rss_rise_mb: mb(Math.max(...rssSamples) - rssBefore),
  rss_end_mb: mb(rssSamples[rssSamples.length - 1]),
  kernel_queues_max_mb: mb(maxKernelHeld),
  user_space_held_at_cut_kb: stalledCuts.some((c) => c?.heldBytes !== undefined) ? kb(Math.max(...stalledCuts.map((c) => c?.heldBytes ?? 0))) : null,
  normal_frames_per_s_min: Math.round(Math.min(...normal.map((p) => p.frames / seconds))),
  normal_kb_per_s: kb(normal.reduce((n, p) => n + p.bytes, 0) / normal.length / seconds),
  normal_max_gap_ms: Math.round(Math.max(...normal.map((p) => p.maxGapMs))),
  normal_cut: normal.filter((p) => p.room.isClosed).length,
};
console.table(Object.entries(report).map(([k, v]) => ({ figure: k, value: v })));
console.log(JSON.stringify(report));
await Promise.all(normal.map((p) => p.room.leave(true)));
await server.stop();
process.exit(0);
