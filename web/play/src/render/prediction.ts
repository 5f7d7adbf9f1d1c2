// Client-side prediction of the own player. The player moves locally at once; positions go to the
// server at a fixed rate, and each `*_self_position` answer is matched with the position it answers
// (messages stay in order). Whatever the server changed (clamping, collisions, its speed cap) is
// applied to the prediction, so the server stays the authority without the round trip showing.
import type { Point } from "./interpolation.js";

/** Corrections smaller than this are rounding (positions travel with 0.1 px). */
const EPSILON = 0.5;
/** Answers lost to a reconnect must not pile up. */
const MAX_UNANSWERED = 40;

export class PredictedPlayer {
  position: Point | null = null;
  private unanswered: Point[] = [];
  private lastSent: Point | null = null;
  private lastSentAt = 0;

  constructor(
    private readonly clamp: (p: Point) => Point,
    private readonly sendEveryMs = 50,
  ) {}

  /** The server placed the player (join, reconnect, battle start): start over from there. */
  reset(p: Point): void {
    this.position = { x: p.x, y: p.y };
    this.unanswered = [];
    this.lastSent = null;
  }

  /** Moves by `speed` px/s along the unit `dir` for `dt` seconds. */
  move(dir: Point | null, speed: number, dt: number): void {
    if (!this.position || !dir) return;
    this.position = this.clamp({ x: this.position.x + dir.x * speed * dt, y: this.position.y + dir.y * speed * dt });
  }

  /** Sends the position when it changed and the send interval passed. */
  flush(now: number, send: (p: Point) => void): void {
    const p = this.position;
    if (!p || now - this.lastSentAt < this.sendEveryMs) return;
    if (this.lastSent && Math.abs(this.lastSent.x - p.x) < 0.05 && Math.abs(this.lastSent.y - p.y) < 0.05) return;
    const at = { x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 };
    send(at);
    this.unanswered.push({ ...at });
    if (this.unanswered.length > MAX_UNANSWERED) this.unanswered.shift();
    this.lastSent = at;
    this.lastSentAt = now;
  }

  /** The server's answer to the oldest unanswered position. */
  reconcile(server: Point): void {
    const sent = this.unanswered.shift();
    if (!this.position) return;
    if (!sent) {
      this.position = { ...server };
      return;
    }
    const dx = server.x - sent.x;
    const dy = server.y - sent.y;
    if (Math.abs(dx) <= EPSILON && Math.abs(dy) <= EPSILON) return;
    this.position = this.clamp({ x: this.position.x + dx, y: this.position.y + dy });
    for (const p of this.unanswered) {
      p.x += dx;
      p.y += dy;
    }
    if (this.lastSent) this.lastSent = { x: this.lastSent.x + dx, y: this.lastSent.y + dy };
  }
}
