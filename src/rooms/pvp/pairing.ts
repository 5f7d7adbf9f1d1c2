// Never two half-empty duels while two players wait. Of two rooms with one waiting player each,
// the newer room's player is sent to the older room: pvp_requeue, then the server closes the
// connection and the client calls joinOrCreate("pvp") again, which fills the oldest waiting room
// first. (No lock: a lock that outlives a racing reservation would hide a full room as open.)
// Runs in a room left with one player (after a join, a leave or a return); an older room asks the
// newer ones (on any process) to run it, so whichever of two racing rooms looks first, the newer
// one moves.
import { matchMaker, type Client, type Clock, type IRoomCache } from "@colyseus/core";
import type { PvpArena, PvpPlayer } from "../../game/pvp/simulation.js";
import type { Logger } from "../../logger.js";
import type { PvpOutbound } from "../../protocol/pvp.js";

/** What pairing needs of a PvP room. */
export interface WaitingRoom {
  roomName: string;
  roomId: string;
  log: Logger;
  clock: Clock;
  arena: PvpArena;
  /** Whether the room takes an opponent: not closing, and no seat reserved for one on its way. */
  open(): boolean;
  client(sid: string): Client<{ messages: PvpOutbound }> | undefined;
  /** Sends a player away for good (its seat released, then its connection closed). */
  dismiss(sid: string): Promise<void>;
  /** Runs pairing in this room (the room method other rooms call: PAIRING_CALL). */
  pairWaitingPlayers(): Promise<void>;
}

/** The room method other rooms call (matchMaker.remoteRoomCall) to have it run pairing. */
export const PAIRING_CALL = "pairWaitingPlayers";

export class DuelPairing {
  constructor(private readonly room: WaitingRoom) {}

  /** At the next tick, once Colyseus has counted the change (a join, a leave, a freed reconnection seat). */
  soon(): void {
    this.room.clock.setTimeout(() => void this.room.pairWaitingPlayers(), 0);
  }

  /** Sends a lone waiting player to an older waiting room, or asks newer ones to send theirs here. */
  async run(): Promise<void> {
    const { room } = this;
    const player = this.waitingAlone();
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
    if (waiting.some((r) => isOlder(r, self))) return this.requeue(player);
    await Promise.all(
      waiting.map((r) => matchMaker.remoteRoomCall(r.roomId, PAIRING_CALL).catch((err: unknown) => room.log.warn({ err, roomId: r.roomId }, "a newer waiting room did not answer"))),
    );
  }

  /** The room's only player, when it waits alone, connected, with nobody on the way. */
  private waitingAlone(): PvpPlayer | undefined {
    const { arena } = this.room;
    const player = arena.players.size === 1 ? [...arena.players.values()][0] : undefined;
    return player?.connected && this.room.open() ? player : undefined;
  }

  private async requeue(player: PvpPlayer): Promise<void> {
    const client = this.room.client(player.id);
    // Things may have changed while the listing was read: an opponent on its way, a drop.
    if (!client || this.waitingAlone() !== player) return;
    client.send("pvp_requeue", { message: "Another player is waiting for an opponent: joining them", reason: "waiting_player_elsewhere" });
    this.room.log.info({ sid: player.id }, "player sent to an older waiting duel");
    await this.room.dismiss(player.id);
  }
}

/** Whether listing `a` is older than `b` (creation time, then room id: a strict order every process agrees on). */
function isOlder(a: IRoomCache, b: IRoomCache): boolean {
  const ta = new Date(a.createdAt ?? 0).getTime();
  const tb = new Date(b.createdAt ?? 0).getTime();
  return ta !== tb ? ta < tb : a.roomId < b.roomId;
}
