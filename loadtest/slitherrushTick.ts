// SlitherRush in-process benchmark: the tick of a full 32-player arena, the per-client snapshot
// encoding, and the bytes each client receives, for the binary snapshot the room sends and (with
// --compare-schema) for the alternative of synchronising a schema state through StateViews.
// Bots steer 10 times a second and shoot half the time, like the load-test clients.
//   taskset -c 0 npm run --silent loadtest:slitherrush-tick -- --seconds 120 --compare-schema
import { pack } from "msgpackr";
import { Encoder, StateView, schema, t, type SchemaType } from "@colyseus/schema";
import { SlitherArena, type Bullet, type Snake } from "../src/game/slitherrush/arena.js";
import { LEADERBOARD_INTERVAL_MS, MAX_PLAYERS, TICKS_PER_SNAPSHOT, TICK_RATE } from "../src/game/slitherrush/constants.js";
import { bulletInInterest, boxOf, snakeInInterest } from "../src/game/slitherrush/interest.js";
import { quantisePosition } from "../src/game/slitherrush/quantise.js";
import { SnapshotEncoder } from "../src/game/slitherrush/snapshotEncoder.js";
import { seededRng, type Rng } from "../src/game/rng.js";
import { SlitherRushWorld } from "../src/protocol/slitherrushSnapshot.js";
import { percentiles } from "./harness/stats.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function summarize(samples: number[]) {
  return { n: samples.length, ...(percentiles(samples) ?? { p50: NaN, p95: NaN, p99: NaN, max: NaN }) };
}

const SECONDS = arg("seconds", 60);
/** Unmeasured game time first, so the numbers are of optimised code, not of the JIT warming up. */
const WARMUP_SECONDS = arg("warmup", 20);
const ARENAS = arg("arenas", 4);
const compareSchema = process.argv.includes("--compare-schema");
const STATE_MESSAGE = "slitherrush_state";
/** Colyseus frame of a sendBytes message: protocol byte, string type (length byte + name). */
const COLYSEUS_BYTES_FRAME = 1 + 1 + STATE_MESSAGE.length;
/** Server→client WebSocket frame header for payloads of 126..65535 bytes (2 below 126). */
const wsHeader = (n: number) => (n < 126 ? 2 : 4);

/** A bot: steers 10 times a second (a smooth random walk) and holds the trigger half of the time. */
function driveBots(arena: SlitherArena, rng: Rng, tick: number): void {
  if (tick % 3 !== 0) return;
  for (const s of arena.players.values()) {
    const turn = (rng() - 0.5) * 1.2;
    const angle = Math.atan2(s.dirY, s.dirX) + turn;
    // Walls: turn back towards the middle.
    const toMiddle = Math.atan2(arena.size.height / 2 - s.body[0].y, arena.size.width / 2 - s.body[0].x);
    const nearWall = s.body[0].x < 150 || s.body[0].y < 150 || s.body[0].x > arena.size.width - 150 || s.body[0].y > arena.size.height - 150;
    const a = nearWall ? toMiddle : angle;
    arena.setInput(s.id, { direction: { x: Math.cos(a), y: Math.sin(a) }, shoot: rng() < 0.5 });
  }
}

function fullArena(seed: number): SlitherArena {
  const arena = new SlitherArena({ rng: seededRng(seed) });
  for (let i = 0; i < MAX_PLAYERS; i++) arena.addPlayer(`p${seed}_${i.toString().padStart(2, "0")}xyzw`, { username: `Player ${i}` });
  return arena;
}

const hr = () => Number(process.hrtime.bigint()) / 1e6; // ms

function binaryRun(seconds: number) {
  const tickMs: number[] = [];
  const encodeMs: number[] = [];
  const decodeMs: number[] = [];
  let payloadBytes = 0;
  let wireBytes = 0;
  let leaderboardBytes = 0;
  let snapshots = 0;
  let maxSnapshot = 0;
  let deaths = 0;
  let deathBytes = 0;
  let visibleSnakes = 0;
  const ticks = seconds * TICK_RATE;
  for (let n = 0; n < ARENAS; n++) {
    const arena = fullArena(n + 1);
    const enc = new SnapshotEncoder(arena);
    for (const id of arena.players.keys()) enc.addViewer(id);
    const world = new SlitherRushWorld();
    const watched = arena.players.keys().next().value!;
    const rng = seededRng(100 + n);
    let nextLeaderboard = 0;
    for (let tick = 0; tick < ticks; tick++) {
      driveBots(arena, rng, tick);
      const t0 = hr();
      const events = arena.step();
      tickMs.push(hr() - t0);
      enc.noteHits(events.hits.map((h) => h.bulletId));
      for (const d of events.deaths) {
        deaths++;
        deathBytes += pack({ player_id: d.playerId, killer_id: d.killerId, reason: d.reason }).length + 2 + "slitherrush_death".length + 2;
      }
      if (arena.tick % TICKS_PER_SNAPSHOT === 0) {
        const t1 = hr();
        let mine: Uint8Array | undefined;
        enc.encode((id, bytes) => {
          payloadBytes += bytes.length;
          wireBytes += bytes.length + COLYSEUS_BYTES_FRAME + wsHeader(bytes.length + COLYSEUS_BYTES_FRAME);
          maxSnapshot = Math.max(maxSnapshot, bytes.length);
          if (id === watched) mine = bytes.slice();
        });
        encodeMs.push(hr() - t1);
        const t2 = hr();
        world.apply(mine!);
        decodeMs.push(hr() - t2);
        visibleSnakes += world.snakes.size;
        snapshots++;
      }
      const now = (arena.tick * 1000) / TICK_RATE;
      if (now >= nextLeaderboard) {
        nextLeaderboard += LEADERBOARD_INTERVAL_MS;
        // The room broadcasts one payload to the whole arena (own ranks ride in the snapshots).
        const body = pack({ leaderboard: arena.leaderboard(), player_count: arena.playerCount });
        const frame = body.length + 2 + "slitherrush_leaderboard_update".length;
        leaderboardBytes += (frame + wsHeader(frame)) * arena.playerCount;
      }
    }
  }
  const clientSeconds = ARENAS * MAX_PLAYERS * seconds;
  return {
    tick: summarize(tickMs),
    encodeAll32: summarize(encodeMs),
    decodeOne: summarize(decodeMs),
    snapshotsPerArena: snapshots / ARENAS,
    maxSnapshotBytes: maxSnapshot,
    meanSnapshotPayload: payloadBytes / (snapshots * MAX_PLAYERS),
    meanVisibleSnakes: visibleSnakes / snapshots,
    deathsPerArenaMinute: deaths / ARENAS / (seconds / 60),
    bytesPerClientSecond: {
      snapshots: wireBytes / clientSeconds,
      leaderboard: leaderboardBytes / clientSeconds,
      deaths: (deathBytes * MAX_PLAYERS) / clientSeconds,
      total: (wireBytes + leaderboardBytes + deathBytes * MAX_PLAYERS) / clientSeconds,
    },
  };
}

// The alternative: the same information as @colyseus/schema state, one StateView per client.
const SnakeState = schema(
  {
    x: t.uint16(),
    y: t.uint16(),
    length: t.uint8(),
    hp: t.uint8(),
    protect: t.boolean(),
    epoch: t.uint16(),
    color: t.uint8(),
    name: t.string(),
  },
  "SnakeState",
);
type SnakeState = SchemaType<typeof SnakeState>;
const BulletState = schema({ x: t.uint16(), y: t.uint16(), angle: t.uint16(), ticksLeft: t.uint8(), owner: t.uint8() }, "BulletState");
type BulletState = SchemaType<typeof BulletState>;
const ArenaState = schema({ tick: t.uint32(), snakes: t.map(SnakeState).view(), bullets: t.map(BulletState).view() }, "ArenaState");
type ArenaState = SchemaType<typeof ArenaState>;

function schemaRun(seconds: number) {
  const encodeMs: number[] = [];
  let bytes = 0;
  let snapshots = 0;
  const ticks = seconds * TICK_RATE;
  for (let n = 0; n < ARENAS; n++) {
    const arena = fullArena(n + 1);
    const state: ArenaState = new ArenaState();
    const encoder = new Encoder(state);
    const snakeStates = new Map<Snake, SnakeState>();
    const bulletStates = new Map<Bullet, BulletState>();
    const views = new Map<string, { view: StateView; snakes: Set<SnakeState>; bullets: Set<BulletState>}>();
    for (const id of arena.players.keys()) views.set(id, { view: new StateView(), snakes: new Set(), bullets: new Set() });
    const rng = seededRng(100 + n);
    for (let tick = 0; tick < ticks; tick++) {
      driveBots(arena, rng, tick);
      arena.step();
      if (arena.tick % TICKS_PER_SNAPSHOT !== 0) continue;
      const t0 = hr();
      state.tick = arena.tick;
      for (const s of arena.players.values()) {
        let st = snakeStates.get(s);
        if (!st) {
          st = new SnakeState({ x: 0, y: 0, length: s.length, hp: s.hp, protect: true, epoch: s.epoch, color: s.color, name: s.username });
          snakeStates.set(s, st);
          state.snakes.set(s.id, st);
        }
        st.x = quantisePosition(s.body[0].x);
        st.y = quantisePosition(s.body[0].y);
        st.length = s.length;
        st.hp = s.hp;
        st.protect = arena.isProtected(s);
        st.epoch = s.epoch;
      }
      const live = new Set(arena.bullets);
      for (const [b, bs] of bulletStates) {
        if (live.has(b)) continue;
        state.bullets.delete(`b${b.id}`);
        bulletStates.delete(b);
        for (const v of views.values()) if (v.bullets.delete(bs)) v.view.remove(bs);
      }
      for (const b of arena.bullets) {
        if (bulletStates.has(b)) continue;
        const bs = new BulletState({ x: quantisePosition(b.x), y: quantisePosition(b.y), angle: b.angle, ticksLeft: b.ticksLeft, owner: b.ownerSlot });
        bulletStates.set(b, bs);
        state.bullets.set(`b${b.id}`, bs);
      }
      for (const [id, v] of views) {
        const me = arena.players.get(id)!;
        for (const s of arena.players.values()) {
          const st = snakeStates.get(s)!;
          const want = s === me || snakeInInterest(me.body[0], boxOf(s.body), v.snakes.has(st));
          if (want && !v.snakes.has(st)) (v.snakes.add(st), v.view.add(st));
          else if (!want && v.snakes.has(st)) (v.snakes.delete(st), v.view.remove(st));
        }
        for (const [b, bs] of bulletStates) {
          if (!v.bullets.has(bs) && bulletInInterest(me.body[0], b)) (v.bullets.add(bs), v.view.add(bs));
        }
      }
      const it = { offset: 1 };
      encoder.encode(it);
      const shared = it.offset;
      for (const v of views.values()) {
        const out = encoder.encodeView(v.view, shared, it);
        bytes += out.length + wsHeader(out.length);
      }
      encoder.discardChanges();
      encodeMs.push(hr() - t0);
      snapshots++;
    }
  }
  return { encodeAll32: summarize(encodeMs), bytesPerClientSecond: bytes / (ARENAS * MAX_PLAYERS * seconds), snapshotsPerArena: snapshots / ARENAS };
}

const fmt = (s: ReturnType<typeof summarize>, unit = "ms") => `p50 ${s.p50.toFixed(3)} / p99 ${s.p99.toFixed(3)} / max ${s.max.toFixed(3)} ${unit} (n=${s.n})`;

binaryRun(WARMUP_SECONDS);
const binary = binaryRun(SECONDS);
console.log(`SlitherRush, ${ARENAS} full arenas × ${MAX_PLAYERS} bots × ${SECONDS} s of game time after ${WARMUP_SECONDS} s of warm-up (bots steer 10/s, shoot half the time)`);
console.log(`  tick (step of one arena)          ${fmt(binary.tick)}`);
console.log(`  snapshot encode, 32 clients       ${fmt(binary.encodeAll32)}`);
console.log(`  snapshot decode, one client       ${fmt(binary.decodeOne)}`);
console.log(`  snapshot payload mean/max         ${binary.meanSnapshotPayload.toFixed(0)} / ${binary.maxSnapshotBytes} B; snakes in a client's view: ${binary.meanVisibleSnakes.toFixed(1)} of 32`);
console.log(`  deaths per arena-minute           ${binary.deathsPerArenaMinute.toFixed(0)}`);
const b = binary.bytesPerClientSecond;
console.log(
  `  bytes per client per second       ${b.total.toFixed(0)} (snapshots ${b.snapshots.toFixed(0)} + leaderboard ${b.leaderboard.toFixed(0)} + deaths ${b.deaths.toFixed(0)}), WebSocket frames included, uncompressed`,
);
let schemaResult: ReturnType<typeof schemaRun> | undefined;
if (compareSchema) {
  schemaRun(WARMUP_SECONDS);
  schemaResult = schemaRun(SECONDS);
  console.log(`Schema state + StateView per client (heads only: no body history, no bullet hits)`);
  console.log(`  patch encode, 32 clients          ${fmt(schemaResult.encodeAll32)}`);
  console.log(`  bytes per client per second       ${schemaResult.bytesPerClientSecond.toFixed(0)} (patches only)`);
}
console.log(JSON.stringify({ scenario: "slitherrush-tick", arenas: ARENAS, seconds: SECONDS, binary, schema: schemaResult }));
