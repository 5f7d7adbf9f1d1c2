// The PvP room's synchronized state as a mirror of the simulation: the arena
// (src/game/pvp/simulation.ts) is the source of truth; after each step or action the room copies
// what changed into the state (src/protocol/pvpState.ts), and Colyseus sends the deltas.
import type { PvpArena, PvpPlayer } from "../../game/pvp/simulation.js";
import { PvpBulletState, PvpPlayerState, type PvpRoomState } from "../../protocol/pvpState.js";
import type { SeatFacts } from "./views.js";
import { round1 } from "../kit/sync.js";

// Field by field, not through a generic helper: this runs for every player of every room 30 times
// a second, and a keyed access shared by every field and schema class is megamorphic (slow) in V8.
export function syncPlayer(state: PvpPlayerState, p: PvpPlayer, facts: SeatFacts): void {
  if (state.username !== p.username) state.username = p.username;
  if (state.character !== p.character) state.character = p.character;
  if (state.player_number !== p.number) state.player_number = p.number;
  const x = round1(p.x);
  const y = round1(p.y);
  if (state.x !== x) state.x = x;
  if (state.y !== y) state.y = y;
  if (state.lives !== p.lives) state.lives = p.lives;
  if (state.ready !== p.ready) state.ready = p.ready;
  if (state.bullets !== p.bullets) state.bullets = p.bullets;
  if (state.shots !== p.shots) state.shots = p.shots;
  if (state.hits !== p.hits) state.hits = p.hits;
  if (state.connected !== p.connected) state.connected = p.connected;
  if (state.away !== facts.away) state.away = facts.away;
  if (state.guest !== facts.guest) state.guest = facts.guest;
}

/** Copies the arena into the synchronized state (no allocation unless something came or went). */
export function syncArenaState(state: PvpRoomState, arena: PvpArena, factsOf: (sid: string) => SeatFacts): void {
  if (state.phase !== arena.phase) state.phase = arena.phase;
  const matchId = arena.matchId ?? "";
  if (state.match_id !== matchId) state.match_id = matchId;
  for (const p of arena.players.values()) {
    let s = state.players.get(p.id);
    if (!s) state.players.set(p.id, (s = new PvpPlayerState()));
    syncPlayer(s, p, factsOf(p.id));
  }
  // Every arena player is in the state now: it holds more only when someone left.
  if (state.players.size > arena.players.size) for (const id of [...state.players.keys()]) if (!arena.players.has(id)) state.players.delete(id);

  for (const b of arena.bullets) {
    const key = String(b.id);
    const x = round1(b.x);
    const y = round1(b.y);
    let s = state.bullets.get(key);
    if (!s) state.bullets.set(key, (s = new PvpBulletState({ owner: b.ownerId, x, y, vx: round1(b.vx), vy: round1(b.vy) })));
    if (s.x !== x) s.x = x;
    if (s.y !== y) s.y = y;
  }
  if (state.bullets.size > arena.bullets.length) {
    const live = new Set(arena.bullets.map((b) => String(b.id)));
    for (const key of [...state.bullets.keys()]) if (!live.has(key)) state.bullets.delete(key);
  }
}
