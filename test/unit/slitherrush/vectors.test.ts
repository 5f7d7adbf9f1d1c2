// The SlitherRush snapshot test vectors shipped to client authors (src/protocol/slitherrush-snapshot-vectors.json,
// built by scripts/slitherrush-vectors.ts, docs/slitherrush.md "Test vectors"): the file is what the
// encoder produces now, the reference decoder passes every vector and refuses every malformed message
// without touching its world, and the vectors between them cover every field and the edge values.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_ID_BYTES, MAX_NAME_BYTES } from "../../../src/game/slitherrush/wireFormat.js";
import { MAX_LENGTH } from "../../../src/game/slitherrush/constants.js";
import { SlitherRushWorld, SnapshotFormatError, decodeSnapshot, type DecodedSnapshot } from "../../../src/protocol/slitherrushSnapshot.js";
import { VECTORS_PATH, buildVectors } from "../../../scripts/slitherrush-vectors.js";

const file = JSON.parse(readFileSync(VECTORS_PATH, "utf8")) as ReturnType<typeof buildVectors>;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));
const worldJson = (w: SlitherRushWorld) =>
  JSON.parse(
    JSON.stringify({
      tick: w.tick,
      self: w.self,
      playerCount: w.playerCount,
      snakes: [...w.snakes.values()].sort((a, b) => a.slot - b.slot),
      bullets: [...w.bullets.values()].sort((a, b) => a.id - b.id),
    }),
  );

describe("SlitherRush snapshot test vectors", () => {
  it("are what the encoder produces now (npm run vectors:slitherrush rewrites them)", () => {
    expect(file).toEqual(JSON.parse(JSON.stringify(buildVectors())));
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))("%s: every message decodes and builds the world as given", (_name, vector) => {
    const world = new SlitherRushWorld();
    for (const [i, frame] of vector.frames.entries()) {
      expect(JSON.parse(JSON.stringify(decodeSnapshot(bytes(frame.hex)))), `message ${i}`).toEqual(frame.decoded);
      world.apply(bytes(frame.hex));
      expect(worldJson(world), `world after message ${i}`).toEqual(frame.world);
    }
  });

  it.each(file.malformed.map((m) => [m.name, m] as const))("malformed %s: refused, the world unchanged", (_name, m) => {
    const world = new SlitherRushWorld();
    for (const h of m.before) world.apply(bytes(h));
    const before = worldJson(world);
    expect(() => world.apply(bytes(m.hex))).toThrow(SnapshotFormatError);
    expect(() => world.apply(bytes(m.hex))).toThrow(m.error);
    expect(worldJson(world)).toEqual(before);
  });

  it("cover every field and the edge values", () => {
    const all: DecodedSnapshot[] = file.vectors.flatMap((v) => v.frames.map((f) => f.decoded as DecodedSnapshot));
    const snakes = all.flatMap((s) => s.snakes);
    const bullets = all.flatMap((s) => s.bullets);
    const identities = all.flatMap((s) => s.identities);
    const steps = snakes.flatMap((s) => s.steps);
    expect(all.some((s) => s.snakes.length === 0 && s.self.slot === null)).toBe(true); // zero snakes, no self
    expect(snakes.some((s) => s.full) && snakes.some((s) => !s.full)).toBe(true);
    expect(steps.some((p) => "absolute" in p) && steps.some((p) => "dx" in p)).toBe(true);
    expect(new Set(snakes.map((s) => s.hp))).toEqual(new Set([1, 2, 3]));
    expect(snakes.some((s) => s.protected) && snakes.some((s) => !s.protected)).toBe(true);
    expect(snakes.some((s) => s.length === MAX_LENGTH)).toBe(true);
    expect(snakes.some((s) => s.head?.x === 0 && s.head.y === 0) && snakes.some((s) => s.head?.x === 44000 && s.head.y === 28000)).toBe(true);
    expect(identities.some((i) => Buffer.byteLength(i.id) === MAX_ID_BYTES)).toBe(true);
    expect(identities.some((i) => Buffer.byteLength(i.username) === MAX_NAME_BYTES && /[^\x00-\x7f]/.test(i.username))).toBe(true);
    expect(new Set(identities.map((i) => i.colorIndex)).size).toBeGreaterThan(1);
    expect(bullets.map((b) => b.id)).toEqual(expect.arrayContaining([0, 65535])); // the u16 id wraps
    expect(bullets.every((b) => b.ticksLeft > 0 && b.angle >= 0 && b.angle < 65536)).toBe(true);
    expect(all.some((s) => s.removedBullets.length > 0)).toBe(true);
    expect(all.some((s) => s.self.deaths > 0)).toBe(true); // a death
    expect(all.some((s) => s.self.score === 65535 && s.self.kills === 65535)).toBe(true); // clamped counters
    const ticks = file.vectors.find((v) => v.name === "limits")!.frames.map((f) => f.decoded.tick);
    expect(ticks).toContain(0xffff_ffff);
    expect(ticks.at(-1)).toBeLessThan(ticks[0]); // the u32 tick wraps
    expect(all.some((s) => s.self.rank > 0 && s.playerCount > 0)).toBe(true);
  });
});
