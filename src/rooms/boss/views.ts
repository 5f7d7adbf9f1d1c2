// The boss battle's outbound payloads built from the simulation (players, the full room state).
import { BOSS_RADIUS, BULLET_SPEED, PLAYER_RADIUS } from "../../game/boss/constants.js";
import type { ActionError, BattlePlayer, BossBattle, PlayerBullet } from "../../game/boss/simulation.js";
import { ErrorCodes } from "../../protocol/common.js";
import { BossErrorCodes, type BossOutbound, type BossPlayerView, type PlayerBattleStats, type RoomPlayersPayload, type RoomStatePayload } from "../../protocol/boss.js";
import type { BossLiveSummary } from "../../shared/roomCalls.js";

/** The `error` a refused shot gets: code and message. */
export const SHOT_ERRORS: Record<ActionError, [string, string]> = {
  not_in_battle: [ErrorCodes.notInRoom, "You are not in this battle"],
  dead: [BossErrorCodes.dead, "You have no lives left"],
  battle_over: [BossErrorCodes.battleOver, "The boss is already defeated"],
  no_bullets: [BossErrorCodes.noBullets, "You have no bullets left"],
  fire_rate: [BossErrorCodes.fireRate, "Firing too fast"],
  no_direction: [BossErrorCodes.noDirection, "A shot needs a direction"],
};

/** Live numbers for GET /api/boss/room/:room_id. */
export function liveSummary(battle: BossBattle, isGuest: (sid: string) => boolean): BossLiveSummary {
  return {
    boss_health: battle.health,
    max_health: battle.maxHealth,
    phase: battle.defeated ? "defeated" : "battle",
    player_count: battle.aliveCount(),
    players: playerViews(battle, isGuest),
  };
}

export function playerView(p: BattlePlayer, guest: boolean): BossPlayerView {
  return {
    sid: p.id,
    username: p.username,
    character: p.character,
    x: p.x,
    y: p.y,
    lives: p.lives,
    bullets: p.bullets,
    damage_dealt: p.damageDealt,
    bullets_fired: p.bulletsFired,
    bullets_hit: p.bulletsHit,
    powerups_collected: [...p.powerupsCollected],
    status: p.status,
    connected: p.connected,
    away: p.away,
    guest,
  };
}

export type IsGuest = (sid: string) => boolean;

export function playerViews(battle: BossBattle, isGuest: IsGuest): BossPlayerView[] {
  return [...battle.players.values()].map((p) => playerView(p, isGuest(p.id)));
}

export function roomPlayersPayload(roomId: string, battle: BossBattle, isGuest: IsGuest): RoomPlayersPayload {
  const players = playerViews(battle, isGuest);
  return { room_id: roomId, players, playerCount: players.length };
}

export function roomStatePayload(roomId: string, battle: BossBattle, isGuest: IsGuest, sid: string): RoomStatePayload {
  const players = playerViews(battle, isGuest);
  return {
    room_id: roomId,
    bossHealth: battle.health,
    maxBossHealth: battle.maxHealth,
    playerCount: players.length,
    players,
    powerups: [...battle.powerups.values()].map(({ id, type, x, y }) => ({ id, type, x, y })),
    self: players.find((p) => p.sid === sid)!,
    bounds: { ...battle.bounds },
    boss: { x: battle.boss.x, y: battle.boss.y, pattern: battle.boss.pattern, radius: BOSS_RADIUS },
    player_radius: PLAYER_RADIUS,
    phase: battle.defeated ? "defeated" : "battle",
  };
}

/** A player's shot as its peers see it: where the bullet starts, its unit direction and speed. */
export function bulletPayload(sid: string, character: string, bullet: PlayerBullet, weaponType: string | undefined): BossOutbound["boss_player_bullet"] {
  return {
    sid,
    bulletX: bullet.x,
    bulletY: bullet.y,
    dx: bullet.vx / BULLET_SPEED,
    dy: bullet.vy / BULLET_SPEED,
    speed: BULLET_SPEED,
    character,
    ...(weaponType ? { weapon_type: weaponType } : {}),
  };
}

export function defeatedPayload(battle: BossBattle, isGuest: IsGuest): BossOutbound["boss_defeated"] {
  return {
    message: "The boss has been defeated!",
    players: playerViews(battle, isGuest),
    all_player_stats: battle.playerStats().map(({ id, status: _status, ...stats }): PlayerBattleStats => ({ sid: id, ...stats })),
  };
}
