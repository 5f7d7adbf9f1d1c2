import { describe, expect, it } from "vitest";
import { SlitherArena } from "../../../src/game/slitherrush/arena.js";
import { MAX_PLAYERS, TICKS_PER_SNAPSHOT, TICK_RATE } from "../../../src/game/slitherrush/constants.js";
import { SNAKE_MARGIN, SNAKE_KEEP_MARGIN, VIEW_HEIGHT, VIEW_WIDTH, bulletInInterest, snakeInInterest, boxOf } from "../../../src/game/slitherrush/interest.js";
import { SnapshotEncoder } from "../../../src/game/slitherrush/snapshotEncoder.js";
import { seededRng } from "../../../src/game/rng.js";
import { SlitherRushWorld, SnapshotFormatError, decodeSnapshot, type DecodedSnapshot } from "../../../src/protocol/slitherrushSnapshot.js";
import { arena, join, place } from "./helpers.js";

/** Runs the encoder for every viewer and returns a copy of each one's bytes. */
function encodeAll(enc: SnapshotEncoder): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  enc.encode((id, bytes) => out.set(id, bytes.slice()));
  return out;
}

function stepAndNote(a: SlitherArena, enc: SnapshotEncoder, ticks = TICKS_PER_SNAPSHOT) {
  for (let i = 0; i < ticks; i++) enc.noteHits(a.step().hits.map((h) => h.bulletId));
}

describe("interest", () => {
  it("includes a snake whose body comes within the margin of the view, keeps it a little longer", () => {
    const viewer = { x: 2000, y: 1400 };
    const edge = 2000 + VIEW_WIDTH / 2;
    const body = (x: number) => boxOf([{ x, y: 1400 }, { x: x + 100, y: 1400 }]);
    expect(snakeInInterest(viewer, body(edge + SNAKE_MARGIN - 1), false)).toBe(true);
    expect(snakeInInterest(viewer, body(edge + SNAKE_MARGIN + 1), false)).toBe(false);
    expect(snakeInInterest(viewer, body(edge + SNAKE_MARGIN + 1), true)).toBe(true);
    expect(snakeInInterest(viewer, body(edge + SNAKE_KEEP_MARGIN + 1), true)).toBe(false);
    expect(snakeInInterest(viewer, boxOf([{ x: 2000, y: 1400 + VIEW_HEIGHT }]), false)).toBe(false);
  });

  it("sends bullets near the view only", () => {
    expect(bulletInInterest({ x: 1000, y: 1000 }, { x: 1500, y: 1200 })).toBe(true);
    expect(bulletInInterest({ x: 1000, y: 1000 }, { x: 3000, y: 1200 })).toBe(false);
  });

  it("gives a client the snakes near it and not the far ones, and drops a snake that leaves", () => {
    const a = arena();
    const me = place(a, join(a, "me"), 600, 600);
    const near = place(a, join(a, "near"), 900, 800);
    const far = place(a, join(a, "far"), 3800, 2400);
    const enc = new SnapshotEncoder(a);
    enc.addViewer("me");
    const world = new SlitherRushWorld();
    world.apply(encodeAll(enc).get("me")!);
    const ids = () => [...world.snakes.values()].map((s) => s.id).sort();
    expect(ids()).toEqual(["me", "near"]);
    expect(world.self.slot).toBe(me.slot);
    place(a, near, 3900, 2500);
    place(a, far, 700, 700);
    stepAndNote(a, enc);
    world.apply(encodeAll(enc).get("me")!);
    expect(ids()).toEqual(["far", "me"]);
  });
});

/** Largest coordinate difference over the first `n` points of two bodies. */
function bodyError(client: readonly { x: number; y: number }[], server: readonly { x: number; y: number }[], n: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(client[i].x - server[i].x), Math.abs(client[i].y - server[i].y));
  return worst;
}

describe("snapshot encoder and decoder", () => {
  function busyArena(seed: number, shooting: boolean) {
    const a = new SlitherArena({ rng: seededRng(seed) });
    const enc = new SnapshotEncoder(a);
    const worlds = new Map<string, SlitherRushWorld>();
    for (let i = 0; i < MAX_PLAYERS; i++) {
      join(a, `p${i}`, `player ${i} ✓`);
      enc.addViewer(`p${i}`);
      worlds.set(`p${i}`, new SlitherRushWorld());
    }
    const rng = seededRng(seed + 1);
    const drive = () => {
      for (let i = 0; i < MAX_PLAYERS; i++) {
        if (rng() < 0.2) a.setInput(`p${i}`, { direction: { x: rng() - 0.5, y: rng() - 0.5 }, shoot: shooting && rng() < 0.5 });
      }
    };
    return { a, enc, worlds, drive };
  }

  it("lets every client rebuild the bodies of the snakes it sees (to 0.05 px), from moves alone", () => {
    const { a, enc, worlds, drive } = busyArena(11, false);
    let fullRecords = 0;
    let moveRecords = 0;
    let mismatches = 0;
    let worst = 0;
    for (let s = 0; s < 90; s++) {
      drive();
      stepAndNote(a, enc);
      for (const [id, bytes] of encodeAll(enc)) {
        const snap = worlds.get(id)!.apply(bytes);
        for (const rec of snap.snakes) (rec.full ? fullRecords++ : moveRecords++);
        for (const ws of worlds.get(id)!.snakes.values()) {
          const server = a.slots[ws.slot]!;
          if (ws.id !== server.id || ws.username !== server.username || ws.body.length !== server.body.length) mismatches++;
          worst = Math.max(worst, bodyError(ws.body, server.body, server.body.length));
        }
      }
    }
    expect(mismatches).toBe(0);
    expect(worst).toBeLessThanOrEqual(0.05 + 1e-9);
    // After the first snapshots nearly everything travels as moves.
    expect(moveRecords).toBeGreaterThan(fullRecords * 10);
  });

  it("keeps heads exact and bodies exact up to the growing tail while snakes kill and respawn", () => {
    const { a, enc, worlds, drive } = busyArena(12, true);
    let deaths = 0;
    let mismatches = 0;
    let worst = 0;
    for (let s = 0; s < 300; s++) {
      drive();
      for (let i = 0; i < TICKS_PER_SNAPSHOT; i++) {
        const e = a.step();
        deaths += e.deaths.length;
        enc.noteHits(e.hits.map((h) => h.bulletId));
      }
      for (const [id, bytes] of encodeAll(enc)) {
        const world = worlds.get(id)!;
        world.apply(bytes);
        for (const ws of world.snakes.values()) {
          const server = a.slots[ws.slot]!;
          if (ws.length !== server.length || ws.body.length !== server.length) mismatches++;
          // A snake that just grew is padded differently for one snapshot: compare what both have.
          worst = Math.max(worst, bodyError(ws.body, server.body, server.body.length - 2));
        }
        const self = a.players.get(id)!;
        const mine = world.self;
        if (mine.slot !== self.slot || mine.score !== self.score || mine.kills !== self.kills || mine.deaths !== self.deaths || mine.length !== self.length || mine.hp !== self.hp) {
          mismatches++;
        }
      }
    }
    expect(deaths).toBeGreaterThan(0);
    expect(mismatches).toBe(0);
    expect(worst).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it("sends each bullet once; clients fly it where the server does and drop it when it hits", () => {
    const a = arena();
    const shooter = place(a, join(a, "shooter"), 1000, 1000, 1, 0);
    const target = place(a, join(a, "target"), 1400, 1000, -1, 0);
    const enc = new SnapshotEncoder(a);
    enc.addViewer("shooter");
    const world = new SlitherRushWorld();
    a.setInput("shooter", { shoot: true });
    stepAndNote(a, enc, 1);
    a.setInput("shooter", { shoot: false });
    let snap: DecodedSnapshot = world.apply(encodeAll(enc).get("shooter")!);
    expect(snap.bullets).toHaveLength(1);
    const bullet = world.bullets.get(snap.bullets[0].id)!;
    expect(bullet.ownerSlot).toBe(shooter.slot);
    const server = a.bullets[0];
    stepAndNote(a, enc, 2);
    const flown = world.bulletAt(bullet, a.tick)!;
    expect(Math.abs(flown.x - server.x)).toBeLessThan(0.1);
    expect(Math.abs(flown.y - server.y)).toBeLessThan(0.1);
    snap = world.apply(encodeAll(enc).get("shooter")!);
    expect(snap.bullets).toHaveLength(0); // not sent again
    // Keep the target on the bullet's line until it is hit.
    let hit = false;
    for (let t = 0; t < 20 && !hit; t++) {
      const e = a.step();
      enc.noteHits(e.hits.map((h) => h.bulletId));
      hit = e.hits.length > 0;
      if (!hit) target.body[0].y = 1000;
    }
    expect(hit).toBe(true);
    snap = world.apply(encodeAll(enc).get("shooter")!);
    expect(snap.removedBullets).toEqual([bullet.id]);
    expect(world.bullets.size).toBe(0);
  });

  it("re-sends everything in full after a resync (play again)", () => {
    const a = arena();
    place(a, join(a, "me"), 600, 600);
    place(a, join(a, "you"), 700, 700);
    const enc = new SnapshotEncoder(a);
    enc.addViewer("me");
    decodeSnapshot(encodeAll(enc).get("me")!);
    stepAndNote(a, enc);
    const moves = decodeSnapshot(encodeAll(enc).get("me")!);
    expect(moves.snakes.map((s) => s.full)).toEqual([false, false]);
    expect(moves.identities).toEqual([]);
    expect(moves.snakes[0].steps).toHaveLength(TICKS_PER_SNAPSHOT);
    enc.resync("me");
    stepAndNote(a, enc);
    const full = decodeSnapshot(encodeAll(enc).get("me")!);
    expect(full.snakes.map((s) => s.full)).toEqual([true, true]);
    expect(full.identities.map((i) => i.id)).toEqual(["me", "you"]);
  });

  it("stays far below 14 KB/s per client with 32 snakes shooting", () => {
    const { a, enc, drive } = busyArena(13, true);
    let bytes = 0;
    let biggest = 0;
    const snapshots = 15 * 20;
    for (let s = 0; s < snapshots; s++) {
      drive();
      stepAndNote(a, enc);
      enc.encode((_id, b) => {
        bytes += b.length;
        biggest = Math.max(biggest, b.length);
      });
    }
    const perClientPerSecond = bytes / MAX_PLAYERS / (snapshots / (TICK_RATE / TICKS_PER_SNAPSHOT));
    expect(perClientPerSecond).toBeLessThan(14 * 1024 * 0.5);
    expect(biggest).toBeLessThan(8 * 1024);
  });

  it("rejects malformed snapshots with a clear error", () => {
    const a = arena();
    join(a, "me");
    const enc = new SnapshotEncoder(a);
    enc.addViewer("me");
    const bytes = encodeAll(enc).get("me")!;
    expect(() => decodeSnapshot(bytes.subarray(0, bytes.length - 3))).toThrow(SnapshotFormatError);
    expect(() => decodeSnapshot(new Uint8Array([...bytes, 0]))).toThrow(/trailing/);
    expect(() => decodeSnapshot(new Uint8Array([9, ...bytes.subarray(1)]))).toThrow(/version 9/);
    expect(() => new SlitherRushWorld().apply(new Uint8Array(0))).toThrow(SnapshotFormatError);
  });

  it("writes identities once per occupant, cutting long names at a character boundary", () => {
    const a = arena();
    a.addPlayer("me", { username: "é".repeat(80) });
    const enc = new SnapshotEncoder(a);
    enc.addViewer("me");
    const first = decodeSnapshot(encodeAll(enc).get("me")!);
    expect(first.identities[0].username).toBe("é".repeat(48));
    stepAndNote(a, enc);
    expect(decodeSnapshot(encodeAll(enc).get("me")!).identities).toEqual([]);
  });
});
