// The PvP duel on a canvas: two players, each in their half of an 800 × 600 arena split by a wall.
// The own player is predicted by the SDK (render/shooterControl.ts: moves and shots on the input
// channel, clamped to its half as the server does); the opponent is interpolated between state
// patches at the delay the shots declare, so the server judges them against what was drawn;
// bullets come from the synchronized state and are extrapolated along their velocity. Shots only
// count during a battle; the server decides hits.
import type { Room } from "@colyseus/sdk";
import type { PvpBattleEndPayload, PvpRoomType } from "../../../../src/protocol/pvp.js";
import type { PvpRoomState } from "../../../../src/protocol/pvpState.js";
import {
  BULLET_RADIUS,
  FIRE_RATE_PER_SECOND,
  PLAYER_MAX_SPEED,
  PLAYER_RADIUS,
  PVP_BOUNDS,
  WALL_LEFT,
  WALL_RIGHT,
  type PlayerNumber,
} from "../../../../src/game/pvp/constants.js";
import { GameInput } from "../input.js";
import { TouchControls } from "../touch.js";
import { SnapshotBuffer, type Point } from "../render/interpolation.js";
import { INTERPOLATION_MS, ShooterControl } from "../render/shooterControl.js";
import { Stage } from "../render/stage.js";
import { CHARACTER_COLORS, drawDot, drawFigure, drawName } from "../render/sprites.js";
import { plural, youName } from "../dom.js";

export type PvpRoom = Room<PvpRoomType>;
export type PvpPhase = "waiting" | "ready_check" | "battle" | "finished";

const MOVE_SPEED = PLAYER_MAX_SPEED * 0.95;
const SHOT_INTERVAL_MS = 1000 / FIRE_RATE_PER_SECOND + 5;

export interface PvpSide {
  username: string;
  lives: number;
  bullets: number;
  ready: boolean;
  connected: boolean;
  away: boolean;
}

export interface PvpHud {
  phase(phase: PvpPhase, self: PvpSide | null, opponent: PvpSide | null): void;
  chat(from: string | null, text: string): void;
  notice(text: string): void;
  ended(result: PvpBattleEndPayload, selfSid: string): void;
  battleStarted(): void;
  /** The server asks this client to queue again (its opponent left and someone waits elsewhere). */
  requeue(): void;
}

interface Figure extends Point {
  username: string;
  character: string;
  lives: number;
  connected: boolean;
  away: boolean;
}

export class PvpGame {
  private readonly unbind: Array<() => void> = [];
  private readonly stage: Stage;
  private readonly input: GameInput;
  private readonly touch: TouchControls;
  private readonly others = new SnapshotBuffer<Figure>(INTERPOLATION_MS);
  private readonly control: ShooterControl;
  private bullets: { t: number; list: Array<{ x: number; y: number; vx: number; vy: number; mine: boolean }> } = { t: 0, list: [] };
  private readonly flashes = new Map<string, number>();
  private playerNumber: PlayerNumber = 1;
  private phase: PvpPhase = "waiting";
  private lastShotAt = 0;

  constructor(
    readonly room: PvpRoom,
    canvas: HTMLCanvasElement,
    private readonly hud: PvpHud,
  ) {
    this.stage = new Stage(canvas, PVP_BOUNDS.width / PVP_BOUNDS.height);
    this.stage.view = { x: 0, y: 0, width: PVP_BOUNDS.width, height: PVP_BOUNDS.height };
    this.input = new GameInput(canvas, (x, y) => this.stage.toWorld(x, y));
    this.touch = new TouchControls(canvas.parentElement ?? canvas, canvas);
    this.control = new ShooterControl(room, (p) => this.clamp(p), () => MOVE_SPEED);
    this.listen();
    this.stage.start((now) => this.frame(now));
  }

  get selfSid(): string {
    return this.room.sessionId;
  }

  ready(): void {
    this.room.send("pvp_ready", {});
  }

  sendChat(content: string): void {
    this.room.send("pvp_chat_send", { content });
    this.hud.chat(youName(this.room.state?.players?.get(this.selfSid)?.username ?? "you"), content);
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
    const on: PvpRoom["onMessage"] = ((type: string, handler: (payload: never) => void) => {
      const off = (this.room as Room).onMessage(type, handler);
      this.unbind.push(off);
      return off;
    }) as unknown as PvpRoom["onMessage"];

    on("pvp_room_state", (s) => {
      this.playerNumber = s.playerNumber;
      this.hud.notice(s.opponent ? `Your opponent is ${s.opponent.username}.` : "Waiting for an opponent to join…");
    });
    on("pvp_room_status", () => {});
    on("pvp_opponent_joined", (j) => {
      this.hud.chat(null, `${j.opponent.username} joined the arena.`);
      this.hud.notice(`Your opponent is ${j.opponent.username}. Press Ready when you are.`);
    });
    on("pvp_match_ready", (m) => this.hud.notice(m.message));
    on("pvp_player_ready", (r) => {
      if (r.sid !== this.selfSid) this.hud.chat(null, "Your opponent is ready.");
    });
    on("pvp_battle_start", (b) => {
      this.others.clear();
      this.hud.notice(b.message);
      this.hud.battleStarted();
    });
    on("pvp_self_position", () => {}); // the own position comes from the synchronized state (predicted)
    on("pvp_opponent_position", () => {}); // drawn from the synchronized state
    on("pvp_opponent_shot", () => {}); // bullets are in the synchronized state
    on("pvp_player_hit", (h) => {
      this.flashes.set(h.target, performance.now() + 250);
      this.hud.notice(h.target === this.selfSid ? `You were hit! ${plural(h.lives, "life", "lives")} left.` : `Hit! Your opponent has ${plural(h.lives, "life", "lives")} left.`);
    });
    on("pvp_battle_end", (e) => this.hud.ended(e, this.selfSid));
    on("pvp_opponent_left", (l) => {
      this.hud.chat(null, `${l.username} ${l.reason === "left" ? "left" : "lost the connection"}${l.forfeit ? ": you win by forfeit" : ""}.`);
      this.hud.notice("Waiting for an opponent to join…");
    });
    on("pvp_opponent_disconnected", (d) => this.hud.notice(`${d.username} lost the connection; the battle waits up to ${d.reconnect_seconds} s.`));
    on("pvp_opponent_reconnected", (d) => this.hud.notice(`${d.username} is back.`));
    on("pvp_player_away", (a) => this.hud.chat(null, `${a.username} is away.`));
    on("pvp_player_returned", (a) => this.hud.chat(null, `${a.username} is back.`));
    on("pvp_chat_message", (m) => this.hud.chat(m.username, m.content));
    on("pvp_requeue", (r) => {
      this.hud.notice(r.message);
      this.hud.requeue();
    });
    on("error", (e) => {
      // Refused shots are routine: beyond the fire rate, or fired as the battle ended.
      if (e.code !== "fire_rate" && e.code !== "not_in_battle") this.hud.notice(e.message);
    });
    this.room.onStateChange((state) => this.onPatch(state));
    this.room.onDrop(() => this.hud.notice("Connection lost: reconnecting… (your seat is kept for 20 s)"));
    this.room.onReconnect(() => this.hud.notice("Reconnected."));
    const visibility = () => this.room.send(document.hidden ? "pvp_player_away" : "pvp_player_returned", {});
    document.addEventListener("visibilitychange", visibility);
    this.unbind.push(() => document.removeEventListener("visibilitychange", visibility));
  }

  private onPatch(state: PvpRoomState): void {
    const now = performance.now();
    const figures = new Map<string, Figure>();
    let self: PvpSide | null = null;
    let opponent: PvpSide | null = null;
    state.players.forEach((p, sid) => {
      figures.set(sid, { x: p.x, y: p.y, username: p.username, character: p.character, lives: p.lives, connected: p.connected, away: p.away });
      const side = { username: p.username, lives: p.lives, bullets: p.bullets, ready: p.ready, connected: p.connected, away: p.away };
      if (sid === this.selfSid) {
        self = side;
        this.control.bind(p);
        this.playerNumber = p.player_number as PlayerNumber;
      } else opponent = side;
    });
    this.others.push(now, figures);
    const list: typeof this.bullets.list = [];
    state.bullets.forEach((b) => list.push({ x: b.x, y: b.y, vx: b.vx, vy: b.vy, mine: b.owner === this.selfSid }));
    this.bullets = { t: now, list };
    this.phase = state.phase as PvpPhase;
    this.hud.phase(this.phase, self, opponent);
  }

  /** The own half: the server never lets a circle overlap the wall. */
  private clamp(p: Point): Point {
    const r = PLAYER_RADIUS;
    const [minX, maxX] = this.playerNumber === 1 ? [r, WALL_LEFT - r] : [WALL_RIGHT + r, PVP_BOUNDS.width - r];
    return { x: Math.min(maxX, Math.max(minX, p.x)), y: Math.min(PVP_BOUNDS.height - r, Math.max(r, p.y)) };
  }

  private opponentAt(now: number): [string, Figure] | undefined {
    return [...this.others.sample(now)].find(([sid]) => sid !== this.selfSid);
  }

  private frame(now: number): void {
    const self = this.room.state?.players?.get(this.selfSid);
    if (self?.connected !== false && this.control.position) {
      if (this.phase === "battle") this.shoot(now);
      this.control.frame(now, this.input.direction() ?? this.touch.direction);
    }
    this.draw(now);
  }

  /** Mouse button held: at the pointer. Space: at the pointer, or at the opponent when the pointer is away. */
  private shoot(now: number): void {
    const firing = this.input.pointerDown || this.input.down("Space") || this.touch.firing;
    const me = this.control.position;
    if (!firing || !me || now - this.lastShotAt < SHOT_INTERVAL_MS) return;
    const target = this.touchTarget(me) ?? this.input.aim ?? this.opponentAt(now)?.[1];
    if (!target) return;
    const dx = target.x - me.x;
    const dy = target.y - me.y;
    const len = Math.hypot(dx, dy);
    if (len < 1) return;
    this.lastShotAt = now;
    this.control.fire(dx / len, dy / len);
  }

  /** A finger's target: the point under it on the arena, or along the right stick; null: none (auto-aim). */
  private touchTarget(me: Point): Point | null {
    const point = this.touch.aimPoint;
    if (point) return this.stage.toWorld(point.x, point.y);
    const dir = this.touch.aimDirection;
    return dir && { x: me.x + dir.x * 100, y: me.y + dir.y * 100 };
  }

  private draw(now: number): void {
    const { ctx } = this.stage;
    const { width, height } = PVP_BOUNDS;
    this.stage.beginFrame("#0b1019");
    // Halves: the own one lighter; the wall between them.
    ctx.fillStyle = "#101826";
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = "#16213a";
    if (this.playerNumber === 1) ctx.fillRect(0, 0, WALL_LEFT, height);
    else ctx.fillRect(WALL_RIGHT, 0, width - WALL_RIGHT, height);
    ctx.fillStyle = "#8a97b8";
    ctx.fillRect(WALL_LEFT, 0, WALL_RIGHT - WALL_LEFT, height);
    ctx.strokeStyle = "#3a4768";
    ctx.lineWidth = 2;
    ctx.strokeRect(1, 1, width - 2, height - 2);

    const age = (now - this.bullets.t) / 1000;
    for (const b of this.bullets.list) drawDot(ctx, b.x + b.vx * age, b.y + b.vy * age, BULLET_RADIUS, b.mine ? "#ffd479" : "#ff7b7b", true);

    const font = this.stage.fontSize(15);
    const state = this.room.state;
    for (const [sid, p] of this.others.sample(now)) {
      const isSelf = sid === this.selfSid;
      const at = isSelf ? (this.control.position ?? p) : p;
      drawFigure(ctx, at.x, at.y, PLAYER_RADIUS, {
        color: CHARACTER_COLORS[p.character] ?? "#b7c1d9",
        label: p.character,
        self: isSelf,
        dim: !p.connected || p.away,
        flash: (this.flashes.get(sid) ?? 0) > now,
      });
      const sub = !p.connected ? "reconnecting…" : p.away ? "away" : "♥".repeat(Math.max(0, p.lives));
      drawName(ctx, at.x, at.y - PLAYER_RADIUS - 5, isSelf ? youName(p.username) : p.username, sub, font, at.y + PLAYER_RADIUS + 5);
    }
    if (state && this.phase !== "battle") {
      // At the arena's foot, between the thumbs: notices show at its top edge on touch screens.
      drawName(ctx, width / 2, height - 24, this.phase === "waiting" ? "Waiting for an opponent" : this.phase === "ready_check" ? "Ready check" : "Battle over", undefined, font * 1.4);
    }
    const finger = this.touch.aimPoint;
    const aim = finger ? this.stage.toWorld(finger.x, finger.y) : this.input.aim;
    if (aim) {
      ctx.strokeStyle = "#ffd479";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(aim.x, aim.y, finger ? 20 : 9, 0, Math.PI * 2);
      ctx.stroke();
    }
  }
}
