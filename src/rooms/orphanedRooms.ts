// Rooms live in a process's memory; their database records say is_active until the room closes.
// A process that dies without closing its rooms (kill -9, a crash, a lost machine) leaves those
// records active. This closes them: at start-up, and, when scaled out, every minute for rooms whose
// process the matchmaker has found dead (a process that stops answering is dropped from Redis by
// Colyseus' health check, which this also runs).
import { activeRedisRecovery } from "../shared/redisRecovery.js";
import { DEAD_PROCESS_GRACE_MS } from "../shared/deadProcesses.js";
import { matchMaker } from "@colyseus/core";
import type { AppContext } from "../context.js";
import { BOSS_ROOM } from "../protocol/boss.js";
import { BossStore } from "../stores/boss.js";

/** How often a scaled-out process looks for rooms of dead processes. */
export const ORPHAN_SWEEP_INTERVAL_MS = 60_000;
/** A record younger than this may belong to a room still being created on another process. */
export const ORPHAN_MIN_AGE_MS = 60_000;

/**
 * One process, no Redis: before the game server accepts anyone, no room runs anywhere, so every
 * active record is an orphan.
 */
export async function closeRoomsOfDeadProcess(ctx: AppContext): Promise<void> {
  const closed = await new BossStore(ctx.prisma).closeOrphanedRooms(new Set());
  if (closed.length) ctx.logger.info({ rooms: closed }, "closed boss room records left active by a previous process");
}

/** Scaled out: closes active records of rooms that no live process lists. */
export async function sweepOrphanedRooms(ctx: AppContext, now = Date.now()): Promise<string[]> {
  await matchMaker.healthCheckAllProcesses();
  const live = new Set((await matchMaker.query({ name: BOSS_ROOM })).map((r) => r.roomId));
  const closed = await new BossStore(ctx.prisma).closeOrphanedRooms(live, new Date(now - ORPHAN_MIN_AGE_MS));
  if (closed.length) ctx.logger.info({ rooms: closed }, "closed boss room records of rooms whose process is gone");
  return closed;
}

/** Sweeps now and then every ORPHAN_SWEEP_INTERVAL_MS; returns the stop function. */
export function startOrphanSweeps(ctx: AppContext): () => void {
  const sweep = () => {
    // Not while Redis is away or just back (possibly empty, listings not yet republished by every process).
    const recovery = activeRedisRecovery();
    if (recovery && !recovery.stableFor(DEAD_PROCESS_GRACE_MS)) return;
    sweepOrphanedRooms(ctx).catch((err) => ctx.logger.warn({ err }, "could not look for boss rooms of dead processes"));
  };
  void sweep();
  const timer = setInterval(sweep, ORPHAN_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
