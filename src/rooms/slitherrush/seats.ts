// What a SlitherRush account seat counts and how it is written (src/rooms/kit/keeper.ts does
// the rest): sessions, kills, deaths and time played as increases, bests as they stand.
import type { SlitherArena, Snake } from "../../game/slitherrush/arena.js";
import { TICK_RATE } from "../../game/slitherrush/constants.js";
import type { SlitherRushStore } from "../../stores/slitherrush.js";
import type { SeatKeeper, SeatRules } from "../kit/keeper.js";

export type Counted = "sessions" | "kills" | "deaths" | "playedTicks";

export type SlitherSeats = SeatKeeper<Counted, SlitherSeat, Snake, never>;

export interface SlitherSeat {
  /** When the seat's snake entered the arena (time played counts from there). */
  joinedTick: number;
}

export function seatRules(arena: SlitherArena, store: SlitherRushStore): SeatRules<Counted, SlitherSeat, Snake, never> {
  return {
    counted: ["sessions", "kills", "deaths", "playedTicks"],
    player: (seat) => arena.players.get(seat.sid),
    counts: (snake, seat) => ({ sessions: 1, kills: snake.kills, deaths: snake.deaths, playedTicks: arena.tick - seat.data.joinedTick }),
    write: (entries) =>
      store.record(
        entries.map(({ userId, player: snake, delta }) => ({
          userId,
          sessions: delta.sessions,
          kills: delta.kills,
          deaths: delta.deaths,
          timePlayedSeconds: delta.playedTicks / TICK_RATE,
          bestScore: snake.bestScore,
          bestLength: snake.bestLength,
          at: new Date(),
        })),
      ),
  };
}
