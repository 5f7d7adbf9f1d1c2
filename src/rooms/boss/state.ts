// The boss room's synchronized state as a mirror of the simulation: the simulation
// (src/game/boss/simulation.ts) is the source of truth; after each step the room copies what
// changed into the state (src/protocol/bossState.ts), and Colyseus sends the deltas.
import type { BattlePlayer, BossBattle } from "../../game/boss/simulation.js";
import { damageMultiplier, speedMultiplier } from "../../game/boss/powerups.js";
import { BossPlayerState, BossPowerupState, BossProjectileState, type BossRoomState } from "../../protocol/bossState.js";
import { round1 } from "../kit/sync.js";

// Field by field, not through a generic helper: this runs for every player of every room 30 times
// a second, and a keyed access shared by every field and schema class is megamorphic (slow) in V8.
export function syncPlayer(state: BossPlayerState, p: BattlePlayer, now: number): void {
  if (state.username !== p.username) state.username = p.username;
  if (state.character !== p.character) state.character = p.character;
  const x = round1(p.x);
  const y = round1(p.y);
  if (state.x !== x) state.x = x;
  if (state.y !== y) state.y = y;
  if (state.lives !== p.lives) state.lives = p.lives;
  if (state.bullets !== p.bullets) state.bullets = p.bullets;
  if (state.damage_dealt !== p.damageDealt) state.damage_dealt = p.damageDealt;
  if (state.bullets_fired !== p.bulletsFired) state.bullets_fired = p.bulletsFired;
  if (state.bullets_hit !== p.bulletsHit) state.bullets_hit = p.bulletsHit;
  if (state.status !== p.status) state.status = p.status;
  if (state.connected !== p.connected) state.connected = p.connected;
  if (state.away !== p.away) state.away = p.away;
  const damageBoost = damageMultiplier(p, now) > 1;
  const speedBoost = speedMultiplier(p, now) > 1;
  if (state.damage_boost !== damageBoost) state.damage_boost = damageBoost;
  if (state.speed_boost !== speedBoost) state.speed_boost = speedBoost;
  const collected = state.powerups_collected;
  for (let i = collected.length; i < p.powerupsCollected.length; i++) collected.push(p.powerupsCollected[i]);
}

/** Copies the simulation into the synchronized state. */
export function syncBattleState(state: BossRoomState, battle: BossBattle): void {
  if (state.boss_health !== battle.health) state.boss_health = battle.health;
  if (state.max_health !== battle.maxHealth) state.max_health = battle.maxHealth;
  const phase = battle.defeated ? "defeated" : "battle";
  if (state.phase !== phase) state.phase = phase;
  const { bounds, boss } = state;
  if (bounds.width !== battle.bounds.width) bounds.width = battle.bounds.width;
  if (bounds.height !== battle.bounds.height) bounds.height = battle.bounds.height;
  if (bounds.top !== battle.bounds.top) bounds.top = battle.bounds.top;
  const bossX = round1(battle.boss.x);
  const bossY = round1(battle.boss.y);
  if (boss.x !== bossX) boss.x = bossX;
  if (boss.y !== bossY) boss.y = bossY;
  if (boss.pattern !== battle.boss.pattern) boss.pattern = battle.boss.pattern;

  for (const p of battle.players.values()) {
    let s = state.players.get(p.id);
    if (!s) state.players.set(p.id, (s = new BossPlayerState()));
    syncPlayer(s, p, battle.now);
  }
  // Every live player is in the state now: it holds more only when someone left (no copy of the keys otherwise).
  if (state.players.size > battle.players.size) for (const id of [...state.players.keys()]) if (!battle.players.has(id)) state.players.delete(id);

  for (const [id, pu] of battle.powerups) {
    if (!state.powerups.has(id)) state.powerups.set(id, new BossPowerupState({ id, type: pu.type, x: pu.x, y: pu.y }));
  }
  if (state.powerups.size > battle.powerups.size) for (const id of [...state.powerups.keys()]) if (!battle.powerups.has(id)) state.powerups.delete(id);

  for (const shot of battle.projectiles) {
    const key = String(shot.id);
    let s = state.projectiles.get(key);
    const x = round1(shot.x);
    const y = round1(shot.y);
    if (!s) state.projectiles.set(key, (s = new BossProjectileState({ x, y, vx: round1(shot.vx), vy: round1(shot.vy) })));
    if (s.x !== x) s.x = x;
    if (s.y !== y) s.y = y;
  }
  if (state.projectiles.size > battle.projectiles.length) {
    const live = new Set(battle.projectiles.map((shot) => String(shot.id)));
    for (const key of [...state.projectiles.keys()]) if (!live.has(key)) state.projectiles.delete(key);
  }
}
