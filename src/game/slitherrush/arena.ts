// One SlitherRush arena, simulated by the server: snakes steered by their latest input, bullets
// flown in a straight line and tested against heads through a grid, kills, deaths and respawns.
// Pure and deterministic given its RNG: no timers, no I/O. The room calls setInput() for intents
// and step() once per fixed tick (TICK_RATE), and turns the returned events into messages.
import { clamp, type Point } from "../geometry.js";
import { defaultRng, randomInt, type Rng } from "../rng.js";
import {
  ARENA_HEIGHT,
  ARENA_WIDTH,
  BULLET_LIFETIME_TICKS,
  BULLET_SPEED,
  COLORS,
  DEATH_SCORE,
  DEATH_SHRINK,
  FIRE_COOLDOWN_TICKS,
  HEAD_RADIUS,
  HIT_RADIUS,
  HIT_RADIUS_SQ,
  KILL_GROWTH,
  KILL_SCORE,
  MAX_BULLETS,
  MAX_HP,
  MAX_LENGTH,
  MAX_PLAYERS,
  MIN_LENGTH,
  MUZZLE_OFFSET,
  PLAYER_SPEED,
  SPAWN_PROTECT_TICKS,
  START_LENGTH,
  TICK_SECONDS,
} from "./constants.js";
import { HeadGrid } from "./headGrid.js";
import { normaliseDirection, type Heading } from "./input.js";
import { compareRank, topPlayers } from "./leaderboard.js";
import { angleOf, unitOfAngle } from "./quantise.js";
import { buildBody, findSpawn, type ArenaSize } from "./spawn.js";

export type SnakeStatus = "alive" | "protected";

export interface Snake {
  readonly id: string;
  /** 0..MAX_PLAYERS−1, the snake's short id on the wire; reused after the snake leaves. */
  readonly slot: number;
  /** Arena-wide join counter: the final tie-break of the ranking. */
  readonly joinOrder: number;
  readonly username: string;
  /** Index into COLORS. */
  readonly color: number;
  /** Unit heading in use. */
  dirX: number;
  dirY: number;
  /** body[0] is the head; one point per tick, trimmed or padded (tail copies) to `length`. */
  body: Point[];
  length: number;
  hp: number;
  score: number;
  kills: number;
  deaths: number;
  /** Highest score and length reached in this arena (what accounts keep as bests). */
  bestScore: number;
  bestLength: number;
  /** Spawns so far (1 after joining): a new value means a fresh body somewhere else. */
  epoch: number;
  /** Not hittable up to and including this tick. */
  protectedUntil: number;
  lastFireTick: number;
  readonly joinedTick: number;
  /** Latest input, applied by the next step. */
  pendingHeading: Heading | null;
  shooting: boolean;
}

export interface Bullet {
  /** 16-bit id, unique among bullets in flight. */
  readonly id: number;
  readonly ownerId: string;
  readonly ownerSlot: number;
  /** 16-bit direction (see quantise.ts); vx, vy follow from it. */
  readonly angle: number;
  x: number;
  y: number;
  readonly vx: number;
  readonly vy: number;
  /** Ticks the bullet still flies after the current one. */
  ticksLeft: number;
}

export interface DeathEvent {
  playerId: string;
  killerId: string | null;
  reason: "shot";
}

export interface HitEvent {
  bulletId: number;
  ownerId: string;
  victimId: string;
  hpLeft: number;
}

export interface TickEvents {
  tick: number;
  hits: HitEvent[];
  deaths: DeathEvent[];
  /** Bullets fired this tick (ids). */
  fired: number[];
}

export interface PlayerInput {
  direction?: { x: number; y: number };
  shoot?: boolean;
}

export interface JoinInit {
  username: string;
  /** Initial heading (normalised; default +x). */
  direction?: { x: number; y: number };
}

export interface LeaderboardRow {
  id: string;
  username: string;
  score: number;
  kills: number;
  length: number;
  status: SnakeStatus;
}

export interface ArenaOptions {
  rng?: Rng;
  size?: ArenaSize;
}

/** Grid cell edge: a bullet's path this tick (21 px) plus the hit radius spans at most 2×2 cells. */
const GRID_CELL = 64;
const MOVE_PER_TICK = PLAYER_SPEED * TICK_SECONDS;

export class SlitherArena {
  readonly size: ArenaSize;
  /** The last completed tick (0 before the first step). */
  tick = 0;
  readonly players = new Map<string, Snake>();
  readonly slots: (Snake | undefined)[] = new Array(MAX_PLAYERS).fill(undefined);
  bullets: Bullet[] = [];
  private readonly rng: Rng;
  private readonly grid: HeadGrid;
  private readonly candidates = new Int32Array(MAX_PLAYERS);
  private nextBulletId = 0;
  private joinCounter = 0;

  constructor(options: ArenaOptions = {}) {
    this.rng = options.rng ?? defaultRng;
    this.size = options.size ?? { width: ARENA_WIDTH, height: ARENA_HEIGHT };
    this.grid = new HeadGrid(this.size.width, this.size.height, GRID_CELL, MAX_PLAYERS);
  }

  get playerCount(): number {
    return this.players.size;
  }

  get full(): boolean {
    return this.players.size >= MAX_PLAYERS;
  }

  /** Adds a snake at a clear spawn; undefined when the arena is full or the id is taken. */
  addPlayer(id: string, init: JoinInit): Snake | undefined {
    if (this.players.has(id)) return undefined;
    const slot = this.slots.indexOf(undefined);
    if (slot === -1) return undefined;
    const heading = normaliseDirection(init.direction?.x ?? 1, init.direction?.y ?? 0, { x: 1, y: 0 });
    const snake: Snake = {
      id,
      slot,
      joinOrder: this.joinCounter++,
      username: init.username,
      color: this.pickColor(),
      dirX: heading.x,
      dirY: heading.y,
      body: [],
      length: START_LENGTH,
      hp: MAX_HP,
      score: 0,
      kills: 0,
      deaths: 0,
      bestScore: 0,
      bestLength: START_LENGTH,
      epoch: 0,
      protectedUntil: 0,
      lastFireTick: -Infinity,
      joinedTick: this.tick,
      pendingHeading: null,
      shooting: false,
    };
    this.spawn(snake);
    this.players.set(id, snake);
    this.slots[slot] = snake;
    return snake;
  }

  removePlayer(id: string): Snake | undefined {
    const snake = this.players.get(id);
    if (!snake) return undefined;
    this.players.delete(id);
    this.slots[snake.slot] = undefined;
    return snake;
  }

  /**
   * Records a snake's latest intent; the next step applies it (later inputs before that step
   * replace it). A missing field leaves that part of the intent as it was; a zero direction keeps
   * the heading. Returns false for an unknown player.
   */
  setInput(id: string, input: PlayerInput): boolean {
    const snake = this.players.get(id);
    if (!snake) return false;
    if (input.direction) {
      const current = { x: snake.dirX, y: snake.dirY };
      const next = normaliseDirection(input.direction.x, input.direction.y, current);
      snake.pendingHeading = next === current ? null : next;
    }
    if (input.shoot !== undefined) snake.shooting = input.shoot;
    return true;
  }

  isProtected(snake: Snake): boolean {
    return this.tick <= snake.protectedUntil;
  }

  statusOf(snake: Snake): SnakeStatus {
    return this.isProtected(snake) ? "protected" : "alive";
  }

  /** Advances the arena by one tick (1/TICK_RATE s). */
  step(): TickEvents {
    this.tick++;
    const events: TickEvents = { tick: this.tick, hits: [], deaths: [], fired: [] };
    for (const snake of this.players.values()) this.moveSnake(snake, events);
    this.grid.clear();
    for (const snake of this.players.values()) this.grid.insert(snake.slot, snake.body[0].x, snake.body[0].y);
    this.stepBullets(events);
    return events;
  }

  /** The top LEADERBOARD_SIZE rows. */
  leaderboard(): LeaderboardRow[] {
    return topPlayers(this.players.values()).map((s) => this.rowOf(s));
  }

  /** 1-based rank of every player, by the leaderboard order. */
  ranks(): Map<string, number> {
    const order = [...this.players.values()].sort(compareRank);
    return new Map(order.map((s, i) => [s.id, i + 1]));
  }

  rowOf(s: Snake): LeaderboardRow {
    return { id: s.id, username: s.username, score: s.score, kills: s.kills, length: s.length, status: this.statusOf(s) };
  }

  private pickColor(): number {
    const used = new Set([...this.players.values()].map((s) => s.color));
    for (let i = 0; i < COLORS.length; i++) if (!used.has(i)) return i;
    return randomInt(this.rng, 0, COLORS.length - 1);
  }

  /** A clear spawn, full hp, protection and a fresh body of the snake's length. */
  private spawn(snake: Snake): void {
    const heads: Point[] = [];
    for (const other of this.players.values()) if (other !== snake) heads.push(other.body[0]);
    const at = findSpawn(heads, this.rng, this.size);
    snake.body = buildBody(at, snake.dirX, snake.dirY, snake.length, this.size);
    snake.hp = MAX_HP;
    snake.protectedUntil = this.tick + SPAWN_PROTECT_TICKS;
    snake.epoch++;
  }

  private moveSnake(snake: Snake, events: TickEvents): void {
    if (snake.pendingHeading) {
      snake.dirX = snake.pendingHeading.x;
      snake.dirY = snake.pendingHeading.y;
      snake.pendingHeading = null;
    }
    const head = snake.body[0];
    const x = clamp(head.x + snake.dirX * MOVE_PER_TICK, HEAD_RADIUS, this.size.width - HEAD_RADIUS);
    const y = clamp(head.y + snake.dirY * MOVE_PER_TICK, HEAD_RADIUS, this.size.height - HEAD_RADIUS);
    const body = snake.body;
    const target = clamp(Math.round(snake.length), MIN_LENGTH, MAX_LENGTH);
    if (body.length >= target) {
      // Reuse the tail point as the new head: no allocation per tick.
      const point = body.pop()!;
      point.x = x;
      point.y = y;
      body.unshift(point);
      if (body.length > target) body.length = target;
    } else {
      body.unshift({ x, y });
      const tail = body[body.length - 1];
      while (body.length < target) body.push({ x: tail.x, y: tail.y });
    }
    if (snake.shooting && this.tick - snake.lastFireTick >= FIRE_COOLDOWN_TICKS && this.bullets.length < MAX_BULLETS) {
      snake.lastFireTick = this.tick;
      const angle = angleOf(snake.dirX, snake.dirY);
      const dir = unitOfAngle(angle);
      const id = this.nextBulletId;
      this.nextBulletId = (this.nextBulletId + 1) & 0xffff;
      this.bullets.push({
        id,
        ownerId: snake.id,
        ownerSlot: snake.slot,
        angle,
        x: x + dir.x * MUZZLE_OFFSET,
        y: y + dir.y * MUZZLE_OFFSET,
        vx: dir.x * BULLET_SPEED,
        vy: dir.y * BULLET_SPEED,
        ticksLeft: BULLET_LIFETIME_TICKS,
      });
      events.fired.push(id);
    }
  }

  private stepBullets(events: TickEvents): void {
    const { width, height } = this.size;
    let kept = 0;
    for (let i = 0; i < this.bullets.length; i++) {
      const b = this.bullets[i];
      const x0 = b.x;
      const y0 = b.y;
      b.x += b.vx * TICK_SECONDS;
      b.y += b.vy * TICK_SECONDS;
      b.ticksLeft--;
      const victim = this.firstHeadOnPath(b, x0, y0);
      if (victim) {
        this.hit(b, victim, events);
        continue;
      }
      if (b.ticksLeft <= 0 || b.x < 0 || b.x > width || b.y < 0 || b.y > height) continue;
      this.bullets[kept++] = b;
    }
    this.bullets.length = kept;
  }

  /** The hittable head the bullet's path this tick reaches first (swept, so no tunnelling). */
  private firstHeadOnPath(b: Bullet, x0: number, y0: number): Snake | undefined {
    const n = this.grid.query(
      Math.min(x0, b.x) - HIT_RADIUS,
      Math.min(y0, b.y) - HIT_RADIUS,
      Math.max(x0, b.x) + HIT_RADIUS,
      Math.max(y0, b.y) + HIT_RADIUS,
      this.candidates,
    );
    const dx = b.x - x0;
    const dy = b.y - y0;
    const len2 = dx * dx + dy * dy;
    let best: Snake | undefined;
    let bestT = Infinity;
    for (let k = 0; k < n; k++) {
      const target = this.slots[this.candidates[k]];
      if (!target || target.id === b.ownerId || this.isProtected(target)) continue;
      const h = target.body[0];
      const t = len2 === 0 ? 0 : clamp(((h.x - x0) * dx + (h.y - y0) * dy) / len2, 0, 1);
      const cx = x0 + t * dx - h.x;
      const cy = y0 + t * dy - h.y;
      if (cx * cx + cy * cy > HIT_RADIUS_SQ) continue;
      if (t < bestT || (t === bestT && best && target.joinOrder < best.joinOrder)) {
        best = target;
        bestT = t;
      }
    }
    return best;
  }

  private hit(b: Bullet, victim: Snake, events: TickEvents): void {
    victim.hp--;
    events.hits.push({ bulletId: b.id, ownerId: b.ownerId, victimId: victim.id, hpLeft: Math.max(0, victim.hp) });
    if (victim.hp > 0) return;
    const owner = this.players.get(b.ownerId);
    victim.deaths++;
    victim.score = Math.max(0, victim.score - DEATH_SCORE);
    victim.length = Math.max(MIN_LENGTH, Math.trunc(victim.length) - DEATH_SHRINK);
    if (owner && owner !== victim) {
      owner.kills++;
      owner.score += KILL_SCORE;
      owner.length = Math.min(MAX_LENGTH, Math.trunc(owner.length) + KILL_GROWTH);
      owner.bestScore = Math.max(owner.bestScore, owner.score);
      owner.bestLength = Math.max(owner.bestLength, owner.length);
    }
    events.deaths.push({ playerId: victim.id, killerId: owner && owner !== victim ? owner.id : null, reason: "shot" });
    this.spawn(victim);
  }
}
