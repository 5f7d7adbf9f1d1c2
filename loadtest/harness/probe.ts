// Preloaded into the server under test (node --import) by the harness, never by `npm start`.
// It times each room's simulation tick and state patch per room type, and the server's event-loop
// delay, and counts socket writes (each one a system call, the largest cost of a real-time room),
// and answers the harness over the IPC channel: "reset" starts a window, "read" returns it;
// "profile-start"/"profile-stop" take a CPU profile of the window alone (--profile).
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { Socket } from "node:net";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { Room as RoomType } from "@colyseus/core";

// The Room class of the server's own checkout (cwd), which may not be this one (--server-root).
const core = pathToFileURL(join(process.cwd(), "node_modules/@colyseus/core/build/index.mjs")).href;
const { Room, matchMaker } = (await import(core)) as { Room: typeof RoomType; matchMaker: { stats: { local: { roomCount: number } } } };
type Room = RoomType;

type Kind = "tick" | "patch";
const samples = new Map<string, number[]>();
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();

function record(kind: Kind, roomName: string, ms: number): void {
  const key = `${kind}:${roomName}`;
  let list = samples.get(key);
  if (!list) samples.set(key, (list = []));
  if (list.length < 2_000_000) list.push(ms);
}

function timed<A extends unknown[], R>(kind: Kind, room: Room, fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    const t0 = performance.now();
    try {
      return fn(...args);
    } finally {
      record(kind, room.roomName, performance.now() - t0);
    }
  };
}

const proto = Room.prototype as unknown as Record<string, (...args: any[]) => any>;
for (const name of ["setTimestep", "setFixedTimestep"]) {
  const original = proto[name];
  proto[name] = function (this: Room, callback: ((...a: unknown[]) => unknown) | undefined, ...rest: unknown[]) {
    return original.call(this, callback ? timed("tick", this, callback) : callback, ...rest);
  };
}
const broadcastPatch = proto.broadcastPatch;
proto.broadcastPatch = function (this: Room) {
  const t0 = performance.now();
  try {
    return broadcastPatch.call(this);
  } finally {
    record("patch", this.roomName, performance.now() - t0);
  }
};

// Every socket write of the process (WebSocket frames leave through the transport's socket.write).
let socketWrites = 0;
const write = Socket.prototype.write;
Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
  socketWrites++;
  return write.apply(this, args);
} as Socket["write"];

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export interface ProbeReading {
  /** "tick:boss" → p50/p99/n in ms */
  timings: Record<string, { p50: number; p99: number; n: number }>;
  loopDelayP99Ms: number;
  /** The longest the event loop was late in the window (a stall: GC, a synchronous query, a burst of ticks). */
  loopDelayMaxMs: number;
  /** socket.write calls since the window opened. */
  socketWrites: number;
  /** Rooms open on the server now (a ramp step starts once the last step's are gone). */
  rooms: number;
}

// A CPU profile of the measured window only (start-up, joins and room creation left out).
let profiler: Session | null = null;

async function startProfile(): Promise<void> {
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 250 });
  await profiler.post("Profiler.start");
  // Where the garbage comes from: every 64 KiB allocated, the allocating stack, collected or not.
  await profiler.post("HeapProfiler.enable");
  await profiler.post("HeapProfiler.startSampling", { samplingInterval: 65536, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}

async function stopProfile(dir: string): Promise<string> {
  const { profile } = await profiler!.post("Profiler.stop");
  const { profile: allocations } = await profiler!.post("HeapProfiler.stopSampling");
  profiler!.disconnect();
  profiler = null;
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `window-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
  writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile));
  writeFileSync(`${base}.heapprofile`, JSON.stringify(allocations));
  return `${base}.cpuprofile`;
}

process.on("message", async (msg: { loadtest?: "reset" | "read" | "profile-start" | "profile-stop"; dir?: string }) => {
  if (msg?.loadtest === "profile-start") {
    await startProfile();
    process.send?.({ loadtest: "profile-start" });
  } else if (msg?.loadtest === "profile-stop") {
    process.send?.({ loadtest: "profile-stop", file: await stopProfile(msg.dir!) });
  } else if (msg?.loadtest === "reset") {
    samples.clear();
    loop.reset();
    socketWrites = 0;
    process.send?.({ loadtest: "reset" });
  } else if (msg?.loadtest === "read") {
    const timings: ProbeReading["timings"] = {};
    for (const [key, list] of samples) {
      const sorted = Float64Array.from(list).sort() as unknown as number[];
      timings[key] = { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), n: list.length };
    }
    const reading: ProbeReading = { timings, loopDelayP99Ms: loop.percentile(99) / 1e6, loopDelayMaxMs: loop.max / 1e6, socketWrites, rooms: matchMaker.stats.local.roomCount };
    process.send?.({ loadtest: "read", reading });
  }
});
