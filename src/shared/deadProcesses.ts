// A process that dies without closing (kill -9, out of memory, a lost machine) leaves its rooms in
// the shared room listings, where matchmaking would offer them and mode status would count them,
// and its accounts' seat leases until their TTL. Colyseus only notices such a process when a seat
// reservation to it times out, or when another process starts. So every scaled-out process looks
// every DEAD_PROCESS_CHECK_MS for processes whose Redis subscription is gone (Redis drops it as
// soon as the dead process's connections close) and asks each Colyseus' health check (it answers
// within REMOTE_ROOM_SHORT_TIMEOUT, 2 s, when alive): one that fails is excluded from placement,
// its listings are removed, and the seat leases its rooms held are released.
import { matchMaker } from "@colyseus/core";
import type { Logger } from "../ops/logger.js";
import type { MatchSeats } from "./matchSeats.js";
import { activeRedisRecovery } from "./redisRecovery.js";

export const DEAD_PROCESS_CHECK_MS = 5000;
/**
 * After a Redis outage, no sweep until Redis has answered this long: the other processes need a
 * moment to reconnect and subscribe again (src/shared/redisRecovery.ts), and a live process whose
 * subscription is not back yet must not be taken for dead (its seats would be freed).
 */
export const DEAD_PROCESS_GRACE_MS = 10_000;

/** One pass; returns the process ids found dead. */
export async function sweepDeadProcesses(seats: MatchSeats, log: Logger): Promise<string[]> {
  const [stats, channels] = await Promise.all([matchMaker.stats.fetchAll(), matchMaker.presence.channels("p:*")]);
  const listening = new Set(channels.map((c) => c.slice(2)));
  const dead: string[] = [];
  for (const { processId } of stats) {
    if (processId === matchMaker.processId || listening.has(processId)) continue;
    const rooms = await matchMaker.query({ processId });
    if (await matchMaker.healthCheckProcessId(processId)) continue;
    dead.push(processId);
    const released = await seats.releaseRooms(rooms.map((r) => ({ roomName: r.name, roomId: r.roomId })));
    log.warn({ processId, rooms: rooms.map((r) => r.roomId), seatsReleased: released }, "a server process is gone: its rooms left the listings and their seats are free");
  }
  return dead;
}

/** Sweeps every DEAD_PROCESS_CHECK_MS; returns the stop function. */
export function startDeadProcessChecks(seats: MatchSeats, log: Logger, everyMs = DEAD_PROCESS_CHECK_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    const recovery = activeRedisRecovery();
    if (recovery && !recovery.stableFor(DEAD_PROCESS_GRACE_MS)) return;
    running = true;
    sweepDeadProcesses(seats, log)
      .catch((err) => log.warn({ err }, "could not check for dead server processes"))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
