// npm run --silent loadtest:input-path [-- --messages 2000000]   (pin it: taskset -c 0 …)
// What one inbound boss_player_move costs the server before the room acts on it, measured in this
// process without a network: the msgpack decode Colyseus does (RoomMessages.onData), then the
// message guard (count, rate limit, validation) handing the payload to a handler, once through the
// zod schema alone (the general path, what every move took before) and once through the fast check
// (the common case now). Nanoseconds per message and garbage collections per million messages
// (how much the path allocates). Not a test: a measurement, printed as a table and, last line, JSON.
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { Client, Room } from "@colyseus/core";
import { pack, unpack } from "msgpackr";
import { isPointPayload } from "../src/protocol/common.js";
import { bossInbound } from "../src/protocol/boss.js";
import { createLogger } from "../src/ops/logger.js";
import { MessageGuard } from "../src/rooms/kit/guard.js";

const { values } = parseArgs({ options: { messages: { type: "string", default: "2000000" } } });
const N = Number(values.messages);

let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ["gc"] });

/** A room as far as the guard needs one: it registers handlers, and we call them. */
function fakeRoom() {
  const handlers = new Map<string, (client: Client, raw: unknown) => unknown>();
  const room = { roomName: "bench", maxMessagesPerSecond: 0, onMessage: (type: string, cb: (client: Client, raw: unknown) => unknown) => void handlers.set(type, cb) };
  return { room: room as unknown as Room, handlers };
}

/** A guard whose rate limit never refuses (the bench sends far faster than any client may). */
function guarded(fast: boolean) {
  const { room, handlers } = fakeRoom();
  const guard = new MessageGuard<Client, typeof bossInbound>(room, bossInbound, { limit: { ratePerSecond: 1e12, burst: 1e12 }, log: createLogger("silent") });
  let sum = 0;
  guard.on("boss_player_move", (_client, msg) => void (sum += msg.x + msg.y), fast ? { fast: isPointPayload } : {});
  return { handle: handlers.get("boss_player_move")!, sum: () => sum };
}

const payload = pack({ x: 512.4, y: 387.25 });
const client = { sessionId: "benchsid1" } as Client;

/** GC entries reach the observer a turn later: let them arrive. */
const settle = () => new Promise((r) => setTimeout(r, 50));

async function time(label: string, body: (i: number) => void) {
  for (let i = 0; i < Math.min(N, 200_000); i++) body(i); // warm-up: let V8 optimise
  await settle();
  const gc0 = gcs;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) body(i);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  await settle();
  return { step: label, ns_per_message: Math.round(ns), gcs_per_million: Math.round(((gcs - gc0) * 1e6) / N) };
}

const general = guarded(false);
const common = guarded(true);
const rows = [
  await time("decode (msgpack, as Colyseus)", () => void unpack(payload)),
  await time("guard + zod schema (general path)", () => void general.handle(client, { x: 512.4, y: 387.25 })),
  await time("guard + fast check (common case)", () => void common.handle(client, { x: 512.4, y: 387.25 })),
  await time("decode + guard + zod schema", () => void general.handle(client, unpack(payload))),
  await time("decode + guard + fast check", () => void common.handle(client, unpack(payload))),
];
console.table(rows);
console.log(JSON.stringify({ scenario: "input-path", messages: N, at: new Date().toISOString(), rows, check: general.sum() + common.sum() > 0 }));
