// Prometheus metrics: the one registry and every metric the service exports, with small functions
// the rest of the code calls (rooms through src/rooms/kit/, routes through middleware). Served at
// GET /metrics (src/http/metricsRoutes.ts). Labels are bounded: room types, route patterns (never
// raw paths), statuses, SQL statement kinds, limiter names.
import client from "prom-client";

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry }); // process_* and nodejs_*: CPU, memory, event loop, GC

const httpDuration = new client.Histogram({
  name: "http_request_duration_seconds",
  help: "HTTP request durations by method, route pattern and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

// Room messages are counted per message, tens of thousands a second: a labelled prom-client inc
// builds a key string each time, so they are tallied in plain numbers and added when scraped.
const tallyIn = new Map<string, number>();
const tallyOut = new Map<string, number>();

/** Adds a tally to its counter and empties it (a counter's collect(), run at each scrape). */
function foldTally(counter: client.Counter<"room">, tally: Map<string, number>): void {
  for (const [room, n] of tally) counter.inc({ room }, n);
  tally.clear();
}

const messagesIn: client.Counter<"room"> = new client.Counter({
  name: "game_room_messages_in_total",
  help: "Messages received from clients, by room type (invalid, unknown and rate-limited ones included)",
  labelNames: ["room"] as const,
  registers: [registry],
  collect: () => foldTally(messagesIn, tallyIn),
});

const messagesOut: client.Counter<"room"> = new client.Counter({
  name: "game_room_messages_out_total",
  help: "Messages sent to clients, by room type (one per recipient; state patches not included)",
  labelNames: ["room"] as const,
  registers: [registry],
  collect: () => foldTally(messagesOut, tallyOut),
});

const tickDuration = new client.Histogram({
  name: "game_room_tick_duration_seconds",
  help: "Duration of one simulation step, by room type",
  labelNames: ["room"] as const,
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
  registers: [registry],
});

const dbQueryDuration = new client.Histogram({
  name: "db_query_duration_seconds",
  help: "Database query durations by SQL statement kind",
  labelNames: ["statement"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

const rateLimited = new client.Counter({
  name: "rate_limited_total",
  help: "Requests and room messages refused by a rate limit, by limiter",
  labelNames: ["limiter"] as const,
  registers: [registry],
});

/** What the room gauges read at scrape time: this process's live rooms. */
export interface LocalRoom {
  roomName: string;
  clients: { length: number };
}
let localRooms: () => Iterable<LocalRoom> = () => [];

/** Rooms and clients per room type, computed from this process's rooms when scraped. */
function roomGauge(name: string, help: string, value: (room: LocalRoom) => number) {
  return new client.Gauge({
    name,
    help,
    labelNames: ["room"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const room of localRooms()) this.inc({ room: room.roomName }, value(room));
    },
  });
}
roomGauge("game_rooms", "Rooms open on this process, by room type", () => 1);
roomGauge("game_room_clients", "Clients connected to this process's rooms, by room type", (room) => room.clients.length);

/** Where the room gauges find this process's rooms (set once the game server runs). */
export function setLocalRooms(source: () => Iterable<LocalRoom>): void {
  localRooms = source;
}

export function countMessageIn(roomName: string): void {
  tallyIn.set(roomName, (tallyIn.get(roomName) ?? 0) + 1);
}

export function countMessageOut(roomName: string, recipients = 1): void {
  if (recipients > 0) tallyOut.set(roomName, (tallyOut.get(roomName) ?? 0) + recipients);
}

/** Each room type's tick histogram, looked up once: the step runs 30 times a second per room, and a labelled observe hashes its labels every time. */
const tickByRoom = new Map<string, client.Histogram.Internal<"room">>();

export function observeTick(roomName: string, ms: number): void {
  let tick = tickByRoom.get(roomName);
  if (!tick) tickByRoom.set(roomName, (tick = tickDuration.labels({ room: roomName })));
  tick.observe(ms / 1000);
}

export function observeHttpRequest(method: string, route: string, status: number, ms: number): void {
  httpDuration.observe({ method, route, status: String(status) }, ms / 1000);
}

const STATEMENTS = new Set(["select", "insert", "update", "delete", "begin", "commit", "rollback", "with", "set", "create", "alter", "drop"]);

export function observeDbQuery(sql: string, ms: number): void {
  const first = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? "";
  dbQueryDuration.observe({ statement: STATEMENTS.has(first) ? first : "other" }, ms / 1000);
}

export function countRateLimited(limiter: string): void {
  rateLimited.inc({ limiter });
}

// Backups (src/backup/): when the last one succeeded and how big it was, so an alert can fire when
// it gets old (time() - backup_last_success_timestamp_seconds > 2 * BACKUP_EVERY). Any backup this
// process takes counts: scheduled, before a migration, or by `npm run admin -- backup` run inside it.
const backupLastSuccess = new client.Gauge({
  name: "backup_last_success_timestamp_seconds",
  help: "Unix time of the instant the last successful backup represents (0: none since this process started)",
  registers: [registry],
});
const backupLastBytes = new client.Gauge({
  name: "backup_last_size_bytes",
  help: "Size of the last successful backup file",
  registers: [registry],
});
const backupLastDuration = new client.Gauge({
  name: "backup_last_duration_seconds",
  help: "How long the last successful backup took, whole (the database was held for part of it)",
  registers: [registry],
});
const backupFailures = new client.Counter({
  name: "backup_failures_total",
  help: "Backups this process tried and failed",
  registers: [registry],
});

/** Records a successful backup; returns it, for `out(recordBackup(await takeBackup(…)))`. */
export function recordBackup<T extends { at: string; bytes: number; ms: number }>(summary: T): T {
  backupLastSuccess.set(Date.parse(summary.at) / 1000);
  backupLastBytes.set(summary.bytes);
  backupLastDuration.set(summary.ms / 1000);
  return summary;
}

export function countBackupFailure(): void {
  backupFailures.inc();
}
