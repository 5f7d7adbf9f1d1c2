// Mode status counted from the matchmaker's room listings, which cover every process when the
// deployment runs on Redis. Shared by GET /api/modes/status and the mode_select room.
import { matchMaker, type IRoomCache } from "@colyseus/core";
import { activeRedisRecovery } from "./redisRecovery.js";
import { MODES, MODE_SELECT_ROOM, type ModeStatus, type ModesStatusBody } from "../protocol/modes.js";

/** Free seats a listing offers to matchmaking: none in locked, private or finished rooms. */
function openSeats(r: IRoomCache): number {
  if (r.locked || r.private || r.metadata?.phase === "defeated") return 0;
  return Math.max(0, r.maxClients - r.clients);
}

/**
 * Players connected to a room. The listing's `clients` also counts seats reserved by /matchmake
 * that nobody has taken yet (and may never take): the game rooms list their players instead
 * (src/rooms/kit/room.ts), none until the first one connects.
 */
export function playersOf(r: IRoomCache): number {
  const players = (r.metadata as { players?: unknown } | undefined)?.players;
  return typeof players === "number" ? players : 0;
}

export function countMode(listings: IRoomCache[]): ModeStatus {
  let totalPlayers = 0;
  let activeRooms = 0;
  let openSlots = 0;
  for (const r of listings) {
    const players = playersOf(r);
    totalPlayers += players;
    if (players > 0) activeRooms++;
    openSlots += openSeats(r);
  }
  return { totalPlayers, activeRooms, openSlots };
}

export interface LiveStatus {
  modes: ModesStatusBody;
  /** Clients of the mode_select rooms. */
  viewers: number;
}

/** One query over every room listing, grouped by mode. */
export async function liveStatus(): Promise<LiveStatus> {
  // Not while Redis' listings may still name rooms that are gone (src/shared/redisRecovery.ts): 503.
  activeRedisRecovery()?.requireMatchmaking();
  const listings = await matchMaker.query({});
  const byName = new Map<string, IRoomCache[]>();
  for (const r of listings) {
    let list = byName.get(r.name);
    if (!list) byName.set(r.name, (list = []));
    list.push(r);
  }
  const modes = Object.fromEntries(MODES.map((m) => [m, countMode(byName.get(m) ?? [])])) as ModesStatusBody;
  const viewers = (byName.get(MODE_SELECT_ROOM) ?? []).reduce((n, r) => n + r.clients, 0);
  return { modes, viewers };
}
