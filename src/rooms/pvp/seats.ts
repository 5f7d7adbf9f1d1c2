// What a PvP account seat counts and how it is written (src/rooms/kit/keeper.ts does the rest):
// the bullets it spent (back into its progress record), and the room's finished duels as records.
import type { PvpArena, PvpPlayer } from "../../game/pvp/simulation.js";
import type { BattleRecord, PvpStore } from "../../stores/pvp.js";
import type { SeatKeeper, SeatRules } from "../kit/keeper.js";

export interface PvpSeat {
  /** The player said it switched away from the game (pvp_player_away). */
  tabAway: boolean;
}

export type PvpSeats = SeatKeeper<"spent", PvpSeat, PvpPlayer, BattleRecord>;

export function seatRules(arena: PvpArena, store: PvpStore): SeatRules<"spent", PvpSeat, PvpPlayer, BattleRecord> {
  return {
    counted: ["spent"],
    player: (seat) => arena.players.get(seat.sid),
    counts: (p) => ({ spent: p.bulletsSpent }),
    write: (entries, battles) => store.record(battles, entries.map((e) => ({ userId: e.userId, bullets: e.delta.spent }))),
  };
}
