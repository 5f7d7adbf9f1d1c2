// What a duel tells its clients beyond the answers to their own messages: the arena's events as
// the spec's messages, in the order the arena produced them (a duel's end is also a record for its
// account seats' next write, src/rooms/kit/keeper.ts), the opponent's comings and goings, and the
// room listing's phase (mode status and operators read it).
import type { Client } from "@colyseus/core";
import type { PvpArena, PvpEvent, PvpPlayer } from "../../game/pvp/simulation.js";
import type { Logger } from "../../ops/logger.js";
import type { PvpOutbound } from "../../protocol/pvp.js";
import type { Broadcast } from "../kit/room.js";
import { battleRecord, type PvpSeats } from "./seats.js";
import { battleEndPayload, bothPlayers, playerView, roomStatePayload, type FactsOf } from "./views.js";

const MATCH_READY_MESSAGE = "Both players are in the arena! Press Ready to start.";
const BATTLE_START_MESSAGE = "Battle starting!";

/** What relaying needs of the room. */
export interface DuelRoom {
  roomId: string;
  arena: PvpArena;
  seats: PvpSeats;
  factsOf: FactsOf;
  log: Logger;
  client(sid: string): Client<{ messages: PvpOutbound }> | undefined;
  broadcast: Broadcast<PvpOutbound>;
  /** Sets the listing's metadata (Room.setMetadata). */
  list(metadata: { phase: string }): Promise<unknown>;
  /** True once the room shuts down or is disposed: the listing is left alone then. */
  closing(): boolean;
}

export class DuelRelay {
  private listedPhase: string;

  constructor(private readonly room: DuelRoom) {
    this.listedPhase = room.arena.phase;
  }

  /** The arena's events, each followed by the listing's phase. */
  events(events: PvpEvent[]): void {
    for (const event of events) {
      this.event(event);
      this.listPhase();
    }
  }

  /** `player` just sat down: its opponent, if any, hears of it and gets the room state again. Returns the opponent. */
  joined(player: PvpPlayer): PvpPlayer | undefined {
    const { arena, factsOf, roomId } = this.room;
    const opponent = arena.opponentOf(player);
    const other = opponent && this.room.client(opponent.id);
    if (!opponent || !other) return opponent;
    other.send("pvp_opponent_joined", { opponent: playerView(player, factsOf(player.id)), playerCount: arena.players.size });
    other.send("pvp_room_state", roomStatePayload(roomId, arena, factsOf, opponent));
    return opponent;
  }

  /** `player` left the duel (the arena already let it go); everyone else hears of it. */
  left(player: PvpPlayer, reason: "left" | "disconnected", forfeit: boolean): void {
    const sid = player.id;
    const leaving = this.room.client(sid);
    const payload = { sid, username: player.username, reason, forfeit, playerCount: this.room.arena.players.size };
    this.room.broadcast("pvp_opponent_left", payload, leaving ? { except: leaving } : undefined);
    this.room.log.info({ sid, reason, forfeit }, "player left a duel");
  }

  /** Keeps the listing's metadata.phase current. */
  listPhase(): void {
    const phase = this.room.arena.phase;
    if (phase === this.listedPhase || this.room.closing()) return;
    this.listedPhase = phase;
    this.room.list({ phase }).catch((err: unknown) => this.room.log.warn({ err }, "could not update the room listing"));
  }

  private event(event: PvpEvent): void {
    const { arena, factsOf, log, seats } = this.room;
    switch (event.type) {
      case "match_ready": {
        const both = bothPlayers(arena, factsOf);
        if (both) this.room.broadcast("pvp_match_ready", { message: MATCH_READY_MESSAGE, playerCount: arena.players.size, ...both });
        return;
      }
      case "battle_start": {
        const both = bothPlayers(arena, factsOf);
        if (both) this.room.broadcast("pvp_battle_start", { message: BATTLE_START_MESSAGE, match_id: event.matchId, ...both });
        log.info({ matchId: event.matchId }, "duel started");
        return;
      }
      case "player_hit":
        this.room.broadcast("pvp_player_hit", { target: event.targetId, lives: event.lives, shooter: event.shooterId });
        return;
      case "battle_end": {
        const { result } = event;
        this.room.broadcast("pvp_battle_end", battleEndPayload(result, factsOf));
        log.info({ matchId: result.matchId, reason: result.reason, winner: result.winnerId }, "duel ended");
        const record = battleRecord(result, this.room.roomId, (sid) => seats.get(sid)?.identity.userId ?? null);
        if (record.accounts.length) void seats.record(record);
        return;
      }
    }
  }
}
