// One boss battle, simulated by the server: the boss and its attacks, player moves and bullets,
// powerups, lives and damage. Pure and deterministic given its RNG: no timers, no I/O. The room
// calls move()/shoot() for player intents and step(dtMs) on its fixed timestep, and turns the
// returned events into messages and database writes.
import { segmentHitsCircle } from "../geometry.js";
import { clampLag, seenPosition, type PastPositions } from "../lagCompensation.js";
import { fullGauge, refillGauge, shotTime, spendShot, type FireGauge } from "../fireRate.js";
import { defaultRng, pick, type Rng } from "../rng.js";
import { createBossAi, stepBossAi, type BossAiState } from "./bossAi.js";
import {
  BOSS_ATTACK_INTERVAL_MS,
  BOSS_BOUNDS,
  BOSS_ENRAGED_ATTACK_INTERVAL_MS,
  BOSS_ENRAGE_HEALTH_RATIO,
  BOSS_MAX_HEALTH,
  BOSS_PROJECTILE_LIFETIME_MS,
  BOSS_PROJECTILE_RADIUS,
  BOSS_PROJECTILE_SPEED,
  BOSS_RADIUS,
  BULLET_LIFETIME_MS,
  BULLET_RADIUS,
  BULLET_SPEED,
  FIRE_BURST,
  FIRE_RATE_PER_SECOND,
  INVULNERABLE_MS,
  MAX_ACTIVE_POWERUPS,
  MAX_STEP_MS,
  MAX_SUBSTEP_MS,
  PLAYER_RADIUS,
  POWERUP_LIFETIME_MS,
  POWERUP_SPAWN_INTERVAL_MS,
  SHOT_DAMAGE,
  START_LIVES,
  type Bounds,
  type Point,
  type PowerupType,
} from "./constants.js";
import { maxSpeed, moveBudgetCap, resolveMove, type MoveOutcome } from "./movement.js";
import { applyPowerup, createPowerup, damageMultiplier, inPickupReach, speedMultiplier, type Powerup, type PowerupEffect, type PowerupHolder } from "./powerups.js";
import { allocateSpawn } from "./spawn.js";

/** The fire-rate rule (./fireRate.ts): FIRE_RATE_PER_SECOND sustained, FIRE_BURST banked. */
const FIRE = { ratePerSecond: FIRE_RATE_PER_SECOND, burst: FIRE_BURST };

export type PlayerStatus = "alive" | "dead";

export interface BattlePlayer extends Point, PowerupHolder, FireGauge {
  readonly id: string;
  username: string;
  character: string;
  status: PlayerStatus;
  /** Bullets brought from the account's progress record and spent in this battle (written back). */
  accountBulletsSpent: number;
  damageDealt: number;
  bulletsFired: number;
  bulletsHit: number;
  livesLost: number;
  powerupsCollected: PowerupType[];
  invulnerableUntil: number;
  /** Movement (px) the player may still spend (refills at its top speed up to MOVE_BURST_SECONDS). */
  moveBudget: number;
  /** False while a dropped connection may still come back: such a player is not a target. */
  connected: boolean;
  away: boolean;
}

export interface PlayerBullet extends Point {
  id: number;
  ownerId: string;
  vx: number;
  vy: number;
  damage: number;
  expiresAt: number;
  /** How far behind the shooter's view was (ms, within the rewind cap): the boss is judged where it saw it. */
  lagMs: number;
}

export interface BossProjectile extends Point {
  id: number;
  vx: number;
  vy: number;
  expiresAt: number;
}

export type BattleEvent =
  | { type: "boss_hit"; playerId: string; damage: number; bossHealth: number }
  | { type: "boss_defeated" }
  | { type: "player_damaged"; playerId: string; lives: number; source: "projectile" | "contact" }
  | { type: "player_died"; playerId: string }
  | { type: "powerup_spawned"; powerup: Powerup }
  | { type: "powerup_expired"; powerupId: string }
  | { type: "powerup_collected"; playerId: string; powerup: Powerup; effect: PowerupEffect };

export type ActionError = "not_in_battle" | "dead" | "battle_over" | "no_bullets" | "fire_rate" | "no_direction";
export type ActionResult<T> = ({ ok: true } & T) | { ok: false; error: ActionError };

/** Server-side switches (never reachable from clients): tests and special events use them. */
export interface BattleTuning {
  bossMoves: boolean;
  bossAttacks: boolean;
  powerupSpawns: boolean;
}

export interface PlayerInit {
  username: string;
  character: string;
  bullets: number;
}

export interface PlayerStats {
  id: string;
  username: string;
  character: string;
  damage_dealt: number;
  bullets_fired: number;
  bullets_hit: number;
  lives: number;
  lives_lost: number;
  powerups_collected: PowerupType[];
  status: PlayerStatus;
}

export interface BattleOptions {
  rng?: Rng;
  bounds?: Bounds;
  maxHealth?: number;
  tuning?: Partial<BattleTuning>;
}

/** The boss's id when a PastPositions is asked where it was. */
export const BOSS_TARGET_ID = "boss";

export class BossBattle {
  readonly bounds: Bounds;
  readonly maxHealth: number;
  health: number;
  /** Simulation time in ms, advanced by step(). */
  now = 0;
  defeated = false;
  readonly boss: BossAiState;
  readonly players = new Map<string, BattlePlayer>();
  readonly powerups = new Map<string, Powerup>();
  bullets: PlayerBullet[] = [];
  projectiles: BossProjectile[] = [];
  /** Where the boss was recently (the room's rewind); without it every shot is judged live. */
  past: PastPositions | undefined;
  readonly tuning: BattleTuning;
  private readonly rng: Rng;
  /** Scratch for move(): the other living players (reused, empty between moves). */
  private readonly others: BattlePlayer[] = [];
  private nextPowerupAt = POWERUP_SPAWN_INTERVAL_MS;
  private nextAttackAt = BOSS_ATTACK_INTERVAL_MS;
  private nextId = 1;

  constructor(options: BattleOptions = {}) {
    this.rng = options.rng ?? defaultRng;
    this.bounds = options.bounds ?? BOSS_BOUNDS;
    this.maxHealth = options.maxHealth ?? BOSS_MAX_HEALTH;
    this.health = this.maxHealth;
    this.boss = createBossAi();
    this.tuning = { bossMoves: true, bossAttacks: true, powerupSpawns: true, ...options.tuning };
  }

  /** Adds a player at a safe spawn. */
  addPlayer(id: string, init: PlayerInit): BattlePlayer {
    const spawn = allocateSpawn([...this.players.values()].filter(isAlive), this.rng, { bounds: this.bounds, boss: this.boss });
    const player: BattlePlayer = {
      id,
      username: init.username,
      character: init.character,
      x: spawn.x,
      y: spawn.y,
      lives: START_LIVES,
      status: "alive",
      bullets: init.bullets,
      bonusBullets: 0,
      accountBulletsSpent: 0,
      damageDealt: 0,
      bulletsFired: 0,
      bulletsHit: 0,
      livesLost: 0,
      powerupsCollected: [],
      damageBoostUntil: 0,
      speedBoostUntil: 0,
      invulnerableUntil: 0,
      ...fullGauge(FIRE),
      moveBudget: moveBudgetCap(),
      connected: true,
      away: false,
    };
    this.players.set(id, player);
    return player;
  }

  removePlayer(id: string): BattlePlayer | undefined {
    const player = this.players.get(id);
    this.players.delete(id);
    this.bullets = this.bullets.filter((b) => b.ownerId !== id);
    return player;
  }

  /** Rules 2–4 of boss_player_move, after the speed cap. */
  move(id: string, x: number, y: number): ActionResult<{ player: BattlePlayer; outcome: MoveOutcome }> {
    const check = this.actor(id);
    if (!check.ok) return check;
    const player = check.player;
    // The other living players, in room order, in an array reused from move to move.
    const others = this.others;
    others.length = 0;
    for (const p of this.players.values()) if (p !== player && isAlive(p)) others.push(p);
    const outcome = resolveMove({ from: player, to: { x, y }, budget: player.moveBudget, others, bounds: this.bounds });
    others.length = 0;
    player.moveBudget = Math.max(0, player.moveBudget - outcome.spent);
    player.x = outcome.x;
    player.y = outcome.y;
    return { ok: true, player, outcome };
  }

  /**
   * Fires one bullet from the player's server position along (dx, dy). `lagMs` (how far behind
   * the shooter's view was, clamped to the rewind cap) makes the bullet hit the boss where that
   * player saw it; the boss's own projectiles stay on server time.
   */
  shoot(id: string, dx: number, dy: number, lagMs = 0, ageMs = 0): ActionResult<{ player: BattlePlayer; bullet: PlayerBullet }> {
    const check = this.actor(id);
    if (!check.ok) return check;
    const player = check.player;
    const length = Math.hypot(dx, dy);
    if (!(length > 1e-9) || !Number.isFinite(length)) return { ok: false, error: "no_direction" };
    // Judged when the shot was fired (its input's stamp, ageMs before now), not when it arrived.
    const firedAt = shotTime(player, FIRE, this.now, ageMs);
    if (Number.isNaN(firedAt)) return { ok: false, error: "fire_rate" };
    if (player.bullets < 1) return { ok: false, error: "no_bullets" };
    spendShot(player, FIRE, this.now, firedAt);
    player.bullets -= 1;
    if (player.bonusBullets > 0) player.bonusBullets -= 1;
    else player.accountBulletsSpent += 1;
    player.bulletsFired += 1;
    const bullet: PlayerBullet = {
      id: this.nextId++,
      ownerId: id,
      x: player.x,
      y: player.y,
      vx: (dx / length) * BULLET_SPEED,
      vy: (dy / length) * BULLET_SPEED,
      damage: SHOT_DAMAGE * damageMultiplier(player, this.now),
      expiresAt: this.now + BULLET_LIFETIME_MS,
      lagMs: clampLag(lagMs),
    };
    this.bullets.push(bullet);
    return { ok: true, player, bullet };
  }

  /** Puts a powerup on the field (the periodic spawn, or a server-side placement). */
  placePowerup(type?: PowerupType, at?: Point): Powerup {
    const powerup = createPowerup(this.rng, this.now, this.powerups);
    if (type) powerup.type = type;
    if (at) {
      powerup.x = at.x;
      powerup.y = at.y;
    }
    powerup.expiresAt = this.now + POWERUP_LIFETIME_MS;
    this.powerups.set(powerup.id, powerup);
    return powerup;
  }

  /** Advances the battle by dtMs (split into sub-steps; a stall beyond MAX_STEP_MS is dropped). */
  step(dtMs: number): BattleEvent[] {
    const events: BattleEvent[] = [];
    let remaining = Math.min(Math.max(0, Number.isFinite(dtMs) ? dtMs : 0), MAX_STEP_MS);
    while (remaining > 0 && !this.defeated) {
      const dt = Math.min(remaining, MAX_SUBSTEP_MS);
      remaining -= dt;
      this.substep(dt, events);
    }
    return events;
  }

  aliveCount(): number {
    let n = 0;
    for (const p of this.players.values()) if (isAlive(p)) n++;
    return n;
  }

  playerStats(): PlayerStats[] {
    return [...this.players.values()].map((p) => ({
      id: p.id,
      username: p.username,
      character: p.character,
      damage_dealt: p.damageDealt,
      bullets_fired: p.bulletsFired,
      bullets_hit: p.bulletsHit,
      lives: p.lives,
      lives_lost: p.livesLost,
      powerups_collected: [...p.powerupsCollected],
      status: p.status,
    }));
  }

  private actor(id: string): ActionResult<{ player: BattlePlayer }> {
    if (this.defeated) return { ok: false, error: "battle_over" };
    const player = this.players.get(id);
    if (!player) return { ok: false, error: "not_in_battle" };
    if (player.status !== "alive") return { ok: false, error: "dead" };
    return { ok: true, player };
  }

  private substep(dtMs: number, events: BattleEvent[]): void {
    this.now += dtMs;
    const dt = dtMs / 1000;
    for (const p of this.players.values()) {
      const speed = speedMultiplier(p, this.now);
      p.moveBudget = Math.min(moveBudgetCap(speed), p.moveBudget + maxSpeed(speed) * dt);
      refillGauge(p, FIRE, dtMs);
    }
    const targets = [...this.players.values()].filter(isTarget);
    if (this.tuning.bossMoves) stepBossAi(this.boss, dtMs, targets, this.rng);
    if (this.tuning.bossAttacks) this.bossAttacks(targets, dt, events);
    this.moveBullets(dt, events);
    if (this.defeated) return;
    this.powerupTick(events);
  }

  private bossAttacks(targets: BattlePlayer[], dt: number, events: BattleEvent[]): void {
    if (this.now >= this.nextAttackAt) {
      const enraged = this.health <= this.maxHealth * BOSS_ENRAGE_HEALTH_RATIO;
      this.nextAttackAt = this.now + (enraged ? BOSS_ENRAGED_ATTACK_INTERVAL_MS : BOSS_ATTACK_INTERVAL_MS);
      if (targets.length > 0) {
        const target = pick(this.rng, targets);
        const dx = target.x - this.boss.x;
        const dy = target.y - this.boss.y;
        const d = Math.hypot(dx, dy) || 1;
        this.projectiles.push({
          id: this.nextId++,
          x: this.boss.x,
          y: this.boss.y,
          vx: (dx / d) * BOSS_PROJECTILE_SPEED,
          vy: (dy / d) * BOSS_PROJECTILE_SPEED,
          expiresAt: this.now + BOSS_PROJECTILE_LIFETIME_MS,
        });
      }
    }
    const kept: BossProjectile[] = [];
    for (const shot of this.projectiles) {
      shot.x += shot.vx * dt;
      shot.y += shot.vy * dt;
      if (shot.expiresAt <= this.now || !this.insideCanvas(shot)) continue;
      const victim = targets.find((p) => isTarget(p) && Math.hypot(p.x - shot.x, p.y - shot.y) <= PLAYER_RADIUS + BOSS_PROJECTILE_RADIUS);
      if (victim && this.hurt(victim, "projectile", events)) continue;
      kept.push(shot);
    }
    this.projectiles = kept;
    for (const p of targets) {
      if (isTarget(p) && Math.hypot(p.x - this.boss.x, p.y - this.boss.y) < PLAYER_RADIUS + BOSS_RADIUS) this.hurt(p, "contact", events);
    }
  }

  /** Takes one life unless the player is briefly invulnerable; returns whether it landed. */
  private hurt(player: BattlePlayer, source: "projectile" | "contact", events: BattleEvent[]): boolean {
    if (this.now < player.invulnerableUntil) return false;
    player.lives = Math.max(0, player.lives - 1);
    player.livesLost += 1;
    player.invulnerableUntil = this.now + INVULNERABLE_MS;
    events.push({ type: "player_damaged", playerId: player.id, lives: player.lives, source });
    if (player.lives === 0) {
      player.status = "dead";
      player.damageBoostUntil = 0;
      player.speedBoostUntil = 0;
      events.push({ type: "player_died", playerId: player.id });
    }
    return true;
  }

  private moveBullets(dt: number, events: BattleEvent[]): void {
    const kept: PlayerBullet[] = [];
    const reach = BOSS_RADIUS + BULLET_RADIUS;
    for (const b of this.bullets) {
      const x0 = b.x;
      const y0 = b.y;
      b.x += b.vx * dt;
      b.y += b.vy * dt;
      const boss = seenPosition(this.past, BOSS_TARGET_ID, this.boss, b.lagMs);
      if (!this.defeated && segmentHitsCircle(x0, y0, b.x, b.y, boss.x, boss.y, reach)) {
        this.hitBoss(b, events);
        continue;
      }
      if (b.expiresAt <= this.now || !this.insideCanvas(b)) continue;
      kept.push(b);
    }
    this.bullets = this.defeated ? [] : kept;
  }

  private hitBoss(bullet: PlayerBullet, events: BattleEvent[]): void {
    const dealt = Math.min(bullet.damage, this.health);
    this.health -= dealt;
    const owner = this.players.get(bullet.ownerId);
    if (owner) {
      owner.damageDealt += dealt;
      owner.bulletsHit += 1;
    }
    events.push({ type: "boss_hit", playerId: bullet.ownerId, damage: dealt, bossHealth: this.health });
    if (this.health <= 0) {
      this.defeated = true;
      this.projectiles = [];
      events.push({ type: "boss_defeated" });
    }
  }

  private powerupTick(events: BattleEvent[]): void {
    if (this.now >= this.nextPowerupAt) {
      this.nextPowerupAt = this.now + POWERUP_SPAWN_INTERVAL_MS;
      if (this.tuning.powerupSpawns && this.powerups.size < MAX_ACTIVE_POWERUPS) events.push({ type: "powerup_spawned", powerup: this.placePowerup() });
    }
    for (const powerup of [...this.powerups.values()]) {
      if (powerup.expiresAt <= this.now) {
        this.powerups.delete(powerup.id);
        events.push({ type: "powerup_expired", powerupId: powerup.id });
        continue;
      }
      const collector = [...this.players.values()].find((p) => isAlive(p) && inPickupReach(p, powerup));
      if (!collector) continue;
      this.powerups.delete(powerup.id);
      collector.powerupsCollected.push(powerup.type);
      events.push({ type: "powerup_collected", playerId: collector.id, powerup, effect: applyPowerup(collector, powerup.type, this.now) });
    }
  }

  private insideCanvas(p: Point): boolean {
    return p.x >= 0 && p.x <= this.bounds.width && p.y >= 0 && p.y <= this.bounds.height;
  }
}

function isAlive(p: BattlePlayer): boolean {
  return p.status === "alive";
}

/** Players the boss goes after and can hurt: alive and connected. */
function isTarget(p: BattlePlayer): boolean {
  return p.status === "alive" && p.connected;
}
