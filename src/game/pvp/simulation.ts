// One PvP arena, simulated by the server: two seats, the ready check, battles and rematches,
// movement with a speed cap behind the centre wall, server-side bullets and hits, lives, forfeits
// and ammunition. Pure and deterministic given its RNG (which only names matches): no timers, no
// I/O. The room calls the actions for player intents and step(dtMs) on its fixed timestep, and
// turns the returned events into messages and database writes.
import { segmentHitsCircle, type Point } from "../geometry.js";
import { clampLag, seenPosition, type PastPositions } from "../lagCompensation.js";
import { fullGauge, refillGauge, shotTime, spendShot, type FireGauge } from "../fireRate.js";
import { defaultRng, randomHex, type Rng } from "../rng.js";
import {
  BULLET_LIFETIME_MS,
  BULLET_RADIUS,
  BULLET_SPEED,
  FIRE_BURST,
  FIRE_RATE_PER_SECOND,
  GUEST_MAX_BULLETS,
  MATCH_ID_LENGTH,
  MAX_PLAYERS,
  MAX_STEP_MS,
  MAX_SUBSTEP_MS,
  MIN_BULLETS_TO_READY,
  MUZZLE_OFFSET,
  PLAYER_MAX_SPEED,
  PLAYER_NUMBERS,
  PLAYER_RADIUS,
  PVP_BOUNDS,
  SPAWNS,
  START_LIVES,
  type PlayerNumber,
} from "./constants.js";
import { MOVE_BUDGET_CAP, resolveMove, type MoveOutcome } from "./movement.js";

/** The fire-rate rule (./fireRate.ts): FIRE_RATE_PER_SECOND sustained, FIRE_BURST banked. */
const FIRE = { ratePerSecond: FIRE_RATE_PER_SECOND, burst: FIRE_BURST };

export type PvpPhase = "waiting" | "ready_check" | "battle" | "finished";
export type EndReason = "knockout" | "forfeit" | "out_of_ammo";

export interface PvpPlayer extends Point, FireGauge {
  readonly id: string;
  readonly number: PlayerNumber;
  username: string;
  character: string;
  lives: number;
  ready: boolean;
  bullets: number;
  /** Bullets spent since the player took the seat (the room writes an account's back). */
  bulletsSpent: number;
  /** Shots fired and hits landed in the current (or last) battle. */
  shots: number;
  hits: number;
  /** Movement (px) the player may still spend (refills at top speed up to MOVE_BUDGET_CAP). */
  moveBudget: number;
  /** False while a dropped connection may still come back: the battle pauses meanwhile. */
  connected: boolean;
}

export interface PvpBullet extends Point {
  readonly id: number;
  readonly ownerId: string;
  readonly vx: number;
  readonly vy: number;
  /** Flight time so far; the bullet is gone at BULLET_LIFETIME_MS. */
  ageMs: number;
  /**
   * How far behind the server the shooter's view was when it fired (ms, within the rewind cap):
   * all along its flight the bullet is tested against the opponent this long ago, i.e. as the
   * shooter's screen shows it while the bullet flies (docs/netcode.md). 0 judges live.
   */
  readonly lagMs: number;
}

export interface PlayerResult {
  id: string;
  number: PlayerNumber;
  username: string;
  character: string;
  shots: number;
  hits: number;
  lives: number;
  bullets: number;
}

export interface BattleResult {
  matchId: string;
  reason: EndReason;
  /** Null for a draw (out of ammunition with equal lives). */
  winnerId: string | null;
  loserId: string | null;
  durationMs: number;
  players: PlayerResult[];
}

export type PvpEvent =
  | { type: "match_ready" }
  | { type: "battle_start"; matchId: string }
  | { type: "player_hit"; targetId: string; shooterId: string; lives: number; bulletId: number }
  | { type: "battle_end"; result: BattleResult };

export type ActionError =
  | "room_full"
  | "already_joined"
  | "not_in_room"
  | "battle_active"
  | "not_in_battle"
  | "paused"
  | "disconnected"
  | "no_bullets"
  | "fire_rate"
  | "no_direction"
  | "bad_position";
export type ActionResult<T> = ({ ok: true } & T) | { ok: false; error: ActionError };

export interface PlayerInit {
  username: string;
  character: string;
  bullets: number;
}

/** Bullets a player brings: an account its progress record's, a guest its claim capped. */
export function bulletsBroughtIn(who: { guest: true; claimed: number } | { guest: false; recorded: number }): number {
  return wholeCount(who.guest ? Math.min(who.claimed, GUEST_MAX_BULLETS) : who.recorded);
}

function wholeCount(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0;
}

export class PvpArena {
  /** Simulation time in ms, advanced by step(). */
  now = 0;
  phase: PvpPhase = "waiting";
  readonly players = new Map<string, PvpPlayer>();
  bullets: PvpBullet[] = [];
  /** The running battle's id, or the last battle's once finished. */
  matchId: string | null = null;
  lastResult: BattleResult | null = null;
  /** Where players were recently (the room's rewind); without it every shot is judged live. */
  past: PastPositions | undefined;
  private battleStartedAt = 0;
  private nextBulletId = 1;
  private readonly rng: Rng;

  constructor(options: { rng?: Rng } = {}) {
    this.rng = options.rng ?? defaultRng;
  }

  /** Seats a player with the lowest free number; the second seat opens the ready check. */
  join(id: string, init: PlayerInit): ActionResult<{ player: PvpPlayer; events: PvpEvent[] }> {
    if (this.players.has(id)) return { ok: false, error: "already_joined" };
    const number = PLAYER_NUMBERS.find((n) => !this.byNumber(n));
    if (number === undefined || this.players.size >= MAX_PLAYERS) return { ok: false, error: "room_full" };
    const spawn = SPAWNS[number];
    const player: PvpPlayer = {
      id,
      number,
      username: init.username,
      character: init.character,
      x: spawn.x,
      y: spawn.y,
      lives: START_LIVES,
      ready: false,
      bullets: wholeCount(init.bullets),
      bulletsSpent: 0,
      shots: 0,
      hits: 0,
      moveBudget: MOVE_BUDGET_CAP,
      ...fullGauge(FIRE),
      connected: true,
    };
    this.players.set(id, player);
    const events: PvpEvent[] = [];
    if (this.players.size === MAX_PLAYERS) {
      this.phase = "ready_check";
      events.push({ type: "match_ready" });
    }
    return { ok: true, player, events };
  }

  /** Takes a player out; during a battle that is a forfeit, and the opponent wins. */
  leave(id: string): PvpEvent[] {
    const player = this.players.get(id);
    if (!player) return [];
    const events: PvpEvent[] = [];
    if (this.phase === "battle") events.push(this.endBattle("forfeit", this.opponentOf(player) ?? null, player));
    this.players.delete(id);
    this.phase = "waiting";
    return events;
  }

  /** A dropped connection pauses a battle until it returns (or the room gives up and calls leave). */
  setConnected(id: string, connected: boolean): PvpEvent[] {
    const player = this.players.get(id);
    if (!player) return [];
    player.connected = connected;
    return connected ? this.startIfAllReady() : [];
  }

  /** Declares the player ready; when both are, the battle starts (also for a rematch). */
  ready(id: string): ActionResult<{ player: PvpPlayer; events: PvpEvent[] }> {
    const player = this.players.get(id);
    if (!player) return { ok: false, error: "not_in_room" };
    if (this.phase === "battle") return { ok: false, error: "battle_active" };
    if (player.bullets < MIN_BULLETS_TO_READY) return { ok: false, error: "no_bullets" };
    player.ready = true;
    return { ok: true, player, events: this.startIfAllReady() };
  }

  /** A move intent towards (x, y): speed cap, own half of the arena, opponent collision. */
  move(id: string, x: number, y: number): ActionResult<{ player: PvpPlayer; outcome: MoveOutcome }> {
    const player = this.players.get(id);
    if (!player) return { ok: false, error: "not_in_room" };
    if (!player.connected) return { ok: false, error: "disconnected" };
    if (!Number.isFinite(x) || !Number.isFinite(y)) return { ok: false, error: "bad_position" };
    const opponent = this.opponentOf(player);
    const outcome = resolveMove({ number: player.number, from: player, to: { x, y }, budget: player.moveBudget, opponent });
    player.moveBudget = Math.max(0, player.moveBudget - outcome.spent);
    player.x = outcome.x;
    player.y = outcome.y;
    return { ok: true, player, outcome };
  }

  /**
   * Fires one bullet from the player's server position along (dx, dy). `lagMs` is how far behind
   * the shooter's view was (the room derives it from the input's render-time stamp); it is clamped
   * to the rewind cap and never reaches back before the battle started.
   */
  shoot(id: string, dx: number, dy: number, lagMs = 0, ageMs = 0): ActionResult<{ player: PvpPlayer; bullet: PvpBullet }> {
    const player = this.players.get(id);
    if (!player) return { ok: false, error: "not_in_room" };
    if (this.phase !== "battle") return { ok: false, error: "not_in_battle" };
    if (this.paused()) return { ok: false, error: "paused" };
    const length = Math.hypot(dx, dy);
    if (!(length > 1e-9) || !Number.isFinite(length)) return { ok: false, error: "no_direction" };
    // Judged when the shot was fired (its input's stamp, ageMs before now), not when it arrived.
    const firedAt = shotTime(player, FIRE, this.now, ageMs);
    if (Number.isNaN(firedAt)) return { ok: false, error: "fire_rate" };
    if (player.bullets < 1) return { ok: false, error: "no_bullets" };
    spendShot(player, FIRE, this.now, firedAt);
    player.bullets -= 1;
    player.bulletsSpent += 1;
    player.shots += 1;
    const ux = dx / length;
    const uy = dy / length;
    const bullet: PvpBullet = {
      id: this.nextBulletId++,
      ownerId: id,
      x: player.x + ux * MUZZLE_OFFSET,
      y: player.y + uy * MUZZLE_OFFSET,
      vx: ux * BULLET_SPEED,
      vy: uy * BULLET_SPEED,
      ageMs: 0,
      lagMs: Math.min(clampLag(lagMs), this.now - this.battleStartedAt),
    };
    this.bullets.push(bullet);
    return { ok: true, player, bullet };
  }

  /** Advances the arena by dtMs (split into sub-steps; a stall beyond MAX_STEP_MS is dropped). */
  step(dtMs: number): PvpEvent[] {
    const events: PvpEvent[] = [];
    let remaining = Math.min(Math.max(0, Number.isFinite(dtMs) ? dtMs : 0), MAX_STEP_MS);
    while (remaining > 0) {
      const dt = Math.min(remaining, MAX_SUBSTEP_MS);
      remaining -= dt;
      this.substep(dt, events);
    }
    return events;
  }

  /** A battle waits while a player's connection is gone. */
  paused(): boolean {
    return this.phase === "battle" && [...this.players.values()].some((p) => !p.connected);
  }

  byNumber(number: PlayerNumber): PvpPlayer | undefined {
    for (const p of this.players.values()) if (p.number === number) return p;
    return undefined;
  }

  opponentOf(player: PvpPlayer): PvpPlayer | undefined {
    for (const p of this.players.values()) if (p !== player) return p;
    return undefined;
  }

  private startIfAllReady(): PvpEvent[] {
    const seated = [...this.players.values()];
    if (this.phase === "battle" || seated.length < MAX_PLAYERS || !seated.every((p) => p.ready && p.connected)) return [];
    this.phase = "battle";
    this.matchId = randomHex(this.rng, MATCH_ID_LENGTH);
    this.lastResult = null;
    this.battleStartedAt = this.now;
    this.bullets = [];
    for (const p of seated) {
      const spawn = SPAWNS[p.number];
      Object.assign(p, { x: spawn.x, y: spawn.y, lives: START_LIVES, ready: false, shots: 0, hits: 0, moveBudget: MOVE_BUDGET_CAP, ...fullGauge(FIRE) });
    }
    return [{ type: "battle_start", matchId: this.matchId }];
  }

  private endBattle(reason: EndReason, winner: PvpPlayer | null, loser: PvpPlayer | null): PvpEvent {
    this.phase = "finished";
    this.bullets = [];
    for (const p of this.players.values()) p.ready = false;
    const result: BattleResult = {
      matchId: this.matchId!,
      reason,
      winnerId: winner?.id ?? null,
      loserId: loser?.id ?? null,
      durationMs: this.now - this.battleStartedAt,
      players: [...this.players.values()]
        .sort((a, b) => a.number - b.number)
        .map((p) => ({ id: p.id, number: p.number, username: p.username, character: p.character, shots: p.shots, hits: p.hits, lives: p.lives, bullets: p.bullets })),
    };
    this.lastResult = result;
    return { type: "battle_end", result };
  }

  private substep(dtMs: number, events: PvpEvent[]): void {
    this.now += dtMs;
    const dt = dtMs / 1000;
    for (const p of this.players.values()) {
      p.moveBudget = Math.min(MOVE_BUDGET_CAP, p.moveBudget + PLAYER_MAX_SPEED * dt);
      refillGauge(p, FIRE, dtMs);
    }
    if (this.phase !== "battle" || this.paused()) return;
    this.moveBullets(dtMs, events);
    if (this.phase === "battle" && this.bullets.length === 0 && [...this.players.values()].every((p) => p.bullets === 0)) {
      events.push(this.endOutOfAmmo());
    }
  }

  /** Bullets fly over the wall; each one that touches the opponent's circle takes a life. */
  private moveBullets(dtMs: number, events: PvpEvent[]): void {
    const dt = dtMs / 1000;
    const reach = PLAYER_RADIUS + BULLET_RADIUS;
    const kept: PvpBullet[] = [];
    for (const b of this.bullets) {
      if (this.phase !== "battle") break;
      const x0 = b.x;
      const y0 = b.y;
      b.x += b.vx * dt;
      b.y += b.vy * dt;
      b.ageMs += dtMs;
      const owner = this.players.get(b.ownerId);
      const target = owner && this.opponentOf(owner);
      const seen = target && seenPosition(this.past, target.id, target, b.lagMs);
      if (owner && target && seen && segmentHitsCircle(x0, y0, b.x, b.y, seen.x, seen.y, reach)) {
        this.hit(owner, target, b, events);
        continue;
      }
      if (b.ageMs >= BULLET_LIFETIME_MS || !insideArena(b)) continue;
      kept.push(b);
    }
    if (this.phase === "battle") this.bullets = kept;
  }

  private hit(shooter: PvpPlayer, target: PvpPlayer, bullet: PvpBullet, events: PvpEvent[]): void {
    target.lives = Math.max(0, target.lives - 1);
    shooter.hits += 1;
    events.push({ type: "player_hit", targetId: target.id, shooterId: shooter.id, lives: target.lives, bulletId: bullet.id });
    if (target.lives === 0) events.push(this.endBattle("knockout", shooter, target));
  }

  /** Nobody can shoot any more: more lives wins, equal lives is a draw. */
  private endOutOfAmmo(): PvpEvent {
    const [a, b] = [...this.players.values()];
    if (!b || a.lives === b.lives) return this.endBattle("out_of_ammo", null, null);
    return a.lives > b.lives ? this.endBattle("out_of_ammo", a, b) : this.endBattle("out_of_ammo", b, a);
  }
}

function insideArena(p: Point): boolean {
  return p.x >= 0 && p.x <= PVP_BOUNDS.width && p.y >= 0 && p.y <= PVP_BOUNDS.height;
}

/** How a finished battle went for one of its players. */
export function outcomeOf(result: BattleResult, playerId: string): "win" | "loss" | "draw" {
  if (result.winnerId === playerId) return "win";
  if (result.loserId === playerId) return "loss";
  return "draw";
}
