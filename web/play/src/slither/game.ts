// SlitherRush on a canvas: the binary snapshots (15/s) rebuild the world with the protocol's own
// SlitherRushWorld; snakes are drawn interpolated between snapshots, bullets flown along their
// velocity, and the camera follows the own head. The pointer (or W A S D / arrows, or a finger
// dragged on the left half) steers; the mouse button, Space or a finger on the right half shoots. The server decides every hit, death and score.
import type { Room } from "@colyseus/sdk";
import type { JoinedPayload, LeaderboardPayload, SlitherRushRoomType } from "../../../../src/protocol/slitherrush.js";
import { SlitherRushWorld, type WorldSnake } from "../../../../src/protocol/slitherrushSnapshot.js";
import { ARENA_HEIGHT, ARENA_WIDTH, BULLET_RADIUS, HEAD_RADIUS, TICK_RATE } from "../../../../src/game/slitherrush/constants.js";
import { GameInput } from "../input.js";
import { TouchControls } from "../touch.js";
import { lerp, SnapshotBuffer, type Point } from "../render/interpolation.js";
import { Stage } from "../render/stage.js";
import { drawDot, drawName } from "../render/sprites.js";
import { youName } from "../dom.js";

export type SlitherRoom = Room<SlitherRushRoomType>;

/** Width of world shown around the head (the server sends more: see `view` in slitherrush_joined). */
const VIEW_WIDTH = 1400;
const ASPECT = 16 / 9;
const INPUT_SEND_MS = 50;
/** Steering changes smaller than this (radians) are not worth a message. */
const MIN_TURN = 0.03;

export interface SlitherSelf {
  score: number;
  kills: number;
  deaths: number;
  length: number;
  rank: number;
  hp: number;
  protected: boolean;
  players: number;
}

export interface SlitherHud {
  joined(j: JoinedPayload): void;
  self(s: SlitherSelf): void;
  leaderboard(l: LeaderboardPayload, selfId: string): void;
  /** Snakes currently on screen (for the list beside the canvas). */
  nearby(names: string[]): void;
  feed(text: string): void;
  died(killer: string | null): void;
  notice(text: string): void;
}

interface SnakeDrawing extends Point {
  body: Point[];
  username: string;
  color: string;
  protected: boolean;
  hp: number;
  id: string;
}

/** A head further than this from one snapshot to the next respawned: no sliding across the map. */
const JUMP = 100;

function mixSnakes(a: SnakeDrawing, b: SnakeDrawing, t: number): SnakeDrawing {
  if (Math.hypot(a.x - b.x, a.y - b.y) > JUMP) return b;
  return {
    ...b,
    x: lerp(a.x, b.x, t),
    y: lerp(a.y, b.y, t),
    body: b.body.map((p, i) => {
      const q = a.body[Math.min(i, a.body.length - 1)] ?? p;
      return { x: lerp(q.x, p.x, t), y: lerp(q.y, p.y, t) };
    }),
  };
}

export class SlitherGame {
  private readonly unbind: Array<() => void> = [];
  private readonly stage: Stage;
  private readonly input: GameInput;
  private readonly touch: TouchControls;
  private readonly world = new SlitherRushWorld();
  /** About two snapshot intervals (15/s). */
  private readonly snakes = new SnapshotBuffer<SnakeDrawing>(130, mixSnakes);
  private snapshotAt = 0;
  private joined: JoinedPayload | null = null;
  private readonly names = new Map<string, string>();
  private camera: Point = { x: ARENA_WIDTH / 2, y: ARENA_HEIGHT / 2 };
  private sent = { angle: NaN, shoot: false, at: 0 };
  private lastNearby = "";

  constructor(
    readonly room: SlitherRoom,
    canvas: HTMLCanvasElement,
    private readonly hud: SlitherHud,
  ) {
    this.stage = new Stage(canvas, ASPECT);
    this.input = new GameInput(canvas, (x, y) => this.stage.toWorld(x, y));
    this.touch = new TouchControls(canvas.parentElement ?? canvas, canvas);
    this.listen();
    this.stage.start((now) => this.frame(now));
  }

  get selfId(): string {
    return this.room.sessionId;
  }

  dispose(): void {
    this.stage.stop();
    this.input.dispose();
    this.touch.dispose();
    for (const off of this.unbind.splice(0)) off();
  }

  // ----------------------------------------------------------------------------------------------

  private listen(): void {
    const on: SlitherRoom["onMessage"] = ((type: string, handler: (payload: never) => void) => {
      const off = (this.room as Room).onMessage(type, handler);
      this.unbind.push(off);
      return off;
    }) as unknown as SlitherRoom["onMessage"];

    on("slitherrush_joined", (j) => {
      this.joined = j;
      this.hud.joined(j);
    });
    on("slitherrush_state", (bytes) => this.onSnapshot(bytes));
    on("slitherrush_leaderboard_update", (l) => {
      for (const row of l.leaderboard) this.names.set(row.id, row.username);
      this.hud.leaderboard(l, this.selfId);
    });
    on("slitherrush_death", (d) => {
      const victim = this.names.get(d.player_id) ?? "a snake";
      const killer = d.killer_id ? (this.names.get(d.killer_id) ?? "a snake") : null;
      if (d.player_id === this.selfId) {
        this.hud.died(killer); // the snake has respawned already: steering goes on
      } else if (d.reason === "shot") {
        this.hud.feed(d.killer_id === this.selfId ? `You shot ${victim}!` : `${killer ?? "Someone"} shot ${victim}.`);
      } else {
        this.hud.feed(`${victim} left the arena.`);
      }
    });
    on("slitherrush_status", () => {});
    on("error", (e) => this.hud.notice(e.message));
    this.room.onDrop(() => this.hud.notice("Connection lost: reconnecting…"));
    this.room.onReconnect(() => this.hud.notice("Reconnected."));
  }

  private onSnapshot(bytes: Uint8Array): void {
    try {
      this.world.apply(bytes);
    } catch (err) {
      // A snapshot this client cannot apply (it missed the body it refers to): ask for a full one.
      this.hud.notice(`Resynchronising (${(err as Error).message})`);
      this.room.send("slitherrush_play_again", {});
      return;
    }
    const now = performance.now();
    this.snapshotAt = now;
    const drawings = new Map<string, SnakeDrawing>();
    for (const s of this.world.snakes.values()) {
      this.names.set(s.id, s.username);
      drawings.set(String(s.slot), toDrawing(s));
    }
    this.snakes.push(now, drawings);
    const self = this.world.self;
    this.hud.self({
      score: self.score,
      kills: self.kills,
      deaths: self.deaths,
      length: self.length,
      rank: self.rank,
      hp: self.hp,
      protected: self.protected,
      players: this.world.playerCount,
    });
  }

  private ownSlot(): string | null {
    const slot = this.world.self.slot ?? this.joined?.slot;
    return slot === undefined || slot === null ? null : String(slot);
  }

  private frame(now: number): void {
    const drawn = this.snakes.sample(now);
    const own = this.ownSlot();
    const head = own ? drawn.get(own) : undefined;
    if (head) this.camera = { x: head.x, y: head.y };
    // A phone's narrow canvas shows less of the world (down to half), so snakes stay big enough to see.
    const width = VIEW_WIDTH * Math.min(1, Math.max(0.5, this.stage.canvas.clientWidth / 1000));
    this.stage.view = { x: this.camera.x - width / 2, y: this.camera.y - width / ASPECT / 2, width, height: width / ASPECT };
    if (head) this.steer(now, head);
    this.draw(now, drawn, own);
  }

  private steer(now: number, head: Point): void {
    const aim = this.input.aim;
    const keys = this.input.direction() ?? this.touch.direction;
    let dir: Point | null = keys;
    if (!dir && aim) {
      const dx = aim.x - head.x;
      const dy = aim.y - head.y;
      if (Math.hypot(dx, dy) > HEAD_RADIUS) dir = { x: dx, y: dy };
    }
    const shoot = this.input.pointerDown || this.input.down("Space") || this.touch.firing;
    const angle = dir ? Math.atan2(dir.y, dir.x) : this.sent.angle;
    const turned = dir !== null && !(Math.abs(angleDiff(angle, this.sent.angle)) < MIN_TURN);
    if ((!turned && shoot === this.sent.shoot) || now - this.sent.at < INPUT_SEND_MS) return;
    this.room.send("slitherrush_input", dir ? { direction: { x: Math.cos(angle), y: Math.sin(angle) }, shoot } : { shoot });
    this.sent = { angle, shoot, at: now };
  }

  private draw(now: number, drawn: Map<string, SnakeDrawing>, own: string | null): void {
    const { ctx } = this.stage;
    this.stage.beginFrame("#070b12");
    ctx.fillStyle = "#0e1522";
    ctx.fillRect(0, 0, ARENA_WIDTH, ARENA_HEIGHT);
    // A grid, so movement reads even when nothing else is in view.
    ctx.strokeStyle = "#1a2438";
    ctx.lineWidth = 2;
    const v = this.stage.view;
    ctx.beginPath();
    for (let x = Math.max(0, Math.floor(v.x / 200) * 200); x <= Math.min(ARENA_WIDTH, v.x + v.width); x += 200) {
      ctx.moveTo(x, Math.max(0, v.y));
      ctx.lineTo(x, Math.min(ARENA_HEIGHT, v.y + v.height));
    }
    for (let y = Math.max(0, Math.floor(v.y / 200) * 200); y <= Math.min(ARENA_HEIGHT, v.y + v.height); y += 200) {
      ctx.moveTo(Math.max(0, v.x), y);
      ctx.lineTo(Math.min(ARENA_WIDTH, v.x + v.width), y);
    }
    ctx.stroke();
    ctx.strokeStyle = "#ff5d7a";
    ctx.lineWidth = 6;
    ctx.strokeRect(0, 0, ARENA_WIDTH, ARENA_HEIGHT);

    // Bullets: flown from the snapshot that announced them, on the same delayed clock as the snakes.
    const tick = this.world.tick + ((now - this.snapshotAt - this.snakes.delayMs) / 1000) * TICK_RATE;
    for (const b of this.world.bullets.values()) {
      const at = this.world.bulletAt(b, tick);
      if (at) drawDot(ctx, at.x, at.y, BULLET_RADIUS + 1, "#ffd479", true);
    }

    const font = this.stage.fontSize(14);
    const nearby: string[] = [];
    for (const [slot, s] of drawn) {
      if (!inView(s, v)) continue;
      const mine = slot === own;
      if (!mine) nearby.push(s.username);
      ctx.save();
      ctx.globalAlpha = s.protected ? 0.55 : 1;
      ctx.lineCap = "round";
      ctx.lineJoin = "round";
      ctx.strokeStyle = s.color;
      ctx.lineWidth = HEAD_RADIUS * 1.6;
      ctx.beginPath();
      s.body.forEach((p, i) => (i ? ctx.lineTo(p.x, p.y) : ctx.moveTo(p.x, p.y)));
      ctx.stroke();
      drawDot(ctx, s.x, s.y, HEAD_RADIUS + 2, s.color);
      ctx.lineWidth = mine ? 4 : 2;
      ctx.strokeStyle = mine ? "#ffd479" : "#0b1019";
      ctx.beginPath();
      ctx.arc(s.x, s.y, HEAD_RADIUS + 2, 0, Math.PI * 2);
      ctx.stroke();
      ctx.restore();
      drawName(ctx, s.x, s.y - HEAD_RADIUS - 5, mine ? youName(s.username) : s.username, "♥".repeat(Math.max(0, s.hp)), font, s.y + HEAD_RADIUS + 5);
    }
    const key = nearby.sort().join("\n");
    if (key !== this.lastNearby) {
      this.lastNearby = key;
      this.hud.nearby(nearby);
    }
  }
}

function toDrawing(s: WorldSnake): SnakeDrawing {
  const head = s.body[0] ?? { x: 0, y: 0 };
  return { x: head.x, y: head.y, body: s.body, username: s.username, color: s.color, protected: s.protected, hp: s.hp, id: s.id };
}

/** Some part of the snake is on screen. */
function inView(s: SnakeDrawing, v: { x: number; y: number; width: number; height: number }): boolean {
  const m = HEAD_RADIUS * 2;
  return s.body.some((p) => p.x > v.x - m && p.x < v.x + v.width + m && p.y > v.y - m && p.y < v.y + v.height + m);
}

function angleDiff(a: number, b: number): number {
  if (Number.isNaN(b)) return Math.PI;
  let d = a - b;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return d;
}
