// Never two half-empty duels while two players wait. Of two rooms with one waiting player each,
// the newer room's player is sent to the older room: pvp_requeue, then the server closes the
// connection and the client calls joinOrCreate("pvp") again, which fills the oldest waiting room
// first. (No lock: a lock that outlives a racing reservation would hide a full room as open.)
// Runs in a room left with one player (after a join, a leave or a return), and again every second
// while its player waits alone: a change no room hears of (a reservation that lapsed, a listing read
// mid-change) does not leave two players waiting apart. An older room asks the newer ones (on any
// process) to run it, so whichever of two racing rooms looks first, the newer one moves.
import { ClientState, matchMaker, type Client, type Clock, type IRoomCache } from "@colyseus/core";
import type { PvpArena, PvpPlayer } from "../../game/pvp/simulation.js";
import type { Logger } from "../../ops/logger.js";
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
/** How often a requeue looks again for the client's join acknowledgement, and for how long. */
export const JOIN_ACK_POLL_MS = 50;
export const JOIN_ACK_PATIENCE_MS = 10_000;
/** How often a room whose player waits alone looks again for a player waiting elsewhere. */
export const REPAIR_INTERVAL_MS = 1000;

export class DuelPairing {
  /** Players to be requeued once their client acknowledges its join. */
  private readonly awaitingAck = new Set<string>();

  constructor(
    private readonly room: WaitingRoom,
    /** The deployment's matchmaker (its listing and remote room calls); tests hand in a fake. */
    private readonly rooms: Pick<typeof matchMaker, "query" | "remoteRoomCall"> = matchMaker,
  ) {
    // One listing query a second per lone player, none for a full duel; a listing that cannot be
    // read (Redis down) is not logged from here each second (the change-driven runs log it).
    room.clock.setInterval(() => {
      if (this.waitingAlone()) void this.run(true);
    }, REPAIR_INTERVAL_MS);
  }

  /** At the next tick, once Colyseus has counted the change (a join, a leave, a freed reconnection seat). */
  soon(): void {
    this.room.clock.setTimeout(() => void this.room.pairWaitingPlayers(), 0);
  }

  /** Sends a lone waiting player to an older waiting room, or asks newer ones to send theirs here. */
  async run(quiet = false): Promise<void> {
    const { room } = this;
    const player = this.waitingAlone();
    if (!player) return;
    let open: IRoomCache[];
    try {
      open = await this.rooms.query({ name: room.roomName, locked: false, private: false });
    } catch (err) {
      if (!quiet) room.log.warn({ err }, "could not look for players waiting elsewhere");
      return;
    }
    const self = open.find((r) => r.roomId === room.roomId);
    const waiting = open.filter((r) => r.roomId !== room.roomId && r.clients === 1);
    if (!self || !waiting.length) return;
    if (waiting.some((r) => isOlder(r, self))) return this.requeue(player);
    await Promise.all(
      waiting.map((r) => this.rooms.remoteRoomCall(r.roomId, PAIRING_CALL).catch((err: unknown) => room.log.warn({ err, roomId: r.roomId }, "a newer waiting room did not answer"))),
    );
  }

  /** The room's only player, when it waits alone, connected, with nobody on the way. */
  private waitingAlone(): PvpPlayer | undefined {
    const { arena } = this.room;
    const player = arena.players.size === 1 ? [...arena.players.values()][0] : undefined;
    return player?.connected && this.room.open() ? player : undefined;
  }

  private async requeue(player: PvpPlayer, waitedMs = 0): Promise<void> {
    const client = this.room.client(player.id);
    // Things may have changed while the listing was read: an opponent on its way, a drop.
    if (!client || this.waitingAlone() !== player) return void this.awaitingAck.delete(player.id);
    // Until the client acknowledges its join, Colyseus holds its messages, and closing the
    // connection drops them: it would be closed without being told why, and not come back. A client
    // that never acknowledges is dropped by Colyseus itself.
    if (client.state !== ClientState.JOINED) {
      if (waitedMs === 0 && this.awaitingAck.has(player.id)) return; // already waiting for this one
      this.awaitingAck.add(player.id);
      if (waitedMs < JOIN_ACK_PATIENCE_MS) this.room.clock.setTimeout(() => void this.requeue(player, waitedMs + JOIN_ACK_POLL_MS), JOIN_ACK_POLL_MS);
      else this.awaitingAck.delete(player.id);
      return;
    }
    this.awaitingAck.delete(player.id);
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
