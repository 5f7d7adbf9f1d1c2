// The PvP room's synchronized state as a mirror of the simulation: the arena
// (src/game/pvp/simulation.ts) is the source of truth; after each step or action the room copies
// what changed into the state (src/protocol/pvpState.ts), and Colyseus sends the deltas.
import type { PvpArena, PvpPlayer } from "../../game/pvp/simulation.js";
import { PvpBulletState, PvpPlayerState, type PvpRoomState } from "../../protocol/pvpState.js";
import type { SeatFacts } from "./views.js";
import { round1, set } from "../kit/sync.js";

export function syncPlayer(state: PvpPlayerState, p: PvpPlayer, facts: SeatFacts): void {
  set(state, "username", p.username);
  set(state, "character", p.character);
  set(state, "player_number", p.number);
  set(state, "x", round1(p.x));
  set(state, "y", round1(p.y));
  set(state, "lives", p.lives);
  set(state, "ready", p.ready);
  set(state, "bullets", p.bullets);
  set(state, "shots", p.shots);
  set(state, "hits", p.hits);
  set(state, "connected", p.connected);
  set(state, "away", facts.away);
  set(state, "guest", facts.guest);
}

/** Copies the arena into the synchronized state. */
export function syncArenaState(state: PvpRoomState, arena: PvpArena, factsOf: (sid: string) => SeatFacts): void {
  set(state, "phase", arena.phase);
  set(state, "match_id", arena.matchId ?? "");
  for (const [id, p] of arena.players) {
    let s = state.players.get(id);
    if (!s) state.players.set(id, (s = new PvpPlayerState()));
    syncPlayer(s, p, factsOf(id));
  }
  for (const id of [...state.players.keys()]) if (!arena.players.has(id)) state.players.delete(id);

  const live = new Set<string>();
  for (const b of arena.bullets) {
    const key = String(b.id);
    live.add(key);
    const x = round1(b.x);
    const y = round1(b.y);
    let s = state.bullets.get(key);
    if (!s) state.bullets.set(key, (s = new PvpBulletState({ owner: b.ownerId, x, y, vx: round1(b.vx), vy: round1(b.vy) })));
    set(s, "x", x);
    set(s, "y", y);
  }
  for (const key of [...state.bullets.keys()]) if (!live.has(key)) state.bullets.delete(key);
}
