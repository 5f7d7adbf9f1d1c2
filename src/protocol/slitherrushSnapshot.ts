// Client side of the binary `slitherrush_state` snapshot: a stateless decoder of one message, and
// SlitherRushWorld, which applies snapshots in order and keeps what a renderer needs (snakes with
// their rebuilt bodies, bullets it can fly, the receiver's own numbers). Pure: no I/O, no
// dependencies beyond the format constants; clients can import it as is. Layout: docs/slitherrush.md.
import { ARENA_HEIGHT, ARENA_WIDTH, BULLET_SPEED, COLORS, TICK_RATE } from "../game/slitherrush/constants.js";
import { POSITION_SCALE, unitOfAngle } from "../game/slitherrush/quantise.js";
import {
  ABSOLUTE_POINT,
  NO_SLOT,
  SELF_HP_MASK,
  SELF_PROTECTED,
  SNAKE_FULL,
  SNAKE_HP_MASK,
  SNAKE_HP_SHIFT,
  SNAKE_PROTECTED,
  SNAPSHOT_VERSION,
} from "../game/slitherrush/wireFormat.js";

export { POSITION_SCALE, SNAPSHOT_VERSION };

/** A step along a snake, in tenths of a pixel: relative to the previous point, or absolute. */
export type PointStep = { dx: number; dy: number } | { x: number; y: number; absolute: true };

export interface DecodedSelf {
  /** The receiver's snake slot, null when it has none. */
  slot: number | null;
  hp: number;
  protected: boolean;
  score: number;
  kills: number;
  deaths: number;
  length: number;
  /** 1-based rank in the arena (leaderboard order). */
  rank: number;
}

export interface DecodedIdentity {
  slot: number;
  colorIndex: number;
  id: string;
  username: string;
}

export interface DecodedSnake {
  slot: number;
  /** true: `head` and `steps` (head → tail) are the whole body; false: `steps` are new head moves, oldest first. */
  full: boolean;
  hp: number;
  protected: boolean;
  /** Body length in points; the client trims or pads (tail copies) its body to it. */
  length: number;
  /** Full records only: the head, in tenths of a pixel. */
  head?: { x: number; y: number };
  steps: PointStep[];
}

export interface DecodedBullet {
  id: number;
  ownerSlot: number;
  /** Position at the snapshot's tick, in tenths of a pixel. */
  x: number;
  y: number;
  /** 16-bit direction: a full turn is 65536. */
  angle: number;
  /** Ticks it still flies after the snapshot's tick. */
  ticksLeft: number;
}

export interface DecodedSnapshot {
  version: number;
  tick: number;
  self: DecodedSelf;
  playerCount: number;
  identities: DecodedIdentity[];
  snakes: DecodedSnake[];
  bullets: DecodedBullet[];
  /** Bullets that hit someone: stop flying them. */
  removedBullets: number[];
}

export class SnapshotFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotFormatError";
  }
}

const utf8 = new TextDecoder();

class Reader {
  private offset = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.offset === this.bytes.length;
  }

  private need(n: number): void {
    if (this.offset + n > this.bytes.length) throw new SnapshotFormatError(`snapshot truncated at byte ${this.offset}`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++];
  }

  i8(): number {
    this.need(1);
    return this.view.getInt8(this.offset++);
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  text(): string {
    const n = this.u8();
    this.need(n);
    const s = utf8.decode(this.bytes.subarray(this.offset, this.offset + n));
    this.offset += n;
    return s;
  }

  step(): PointStep {
    const dx = this.i8();
    if (dx === ABSOLUTE_POINT) return { x: this.u16(), y: this.u16(), absolute: true };
    return { dx, dy: this.i8() };
  }
}

/** Decodes one `slitherrush_state` message. Throws SnapshotFormatError on a malformed one. */
export function decodeSnapshot(bytes: Uint8Array): DecodedSnapshot {
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== SNAPSHOT_VERSION) throw new SnapshotFormatError(`unsupported snapshot version ${version}`);
  const tick = r.u32();
  const slot = r.u8();
  const selfFlags = r.u8();
  const self: DecodedSelf = {
    slot: slot === NO_SLOT ? null : slot,
    hp: selfFlags & SELF_HP_MASK,
    protected: (selfFlags & SELF_PROTECTED) !== 0,
    score: r.u16(),
    kills: r.u16(),
    deaths: r.u16(),
    length: r.u8(),
    rank: r.u8(),
  };
  const playerCount = r.u8();

  const identities: DecodedIdentity[] = [];
  for (let n = r.u8(); n > 0; n--) identities.push({ slot: r.u8(), colorIndex: r.u8(), id: r.text(), username: r.text() });

  const snakes: DecodedSnake[] = [];
  for (let n = r.u8(); n > 0; n--) {
    const snakeSlot = r.u8();
    const flags = r.u8();
    const length = r.u8();
    const full = (flags & SNAKE_FULL) !== 0;
    const snake: DecodedSnake = {
      slot: snakeSlot,
      full,
      hp: (flags & SNAKE_HP_MASK) >> SNAKE_HP_SHIFT,
      protected: (flags & SNAKE_PROTECTED) !== 0,
      length,
      steps: [],
    };
    if (full) snake.head = { x: r.u16(), y: r.u16() };
    for (let k = r.u8(); k > 0; k--) snake.steps.push(r.step());
    snakes.push(snake);
  }

  const bullets: DecodedBullet[] = [];
  for (let n = r.u8(); n > 0; n--) bullets.push({ id: r.u16(), ownerSlot: r.u8(), x: r.u16(), y: r.u16(), angle: r.u16(), ticksLeft: r.u8() });

  const removedBullets: number[] = [];
  for (let n = r.u8(); n > 0; n--) removedBullets.push(r.u16());

  if (!r.done) throw new SnapshotFormatError("trailing bytes after the snapshot");
  return { version, tick, self, playerCount, identities, snakes, bullets, removedBullets };
}

// ---------------------------------------------------------------------------------------------
// The client's world, rebuilt from snapshots
// ---------------------------------------------------------------------------------------------

export interface WorldPoint {
  x: number;
  y: number;
}

export interface WorldSnake {
  slot: number;
  id: string;
  username: string;
  color: string;
  hp: number;
  protected: boolean;
  length: number;
  /** Head first, in pixels. */
  body: WorldPoint[];
}

export interface WorldBullet {
  id: number;
  ownerSlot: number;
  /** Where it was at `fromTick`, in pixels, and its velocity in px/s. */
  x: number;
  y: number;
  vx: number;
  vy: number;
  fromTick: number;
  /** Last tick it flies. */
  untilTick: number;
}

interface Identity {
  id: string;
  username: string;
  colorIndex: number;
}

/** Applies snapshots in the order they arrive and answers what to draw. */
export class SlitherRushWorld {
  tick = 0;
  self: DecodedSelf = { slot: null, hp: 0, protected: false, score: 0, kills: 0, deaths: 0, length: 0, rank: 0 };
  playerCount = 0;
  readonly snakes = new Map<number, WorldSnake>();
  readonly bullets = new Map<number, WorldBullet>();
  private readonly identities = new Map<number, Identity>();
  /** Bodies in tenths of a pixel (exact integers), head first. */
  private readonly units = new Map<number, { x: number; y: number }[]>();

  constructor(readonly arena = { width: ARENA_WIDTH, height: ARENA_HEIGHT }) {}

  /** Applies one message; a malformed one throws SnapshotFormatError and leaves the world as it was. */
  apply(bytes: Uint8Array): DecodedSnapshot {
    const snap = decodeSnapshot(bytes);
    for (const rec of snap.snakes) {
      if (!rec.full && !this.units.has(rec.slot)) throw new SnapshotFormatError(`moves for snake slot ${rec.slot}, whose body this client does not have`);
    }
    this.tick = snap.tick;
    this.self = snap.self;
    this.playerCount = snap.playerCount;
    for (const id of snap.identities) this.identities.set(id.slot, { id: id.id, username: id.username, colorIndex: id.colorIndex });

    const present = new Set<number>();
    for (const rec of snap.snakes) {
      present.add(rec.slot);
      const body = this.rebuild(rec);
      const who = this.identities.get(rec.slot);
      this.snakes.set(rec.slot, {
        slot: rec.slot,
        id: who?.id ?? "",
        username: who?.username ?? "",
        color: COLORS[who?.colorIndex ?? 0] ?? COLORS[0],
        hp: rec.hp,
        protected: rec.protected,
        length: rec.length,
        body: body.map((p) => ({ x: p.x / POSITION_SCALE, y: p.y / POSITION_SCALE })),
      });
    }
    // A snake missing from a snapshot is out of view (or gone).
    for (const slot of [...this.snakes.keys()]) {
      if (present.has(slot)) continue;
      this.snakes.delete(slot);
      this.units.delete(slot);
    }

    for (const [id, b] of this.bullets) if (b.untilTick <= snap.tick) this.bullets.delete(id);
    for (const id of snap.removedBullets) this.bullets.delete(id);
    for (const b of snap.bullets) {
      const dir = unitOfAngle(b.angle);
      this.bullets.set(b.id, {
        id: b.id,
        ownerSlot: b.ownerSlot,
        x: b.x / POSITION_SCALE,
        y: b.y / POSITION_SCALE,
        vx: dir.x * BULLET_SPEED,
        vy: dir.y * BULLET_SPEED,
        fromTick: snap.tick,
        untilTick: snap.tick + b.ticksLeft,
      });
    }
    return snap;
  }

  /** Where a bullet is at (fractional) tick `tick`, or null once it has stopped or left the arena. */
  bulletAt(b: WorldBullet, tick: number): WorldPoint | null {
    if (tick > b.untilTick) return null;
    const t = (tick - b.fromTick) / TICK_RATE;
    const x = b.x + b.vx * t;
    const y = b.y + b.vy * t;
    if (x < 0 || x > this.arena.width || y < 0 || y > this.arena.height) return null;
    return { x, y };
  }

  private rebuild(rec: DecodedSnake): { x: number; y: number }[] {
    let body: { x: number; y: number }[];
    if (rec.full || !this.units.has(rec.slot)) {
      if (!rec.full) throw new SnapshotFormatError(`moves for snake slot ${rec.slot}, whose body this client does not have`);
      body = [{ x: rec.head!.x, y: rec.head!.y }];
      for (const s of rec.steps) body.push(follow(body[body.length - 1], s));
    } else {
      body = this.units.get(rec.slot)!;
      for (const s of rec.steps) body.unshift(follow(body[0], s));
    }
    if (body.length > rec.length) body.length = Math.max(1, rec.length);
    const tail = body[body.length - 1];
    while (body.length < rec.length) body.push({ x: tail.x, y: tail.y });
    this.units.set(rec.slot, body);
    return body;
  }
}

function follow(from: { x: number; y: number }, s: PointStep): { x: number; y: number } {
  return "absolute" in s ? { x: s.x, y: s.y } : { x: from.x + s.dx, y: from.y + s.dy };
}
