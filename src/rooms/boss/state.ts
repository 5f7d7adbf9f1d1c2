// The boss room's synchronized state as a mirror of the simulation: the simulation
// (src/game/boss/simulation.ts) is the source of truth; after each step the room copies what
// changed into the state (src/protocol/bossState.ts), and Colyseus sends the deltas.
import type { BattlePlayer, BossBattle } from "../../game/boss/simulation.js";
import { damageMultiplier, speedMultiplier } from "../../game/boss/powerups.js";
import { BossPlayerState, PowerupState, ProjectileState, type BossRoomState } from "../../protocol/bossState.js";
import { round1, set } from "../kit/sync.js";

export function syncPlayer(state: BossPlayerState, p: BattlePlayer, now: number): void {
  set(state, "username", p.username);
  set(state, "character", p.character);
  set(state, "x", round1(p.x));
  set(state, "y", round1(p.y));
  set(state, "lives", p.lives);
  set(state, "bullets", p.bullets);
  set(state, "damage_dealt", p.damageDealt);
  set(state, "bullets_fired", p.bulletsFired);
  set(state, "bullets_hit", p.bulletsHit);
  set(state, "status", p.status);
  set(state, "connected", p.connected);
  set(state, "away", p.away);
  set(state, "damage_boost", damageMultiplier(p, now) > 1);
  set(state, "speed_boost", speedMultiplier(p, now) > 1);
  const collected = state.powerups_collected;
  for (let i = collected.length; i < p.powerupsCollected.length; i++) collected.push(p.powerupsCollected[i]);
}

/** Copies the simulation into the synchronized state. */
export function syncBattleState(state: BossRoomState, battle: BossBattle): void {
  set(state, "boss_health", battle.health);
  set(state, "max_health", battle.maxHealth);
  set(state, "phase", battle.defeated ? "defeated" : "battle");
  set(state.bounds, "width", battle.bounds.width);
  set(state.bounds, "height", battle.bounds.height);
  set(state.bounds, "top", battle.bounds.top);
  set(state.boss, "x", round1(battle.boss.x));
  set(state.boss, "y", round1(battle.boss.y));
  set(state.boss, "pattern", battle.boss.pattern);

  for (const [id, p] of battle.players) {
    let s = state.players.get(id);
    if (!s) state.players.set(id, (s = new BossPlayerState()));
    syncPlayer(s, p, battle.now);
  }
  // Every live player is in the state now: it holds more only when someone left (no copy of the keys otherwise).
  if (state.players.size > battle.players.size) for (const id of [...state.players.keys()]) if (!battle.players.has(id)) state.players.delete(id);

  for (const [id, pu] of battle.powerups) {
    if (!state.powerups.has(id)) state.powerups.set(id, new PowerupState({ id, type: pu.type, x: pu.x, y: pu.y }));
  }
  if (state.powerups.size > battle.powerups.size) for (const id of [...state.powerups.keys()]) if (!battle.powerups.has(id)) state.powerups.delete(id);

  for (const shot of battle.projectiles) {
    const key = String(shot.id);
    let s = state.projectiles.get(key);
    const x = round1(shot.x);
    const y = round1(shot.y);
    if (!s) state.projectiles.set(key, (s = new ProjectileState({ x, y, vx: round1(shot.vx), vy: round1(shot.vy) })));
    set(s, "x", x);
    set(s, "y", y);
  }
  if (state.projectiles.size > battle.projectiles.length) {
    const live = new Set(battle.projectiles.map((shot) => String(shot.id)));
    for (const key of [...state.projectiles.keys()]) if (!live.has(key)) state.projectiles.delete(key);
  }
}
