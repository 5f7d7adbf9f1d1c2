// The boss battle on a canvas: reads the synchronized state (interpolated between patches), predicts
// the own player's movement and reconciles it with the server's answers, simulates bullets locally
// from the server's shot messages, and turns keyboard and mouse into move/shoot intents.
import type { Room } from "@colyseus/sdk";
import type { BossPlayerView, BossRoomType, DefeatedPayload } from "../../../../src/protocol/boss.js";
import type { ErrorPayload } from "../../../../src/protocol/common.js";
import type { BossRoomState } from "../../../../src/protocol/bossState.js";
import {
  BOSS_BOUNDS,
  BOSS_RADIUS,
  BULLET_LIFETIME_MS,
  BULLET_SPEED,
  FIRE_RATE_PER_SECOND,
  PLAYER_MAX_SPEED,
  PLAYER_RADIUS,
} from "../../../../src/game/boss/constants.js";
import { GameInput } from "../input.js";
import { TouchControls } from "../touch.js";
import { SnapshotBuffer, type Point } from "../render/interpolation.js";
import { INTERPOLATION_MS, ShooterControl } from "../render/shooterControl.js";
import { Stage } from "../render/stage.js";
import { bulletAt, CHARACTER_COLORS, drawDot, type FlyingBullet } from "../render/sprites.js";
import { plural, youName } from "../dom.js";
import { drawArena, drawBoss, drawPlayer, drawPowerup, type PlayerDrawing } from "./draw.js";

/** Below the server's cap (420 px/s), so banked movement is never refused. */
const MOVE_SPEED = PLAYER_MAX_SPEED * 0.95;
const SHOT_INTERVAL_MS = 1000 / FIRE_RATE_PER_SECOND + 5;

export interface BossHud {
  health(health: number, max: number): void;
  self(p: { lives: number; bullets: number; status: string; damage_boost: boolean; speed_boost: boolean }): void;
  players(list: Array<{ sid: string; username: string; lives: number; status: string; damage: number; self: boolean }>): void;
  chat(from: string | null, text: string): void;
  notice(text: string): void;
  defeated(payload: DefeatedPayload, selfSid: string): void;
}

type PlayerSnap = Point & PlayerDrawing;
interface BossSnap extends Point {
  pattern: string;
}

export type BossRoom = Room<BossRoomType>;

export class BossGame {
  private readonly unbind: Array<() => void> = [];
  private readonly stage: Stage;
  private readonly input: GameInput;
  private readonly touch: TouchControls;
  private readonly players = new SnapshotBuffer<PlayerSnap>(INTERPOLATION_MS);
  private readonly boss = new SnapshotBuffer<BossSnap>(INTERPOLATION_MS);
  private projectiles: { t: number; list: Array<{ x: number; y: number; vx: number; vy: number }> } = { t: 0, list: [] };
  private bullets: FlyingBullet[] = [];
  private readonly flashes = new Map<string, number>();
  private bossFlashUntil = 0;

  private readonly control: ShooterControl;
  private lastShotAt = 0;
  private over = false;

  constructor(
    readonly room: BossRoom,
    canvas: HTMLCanvasElement,
    private readonly hud: BossHud,
  ) {
    this.stage = new Stage(canvas, BOSS_BOUNDS.width / BOSS_BOUNDS.height);
    this.stage.view = { x: 0, y: 0, width: BOSS_BOUNDS.width, height: BOSS_BOUNDS.height };
    this.input = new GameInput(canvas, (x, y) => this.stage.toWorld(x, y));
    this.touch = new TouchControls(canvas.parentElement ?? canvas, canvas);
    this.control = new ShooterControl(room, (p) => this.clamp(p), () => this.speed());
    this.listen();
    this.stage.start((now) => this.frame(now));
  }

  get selfSid(): string {
    return this.room.sessionId;
  }

  sendChat(content: string): void {
    this.room.send("boss_chat_send", { content });
    this.hud.chat(youName(this.selfView()?.username ?? "you"), content);
  }

  dispose(): void {
    this.stage.stop();
    this.input.dispose();
    this.touch.dispose();
    this.control.dispose();
    for (const off of this.unbind.splice(0)) off();
  }

  // ----------------------------------------------------------------------------------------------

  private listen(): void {
    // Handlers exist right after the join resolves, so nothing the room sends on join is lost.
    const on: BossRoom["onMessage"] = ((type: string, handler: (payload: never) => void) => {
      const off = (this.room as Room).onMessage(type, handler);
      this.unbind.push(off);
      return off;
    }) as unknown as BossRoom["onMessage"];
    on("boss_room_state", (s) => {
      this.hud.health(s.bossHealth, s.maxBossHealth);
      this.hud.notice(s.phase === "defeated" ? "The boss is already defeated." : `Joined room ${s.room_id}. ${plural(s.playerCount, "player", "players")} in the battle.`);
    });
    on("boss_self_position", () => {}); // the own position comes from the synchronized state (predicted)
    on("boss_player_bullet", (b) => this.addBullet(b.bulletX, b.bulletY, b.dx, b.dy, b.speed, CHARACTER_COLORS[b.character] ?? "#eef2fa"));
    on("boss_health_update", (u) => {
      this.bossFlashUntil = performance.now() + 120;
      this.hud.health(u.bossHealth, u.maxBossHealth);
    });
    on("boss_player_damaged", (d) => {
      this.flashes.set(d.player.sid, performance.now() + 250);
      if (d.player.sid === this.selfSid) this.hud.notice(`Hit by the boss's ${d.source === "contact" ? "body" : "projectile"}! ${plural(d.player.lives, "life", "lives")} left.`);
    });
    on("boss_player_died", (d) => {
      this.hud.notice(d.player.sid === this.selfSid ? "You were defeated. You can keep watching the battle." : d.message);
      this.hud.chat(null, d.message);
    });
    on("boss_player_joined", (j) => this.hud.chat(null, `${j.player.username} joined the battle.`));
    on("boss_player_left", (l) => this.hud.chat(null, `${l.player.username} ${l.reason === "left" ? "left" : "lost the connection"}.`));
    on("boss_player_away", (a) => this.hud.chat(null, a.message));
    on("boss_player_returned", (a) => this.hud.chat(null, a.message));
    on("boss_powerup_spawned", () => {});
    on("boss_powerup_expired", () => {});
    on("boss_powerup_collected", (p) => {
      const who = p.collector_sid === this.selfSid ? "You" : p.username;
      this.hud.chat(null, `${who} picked up ${p.type}.`);
    });
    on("boss_player_position", () => {}); // positions come from the synchronized state
    on("boss_room_players", () => {});
    on("boss_chat_message", (m) => this.hud.chat(m.sid ? m.username : null, m.content));
    on("boss_defeated", (d) => {
      this.over = true;
      this.hud.defeated(d, this.selfSid);
    });
    on("error", (e) => this.onServerError(e));
    this.room.onStateChange((state) => this.onPatch(state));
    this.room.onDrop(() => this.hud.notice("Connection lost: reconnecting… (your seat is kept for 20 s)"));
    this.room.onReconnect(() => this.hud.notice("Reconnected."));
    // A hidden tab is "away" for the others; the server keeps the seat either way.
    const visibility = () => this.room.send(document.hidden ? "boss_player_away" : "boss_player_returned", {});
    document.addEventListener("visibilitychange", visibility);
    this.unbind.push(() => document.removeEventListener("visibilitychange", visibility));
  }

  private onServerError(e: ErrorPayload): void {
    // A shot the fire rate refused, or one still held as the boss fell, is routine; everything else is worth showing.
    if (e.code === "fire_rate" || e.code === "battle_over") return;
    this.hud.notice(e.message);
  }

  private onPatch(state: BossRoomState): void {
    const now = performance.now();
    const players = new Map<string, PlayerSnap>();
    const list: Parameters<BossHud["players"]>[0] = [];
    state.players.forEach((p, sid) => {
      players.set(sid, {
        x: p.x,
        y: p.y,
        username: p.username,
        character: p.character,
        lives: p.lives,
        status: p.status,
        away: p.away,
        connected: p.connected,
        damage_boost: p.damage_boost,
        speed_boost: p.speed_boost,
      });
      list.push({ sid, username: p.username, lives: p.lives, status: p.status, damage: p.damage_dealt, self: sid === this.selfSid });
      if (sid === this.selfSid) this.hud.self(p);
    });
    this.players.push(now, players);
    this.boss.push(now, new Map([["boss", { x: state.boss.x, y: state.boss.y, pattern: state.boss.pattern }]]));
    const shots: typeof this.projectiles.list = [];
    state.projectiles.forEach((s) => shots.push({ x: s.x, y: s.y, vx: s.vx, vy: s.vy }));
    this.projectiles = { t: now, list: shots };
    this.hud.health(state.boss_health, state.max_health);
    this.hud.players(list);
    const self = state.players.get(this.selfSid);
    if (self) this.control.bind(self);
  }

  private selfView(): BossPlayerView | undefined {
    return this.room.state?.players?.get(this.selfSid) as unknown as BossPlayerView | undefined;
  }

  private clamp(p: Point): Point {
    const r = PLAYER_RADIUS;
    const b = BOSS_BOUNDS;
    return { x: Math.min(b.width - r, Math.max(r, p.x)), y: Math.min(b.height - r, Math.max(b.top + r, p.y)) };
  }

  private addBullet(x: number, y: number, dx: number, dy: number, speed: number, color: string): void {
    this.bullets.push({ x0: x, y0: y, dx, dy, speed, born: performance.now(), lifeMs: BULLET_LIFETIME_MS, color });
  }

  private frame(now: number): void {
    const self = this.selfView();
    const alive = !!self && self.status === "alive" && !this.over;
    if (alive && this.control.position) {
      this.shoot(now);
      this.control.frame(now, this.input.direction() ?? this.touch.direction);
    }
    this.draw(now);
  }

  /** The own top speed now (the speed powerup raises it by half). */
  private speed(): number {
    const self = this.selfView() as (BossPlayerView & { speed_boost?: boolean }) | undefined;
    return MOVE_SPEED * (self?.speed_boost ? 1.5 : 1);
  }

  /** Mouse button held: at the pointer. Space: at the pointer, or at the boss when the pointer is away. A finger on the right: see touch.ts. */
  private shoot(now: number): void {
    const firing = this.input.pointerDown || this.input.down("Space") || this.touch.firing;
    if (!firing || now - this.lastShotAt < SHOT_INTERVAL_MS) return;
    const me = this.control.position;
    const target = me && (this.touchTarget(me) ?? this.input.aim ?? this.leadTarget(now, me));
    if (!me || !target) return;
    const dx = target.x - me.x;
    const dy = target.y - me.y;
    const len = Math.hypot(dx, dy);
    if (len < 1) return;
    this.lastShotAt = now;
    this.control.fire(dx / len, dy / len);
    this.addBullet(me.x, me.y, dx / len, dy / len, BULLET_SPEED, "#ffd479");
  }

  /** A finger's target: the point under it on the arena, or along the right stick; null: none (auto-aim). */
  private touchTarget(me: Point): Point | null {
    const point = this.touch.aimPoint;
    if (point) return this.stage.toWorld(point.x, point.y);
    const dir = this.touch.aimDirection;
    return dir && { x: me.x + dir.x * 100, y: me.y + dir.y * 100 };
  }

  /** Where to aim at the boss so the bullet meets it: its position plus its velocity × flight time. */
  private leadTarget(now: number, me: Point): Point | null {
    const a = this.boss.sample(now - 50).get("boss");
    const b = this.boss.sample(now).get("boss");
    if (!b) return null;
    const vx = a ? (b.x - a.x) / 0.05 : 0;
    const vy = a ? (b.y - a.y) / 0.05 : 0;
    // The drawn boss is `delayMs` behind the server; the bullet flies from the server's position.
    const flight = Math.hypot(b.x - me.x, b.y - me.y) / BULLET_SPEED + this.boss.delayMs / 1000;
    return { x: b.x + vx * flight, y: b.y + vy * flight };
  }

  private draw(now: number): void {
    const { ctx } = this.stage;
    this.stage.beginFrame("#0b1019");
    drawArena(ctx, BOSS_BOUNDS);
    const state = this.room.state;
    if (!state?.players) return;

    state.powerups?.forEach((p) => drawPowerup(ctx, p.x, p.y, p.type, now));

    const font = this.stage.fontSize(16);
    const boss = this.boss.sample(now).get("boss");
    if (boss) drawBoss(ctx, boss.x, boss.y, BOSS_RADIUS, boss.pattern, state.boss_health, state.max_health, now < this.bossFlashUntil, font * 1.1);

    // Boss projectiles: extrapolated from the newest patch along their velocity.
    const age = (now - this.projectiles.t) / 1000;
    for (const s of this.projectiles.list) drawDot(ctx, s.x + s.vx * age, s.y + s.vy * age, 14, "#ff5d7a", true);

    // Bullets: straight lines from where and when they were fired; gone at the boss or after their lifetime.
    this.bullets = this.bullets.filter((b) => {
      if (now - b.born > b.lifeMs) return false;
      const p = bulletAt(b, now);
      if (boss && Math.hypot(p.x - boss.x, p.y - boss.y) < BOSS_RADIUS) return false;
      drawDot(ctx, p.x, p.y, 6, b.color, true);
      return true;
    });

    for (const [sid, p] of this.players.sample(now)) {
      if (sid === this.selfSid) continue;
      drawPlayer(ctx, p, PLAYER_RADIUS, false, (this.flashes.get(sid) ?? 0) > now, font);
    }
    const self = this.players.latest().get(this.selfSid);
    const me = this.control.position;
    if (self && me) drawPlayer(ctx, { ...self, x: me.x, y: me.y }, PLAYER_RADIUS, true, (this.flashes.get(this.selfSid) ?? 0) > now, font);

    const finger = this.touch.aimPoint;
    const aim = finger ? this.stage.toWorld(finger.x, finger.y) : this.input.aim;
    if (aim && self?.status === "alive") {
      ctx.strokeStyle = "#ffd479";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(aim.x, aim.y, finger ? 22 : 10, 0, Math.PI * 2);
      ctx.stroke();
    }
  }
}
