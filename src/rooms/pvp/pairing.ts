// Never two half-empty duels while two players wait. Of two rooms with one waiting player each,
// the newer room's player is sent to the older room: pvp_requeue, then the server closes the
// connection and the client calls joinOrCreate("pvp") again, which fills the oldest waiting room
// first. (No lock: a lock that outlives a racing reservation would hide a full room as open.)
// Runs in a room left with one player (after a join, a leave or a return); an older room asks the
// newer ones (on any process) to run it, so whichever of two racing rooms looks first, the newer
// one moves.
import { matchMaker, type IRoomCache } from "@colyseus/core";
import type { PvpPlayer } from "../../game/pvp/simulation.js";
import type { Logger } from "../../logger.js";

/** What pairing needs of a PvP room. */
export interface WaitingRoom {
  roomName: string;
  roomId: string;
  log: Logger;
  /** The room's only player, when it waits alone, connected, with nobody on the way. */
  waitingAlone(): PvpPlayer | undefined;
  /** Sends that player to an older waiting room. */
  requeue(player: PvpPlayer): Promise<void>;
}

/** The room method other rooms call (matchMaker.remoteRoomCall) to have it run pairing. */
export const PAIRING_CALL = "pairWaitingPlayers";

export async function pairWaitingPlayers(room: WaitingRoom): Promise<void> {
  const player = room.waitingAlone();
  if (!player) return;
  let open: IRoomCache[];
  try {
    open = await matchMaker.query({ name: room.roomName, locked: false, private: false });
  } catch (err) {
    room.log.warn({ err }, "could not look for players waiting elsewhere");
    return;
  }
  const self = open.find((r) => r.roomId === room.roomId);
  const waiting = open.filter((r) => r.roomId !== room.roomId && r.clients === 1);
  if (!self || !waiting.length) return;
  if (waiting.some((r) => isOlder(r, self))) return room.requeue(player);
  await Promise.all(
    waiting.map((r) => matchMaker.remoteRoomCall(r.roomId, PAIRING_CALL).catch((err: unknown) => room.log.warn({ err, roomId: r.roomId }, "a newer waiting room did not answer"))),
  );
}

/** Whether listing `a` is older than `b` (creation time, then room id: a strict order every process agrees on). */
function isOlder(a: IRoomCache, b: IRoomCache): boolean {
  const ta = new Date(a.createdAt ?? 0).getTime();
  const tb = new Date(b.createdAt ?? 0).getTime();
  return ta !== tb ? ta < tb : a.roomId < b.roomId;
}
