// Ranking: score, then kills, then length, all descending; earlier joiners first on a full tie so
// the order is stable from one update to the next.
import { LEADERBOARD_SIZE } from "./constants.js";

export interface Rankable {
  score: number;
  kills: number;
  length: number;
  joinOrder: number;
}

export function compareRank(a: Rankable, b: Rankable): number {
  return b.score - a.score || b.kills - a.kills || b.length - a.length || a.joinOrder - b.joinOrder;
}

/** The players best first (a new array). */
export function ranked<T extends Rankable>(players: Iterable<T>): T[] {
  return [...players].sort(compareRank);
}

/** The best LEADERBOARD_SIZE players. */
export function topPlayers<T extends Rankable>(players: Iterable<T>, size = LEADERBOARD_SIZE): T[] {
  return ranked(players).slice(0, size);
}
