// Encodes the binary `slitherrush_state` snapshot of each client (layout: docs/slitherrush.md).
// Per client it sends only what is near its head (./interest.ts); a snake the client already has
// travels as the few head moves since the previous snapshot (the client rebuilds the body from
// them), a bullet travels once, when the client first needs it, and the client flies it itself.
// Records that are the same for every client (a snake's moves, its full body, its identity) are
// encoded once per snapshot and copied into each client's message.
import type { Point } from "../geometry.js";
import type { Bullet, SlitherArena, Snake } from "./arena.js";
import { ByteWriter } from "./byteWriter.js";
import { MAX_PLAYERS } from "./constants.js";
import { InterestBoxes, boxOf, emptyBox, type Box } from "./interest.js";
import { quantisePosition } from "./quantise.js";
import {
  ABSOLUTE_POINT,
  MAX_DELTA,
  MAX_ID_BYTES,
  MAX_NAME_BYTES,
  NO_SLOT,
  SELF_PROTECTED,
  SNAKE_FULL,
  SNAKE_HP_SHIFT,
  SNAKE_PROTECTED,
  SNAPSHOT_VERSION,
  SELF_HP_MASK,
} from "./wireFormat.js";

/** A snake's head as the previous snapshot carried it. */
interface SentHead {
  snake: Snake;
  epoch: number;
  qx: number;
  qy: number;
  tick: number;
}

/** Byte ranges of one snake's records in the shared buffer for the current snapshot (−1: not built). */
interface SnakeFrame {
  snake: Snake;
  present: boolean;
  box: Box;
  deltaStart: number;
  deltaEnd: number;
  fullStart: number;
  fullEnd: number;
  identStart: number;
  identEnd: number;
}

class Viewer {
  /** Snakes this client had in its previous snapshot (by slot), with the epoch it saw. */
  readonly known: (Snake | undefined)[] = new Array(MAX_PLAYERS).fill(undefined);
  readonly knownEpoch = new Int32Array(MAX_PLAYERS);
  /** The occupant whose identity (id, name, colour) this client got for each slot. */
  readonly identity: (Snake | undefined)[] = new Array(MAX_PLAYERS).fill(undefined);
  /** Bullets this client flies: id → last tick of flight. */
  readonly bullets = new Map<number, number>();

  forgetAll(): void {
    this.known.fill(undefined);
    this.identity.fill(undefined);
    this.bullets.clear();
  }

  /** Drops the bullets whose flight ended by `tick` (Map.forEach: no [key, value] array per entry). */
  landBullets(tick: number): void {
    this.now = tick;
    this.bullets.forEach(this.landIfOver);
  }

  private now = 0;
  private readonly landIfOver = (lastTick: number, id: number): void => {
    if (lastTick <= this.now) this.bullets.delete(id);
  };
}

export class SnapshotEncoder {
  private readonly sent: (SentHead | undefined)[] = new Array(MAX_PLAYERS).fill(undefined);
  /** Per slot, reused from one snapshot to the next; `present` says whether the slot has a snake now. */
  private readonly frames: SnakeFrame[] = Array.from({ length: MAX_PLAYERS }, () => ({
    snake: undefined as unknown as Snake,
    present: false,
    box: emptyBox(),
    deltaStart: -1,
    deltaEnd: -1,
    fullStart: -1,
    fullEnd: -1,
    identStart: -1,
    identEnd: -1,
  }));
  private readonly interest = new InterestBoxes();
  private readonly viewers = new Map<string, Viewer>();
  private readonly shared = new ByteWriter(16 * 1024);
  private readonly out = new ByteWriter(8 * 1024);
  private readonly visible = new Int32Array(MAX_PLAYERS);
  private hitBullets: number[] = [];

  constructor(private readonly arena: SlitherArena) {}

  get viewerCount(): number {
    return this.viewers.size;
  }

  addViewer(playerId: string): void {
    if (!this.viewers.has(playerId)) this.viewers.set(playerId, new Viewer());
  }

  removeViewer(playerId: string): void {
    this.viewers.delete(playerId);
  }

  /** The viewer's next snapshot carries everything in its view in full, as if it had just joined. */
  resync(playerId: string): void {
    this.viewers.get(playerId)?.forgetAll();
  }

  /** Bullets consumed by hits: clients that fly them are told to drop them. */
  noteHits(bulletIds: readonly number[]): void {
    for (const id of bulletIds) this.hitBullets.push(id);
  }

  /**
   * Encodes the current arena state once per viewer and hands each its bytes. The bytes are a view
   * into a reused buffer: `sink` must send (copy) them before returning.
   */
  encode(sink: (playerId: string, bytes: Uint8Array) => void): void {
    const tick = this.arena.tick;
    this.prepareFrames(tick);
    const ranks = this.arena.ranks();
    this.viewers.forEach((viewer, playerId) => {
      this.encodeFor(playerId, viewer, tick, ranks);
      sink(playerId, this.out.written());
    });
    this.hitBullets = [];
    for (let slot = 0; slot < MAX_PLAYERS; slot++) {
      const snake = this.arena.slots[slot];
      this.sent[slot] = snake
        ? { snake, epoch: snake.epoch, qx: quantisePosition(snake.body[0].x), qy: quantisePosition(snake.body[0].y), tick }
        : undefined;
    }
  }

  /** Per snake: its body box and, when possible, its move record (shared by every client). */
  private prepareFrames(tick: number): void {
    this.shared.reset();
    for (let slot = 0; slot < MAX_PLAYERS; slot++) {
      const snake = this.arena.slots[slot];
      const frame = this.frames[slot];
      frame.present = snake !== undefined;
      if (!snake) continue;
      frame.snake = snake;
      boxOf(snake.body, frame.box);
      frame.deltaStart = frame.deltaEnd = frame.fullStart = frame.fullEnd = frame.identStart = frame.identEnd = -1;
      const prev = this.sent[slot];
      const moves = prev ? tick - prev.tick : -1;
      if (prev && prev.snake === snake && prev.epoch === snake.epoch && moves >= 0 && moves < snake.body.length) {
        frame.deltaStart = this.shared.offset;
        this.writeSnakeHeader(snake, false);
        this.shared.u8(moves);
        let qx = prev.qx;
        let qy = prev.qy;
        for (let k = moves - 1; k >= 0; k--) {
          const nx = quantisePosition(snake.body[k].x);
          const ny = quantisePosition(snake.body[k].y);
          this.writePoint(this.shared, nx - qx, ny - qy, nx, ny);
          qx = nx;
          qy = ny;
        }
        frame.deltaEnd = this.shared.offset;
      }
    }
  }

  private writeSnakeHeader(snake: Snake, full: boolean): void {
    const w = this.shared;
    w.u8(snake.slot);
    w.u8((full ? SNAKE_FULL : 0) | (Math.max(0, Math.min(3, snake.hp)) << SNAKE_HP_SHIFT) | (this.arena.isProtected(snake) ? SNAKE_PROTECTED : 0));
    w.u8(snake.length);
  }

  /** A point as an int8 delta pair, or an absolute point when the delta does not fit. */
  private writePoint(w: ByteWriter, dx: number, dy: number, x: number, y: number): void {
    if (dx >= -MAX_DELTA && dx <= MAX_DELTA && dy >= -MAX_DELTA && dy <= MAX_DELTA) {
      w.i8(dx);
      w.i8(dy);
    } else {
      w.i8(ABSOLUTE_POINT);
      w.u16(x);
      w.u16(y);
    }
  }

  private fullRecord(frame: SnakeFrame): void {
    if (frame.fullStart !== -1) return;
    const { snake } = frame;
    frame.fullStart = this.shared.offset;
    this.writeSnakeHeader(snake, true);
    let qx = quantisePosition(snake.body[0].x);
    let qy = quantisePosition(snake.body[0].y);
    this.shared.u16(qx);
    this.shared.u16(qy);
    this.shared.u8(snake.body.length - 1);
    for (let i = 1; i < snake.body.length; i++) {
      const nx = quantisePosition(snake.body[i].x);
      const ny = quantisePosition(snake.body[i].y);
      this.writePoint(this.shared, nx - qx, ny - qy, nx, ny);
      qx = nx;
      qy = ny;
    }
    frame.fullEnd = this.shared.offset;
  }

  private identityRecord(frame: SnakeFrame): void {
    if (frame.identStart !== -1) return;
    const { snake } = frame;
    frame.identStart = this.shared.offset;
    this.shared.u8(snake.slot);
    this.shared.u8(snake.color);
    this.shared.text(snake.id, MAX_ID_BYTES);
    this.shared.text(snake.username, MAX_NAME_BYTES);
    frame.identEnd = this.shared.offset;
  }

  private encodeFor(playerId: string, viewer: Viewer, tick: number, ranks: Map<string, number>): void {
    const out = this.out;
    const self = this.arena.players.get(playerId);
    const center: Point = self ? self.body[0] : { x: this.arena.size.width / 2, y: this.arena.size.height / 2 };
    out.reset();
    out.u8(SNAPSHOT_VERSION);
    out.u32(tick);

    // Self block
    if (self) {
      out.u8(self.slot);
      out.u8((Math.max(0, Math.min(3, self.hp)) & SELF_HP_MASK) | (this.arena.isProtected(self) ? SELF_PROTECTED : 0));
      out.u16(Math.min(0xffff, self.score));
      out.u16(Math.min(0xffff, self.kills));
      out.u16(Math.min(0xffff, self.deaths));
      out.u8(self.length);
      out.u8(Math.min(255, ranks.get(playerId) ?? 0));
    } else {
      out.u8(NO_SLOT);
      out.u8(0);
      out.u16(0);
      out.u16(0);
      out.u16(0);
      out.u8(0);
      out.u8(0);
    }
    out.u8(this.arena.playerCount);

    // Which snakes this client gets.
    const interest = this.interest.around(center);
    let count = 0;
    for (let slot = 0; slot < MAX_PLAYERS; slot++) {
      const frame = this.frames[slot];
      if (!frame.present) {
        viewer.known[slot] = undefined;
        continue;
      }
      const had = viewer.known[slot] === frame.snake;
      if (frame.snake === self || interest.snake(frame.box, had)) this.visible[count++] = slot;
      else viewer.known[slot] = undefined;
    }

    // Identities of occupants this client has not been told about.
    const identityCountAt = out.offset;
    out.u8(0);
    let identities = 0;
    for (let i = 0; i < count; i++) {
      const frame = this.frames[this.visible[i]];
      if (viewer.identity[frame.snake.slot] === frame.snake) continue;
      this.identityRecord(frame);
      out.copy(this.shared.buf, frame.identStart, frame.identEnd - frame.identStart);
      viewer.identity[frame.snake.slot] = frame.snake;
      identities++;
    }
    out.buf[identityCountAt] = identities;

    // Snakes: moves when the client has the snake's body, else the full body.
    out.u8(count);
    for (let i = 0; i < count; i++) {
      const slot = this.visible[i];
      const frame = this.frames[slot];
      const snake = frame.snake;
      const hasBody = viewer.known[slot] === snake && viewer.knownEpoch[slot] === snake.epoch;
      if (hasBody && frame.deltaStart !== -1) {
        out.copy(this.shared.buf, frame.deltaStart, frame.deltaEnd - frame.deltaStart);
      } else {
        this.fullRecord(frame);
        out.copy(this.shared.buf, frame.fullStart, frame.fullEnd - frame.fullStart);
      }
      viewer.known[slot] = snake;
      viewer.knownEpoch[slot] = snake.epoch;
    }

    // Bullets: new to this client and near it.
    viewer.landBullets(tick);
    const bulletCountAt = out.offset;
    out.u8(0);
    let spawned = 0;
    for (const b of this.arena.bullets) {
      if (!interest.bullet(b) || viewer.bullets.has(b.id)) continue;
      this.writeBullet(b);
      viewer.bullets.set(b.id, tick + b.ticksLeft);
      spawned++;
    }
    out.buf[bulletCountAt] = spawned;

    // Bullets this client flies that hit someone since its previous snapshot.
    const removedCountAt = out.offset;
    out.u8(0);
    let removed = 0;
    for (const id of this.hitBullets) {
      if (!viewer.bullets.delete(id)) continue;
      out.u16(id);
      removed++;
    }
    out.buf[removedCountAt] = removed;
  }

  private writeBullet(b: Bullet): void {
    const out = this.out;
    out.u16(b.id);
    out.u8(b.ownerSlot);
    out.u16(quantisePosition(b.x));
    out.u16(quantisePosition(b.y));
    out.u16(b.angle);
    out.u8(b.ticksLeft);
  }
}
