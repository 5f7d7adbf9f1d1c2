// Builds the SlitherRush snapshot test vectors (src/protocol/slitherrush-snapshot-vectors.json,
// shipped as `snakes-game-backend/protocol/slitherrush-snapshot-vectors.json`): sequences of
// `slitherrush_state` messages as one client receives them, made by the server's own encoder over a
// seeded arena, each with the decoded message and the world a client holds after applying it, and
// malformed messages with the refusal a decoder must give. A client author runs their decoder over
// it (docs/slitherrush.md, "Test vectors"). `npm run vectors:slitherrush` rewrites the file;
// test/unit/slitherrush/vectors.test.ts fails when it is not what the encoder produces now.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SlitherArena, type Snake } from "../src/game/slitherrush/arena.js";
import { MAX_LENGTH, TICKS_PER_SNAPSHOT } from "../src/game/slitherrush/constants.js";
import { SnapshotEncoder } from "../src/game/slitherrush/snapshotEncoder.js";
import { buildBody } from "../src/game/slitherrush/spawn.js";
import { MAX_ID_BYTES, MAX_NAME_BYTES, NO_SLOT, SNAPSHOT_VERSION } from "../src/game/slitherrush/wireFormat.js";
import { seededRng } from "../src/game/rng.js";
import { SlitherRushWorld, SnapshotFormatError, decodeSnapshot, type DecodedSnapshot } from "../src/protocol/slitherrushSnapshot.js";

export const VECTORS_PATH = fileURLToPath(new URL("../src/protocol/slitherrush-snapshot-vectors.json", import.meta.url));

export interface VectorFrame {
  hex: string;
  decoded: DecodedSnapshot;
  world: ReturnType<typeof worldJson>;
}
export interface Vector {
  name: string;
  covers: string;
  frames: VectorFrame[];
}
export interface MalformedVector {
  name: string;
  /** Messages applied first (valid), then `hex`, which must be refused with `error`. */
  before: string[];
  hex: string;
  error: string;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** What a client holds after a message: sorted, so any implementation can compare. */
function worldJson(world: SlitherRushWorld) {
  return {
    tick: world.tick,
    self: world.self,
    playerCount: world.playerCount,
    snakes: [...world.snakes.values()].sort((a, b) => a.slot - b.slot),
    bullets: [...world.bullets.values()].sort((a, b) => a.id - b.id),
  };
}

/** Straightens a snake at (x, y) heading (dx, dy), unprotected. */
function place(a: SlitherArena, snake: Snake, x: number, y: number, dx = 1, dy = 0): Snake {
  const len = Math.hypot(dx, dy);
  snake.dirX = dx / len;
  snake.dirY = dy / len;
  snake.body = buildBody({ x, y }, snake.dirX, snake.dirY, snake.length, a.size);
  snake.protectedUntil = a.tick - 1;
  snake.pendingHeading = null;
  return snake;
}

/** One viewer's messages over a scenario: `script` runs between snapshots. */
function record(name: string, covers: string, viewer: string, setup: (a: SlitherArena) => void, script: Array<(a: SlitherArena) => void>): Vector {
  const a = new SlitherArena({ rng: seededRng(43) });
  setup(a);
  const enc = new SnapshotEncoder(a);
  enc.addViewer(viewer);
  const world = new SlitherRushWorld();
  const frames: VectorFrame[] = [];
  const take = () => {
    let bytes: Uint8Array | undefined;
    enc.encode((id, b) => {
      if (id === viewer) bytes = b.slice();
    });
    const decoded = world.apply(bytes!);
    frames.push({ hex: hex(bytes!), decoded, world: JSON.parse(JSON.stringify(worldJson(world))) });
  };
  take();
  for (const step of script) {
    step(a);
    for (let i = 0; i < TICKS_PER_SNAPSHOT; i++) enc.noteHits(a.step().hits.map((h) => h.bulletId));
    take();
  }
  return { name, covers, frames };
}

const join = (a: SlitherArena, id: string, username = id) => {
  const s = a.addPlayer(id, { username });
  if (!s) throw new Error(`could not add ${id}`);
  return s;
};

export function buildVectors() {
  const vectors: Vector[] = [];

  vectors.push(
    record("empty-arena-spectator", "zero snakes; a receiver without a snake (self slot 255)", "nobody", () => {}, [() => {}]),
  );

  vectors.push(
    record(
      "join-and-move",
      "identities, full records, then move records (int8 delta pairs); two snakes; hp and protection flags",
      "me",
      (a) => {
        place(a, join(a, "me", "Mia"), 600, 600);
        const near = place(a, join(a, "near", "Noé ✓"), 900, 800, 0, 1);
        near.protectedUntil = 1000; // the protected flag
        near.hp = 2;
      },
      [
        (a) => a.setInput("me", { direction: { x: 0.6, y: 0.8 } }),
        (a) => a.setInput("near", { direction: { x: -1, y: 0 } }),
        () => {},
      ],
    ),
  );

  vectors.push(
    record(
      "absolute-points",
      "a head that jumps more than 12.7 px (an absolute point among the moves), a body across the arena's edges",
      "me",
      (a) => {
        place(a, join(a, "me"), 1000, 1000);
        place(a, join(a, "edge"), 1100, 1000, 0, -1);
      },
      [
        (a) => {
          // A jump beyond an int8 delta: the next move record carries an absolute point.
          const s = a.players.get("edge")!;
          s.body[0] = { x: s.body[0].x + 40, y: s.body[0].y };
        },
        () => {},
      ],
    ),
  );

  vectors.push(
    record(
      "shots-and-a-death",
      "bullets spawned (position, angle, ticks left), a hit (removed bullet), a death (score, deaths, respawn as a full record)",
      "victim",
      (a) => {
        place(a, join(a, "shooter", "Sho"), 1000, 1000, 1, 0);
        // Far enough that the bullet is in flight for a snapshot before it hits.
        const victim = place(a, join(a, "victim", "Vic"), 1150, 1000, -1, 0);
        victim.hp = 1;
      },
      [
        (a) => a.setInput("shooter", { shoot: true }),
        (a) => a.setInput("shooter", { shoot: false }),
        () => {},
        () => {},
      ],
    ),
  );

  vectors.push(
    record(
      "limits",
      "maximum id (64 B) and name (96 B, multi-byte UTF-8), maximum length, hp 3, counters clamped at 65535, tick and bullet id wrap-around",
      "max",
      (a) => {
        const longId = "i".repeat(MAX_ID_BYTES);
        const s = place(a, join(a, longId, "é".repeat(MAX_NAME_BYTES / 2)), 4000, 2500, -1, 0);
        s.length = MAX_LENGTH;
        s.body = buildBody({ x: 4000, y: 2500 }, -1, 0, MAX_LENGTH, a.size);
        s.score = 70_000;
        s.kills = 65_535;
        s.deaths = 65_536;
        s.hp = 3;
        const me = place(a, join(a, "max"), 3900, 2400, 1, 0);
        me.score = 70_000;
        me.kills = 100_000;
        me.deaths = 65_535;
        // The last ticks before the u32 tick wraps, and the last bullet id before the u16 id wraps.
        a.tick = 0xffff_ffff - 2;
        (a as unknown as { nextBulletId: number }).nextBulletId = 0xffff;
        s.lastFireTick = a.tick - 100;
        me.lastFireTick = a.tick - 100;
        me.protectedUntil = a.tick - 1;
        s.protectedUntil = a.tick - 1;
      },
      // Two shots, the fire cooldown apart: bullet ids 65535, then 0.
      [(a) => a.setInput("max", { shoot: true }), () => {}, () => {}, () => {}, (a) => a.setInput("max", { shoot: false })],
    ),
  );

  vectors.push(
    record(
      "corners",
      "positions at the quantisation limits: a head at (0, 0)",
      "corner",
      (a) => {
        const s = place(a, join(a, "corner"), 0, 0, 1, 0);
        s.body[0] = { x: 0, y: 0 };
      },
      [() => {}],
    ),
  );
  vectors.push(
    record(
      "far-corner",
      "positions at the quantisation limits: a head at the arena's far corner",
      "far",
      (a) => {
        const s = place(a, join(a, "far"), a.size.width, a.size.height, -1, 0);
        s.body[0] = { x: a.size.width, y: a.size.height };
      },
      [() => {}],
    ),
  );

  // Malformed messages, from a valid one.
  const base = Buffer.from(vectors[1].frames[0].hex, "hex");
  const moves = vectors[1].frames[1].hex;
  const withByte = (at: number, value: number) => {
    const b = Buffer.from(base);
    b[at] = value;
    return hex(b);
  };
  const refusal = (before: string[], h: string): string => {
    const world = new SlitherRushWorld();
    for (const m of before) world.apply(Buffer.from(m, "hex"));
    try {
      world.apply(Buffer.from(h, "hex"));
    } catch (err) {
      if (err instanceof SnapshotFormatError) return err.message;
      throw err;
    }
    throw new Error(`malformed vector ${h.slice(0, 16)}… was accepted`);
  };
  const malformed: MalformedVector[] = [
    { name: "empty", before: [], hex: "" },
    { name: "unknown-version", before: [], hex: withByte(0, SNAPSHOT_VERSION + 1) },
    { name: "truncated-header", before: [], hex: hex(base.subarray(0, 9)) },
    { name: "truncated-identity-text", before: [], hex: hex(base.subarray(0, 20)) },
    { name: "truncated-last-byte", before: [], hex: hex(base.subarray(0, base.length - 1)) },
    { name: "trailing-byte", before: [], hex: `${hex(base)}00` },
    { name: "moves-without-a-body", before: [], hex: moves },
  ].map((m) => ({ ...m, error: refusal(m.before, m.hex) }));
  // The refusal messages above come from the reference decoder; a fail-safe check that they are refusals.
  for (const m of malformed) if (!m.error) throw new Error(`no refusal for ${m.name}`);
  // decodeSnapshot alone accepts moves without a body: only the world refuses them.
  decodeSnapshot(Buffer.from(moves, "hex"));

  return {
    format: "slitherrush_state snapshot test vectors",
    snapshot_version: SNAPSHOT_VERSION,
    layout: "docs/slitherrush.md",
    notes: [
      "Each vector is the messages one client received, in order. Apply them to a fresh world one by one.",
      "decoded: the message as decodeSnapshot returns it (positions in tenths of a pixel, angles in 1/65536 turns).",
      "world: the client's world after the message: bodies in pixels head first, bullets with velocity in px/s, sorted by slot and id.",
      "malformed: apply `before`, then `hex` must be refused (the reference decoder's message is in `error`); the world is unchanged.",
      `self slot ${NO_SLOT} means the receiver has no snake.`,
    ],
    vectors,
    malformed,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(VECTORS_PATH, `${JSON.stringify(buildVectors(), null, 1)}\n`);
  console.log(`wrote ${VECTORS_PATH}`);
}
