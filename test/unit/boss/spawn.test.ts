import { describe, expect, it } from "vitest";
import { seededRng, type Rng } from "../../../src/game/rng.js";
import { allocateSpawn, isClearSpawn, spawnArea } from "../../../src/game/boss/spawn.js";
import { BOSS_HOME, SPAWN_ATTEMPTS } from "../../../src/game/boss/constants.js";

const counting = (inner: Rng) => {
  const rng = Object.assign(() => {
    rng.calls++;
    return inner();
  }, { calls: 0 });
  return rng;
};

describe("spawn area and clearance", () => {
  it("is x ∈ [59, 1041], y ∈ [260, 541] in the 1100×600 arena with top 200", () => {
    expect(spawnArea()).toEqual({ minX: 59, maxX: 1041, minY: 260, maxY: 541 });
    expect(spawnArea({ width: 1100, height: 600, top: 300 }).minY).toBe(335);
  });

  it("needs ≥ 76 px from every player and ≥ 117 px from the boss", () => {
    expect(isClearSpawn({ x: 300, y: 300 }, [{ x: 376, y: 300 }], BOSS_HOME)).toBe(true);
    expect(isClearSpawn({ x: 300, y: 300 }, [{ x: 375.9, y: 300 }], BOSS_HOME)).toBe(false);
    expect(isClearSpawn({ x: 550, y: 227 }, [], BOSS_HOME)).toBe(true);
    expect(isClearSpawn({ x: 550, y: 226 }, [], BOSS_HOME)).toBe(false);
  });
});

describe("allocateSpawn", () => {
  it("takes a random sample inside the area when the room is empty (deterministic with a seeded RNG)", () => {
    const a = allocateSpawn([], seededRng(7));
    const b = allocateSpawn([], seededRng(7));
    expect(a).toEqual(b);
    expect(a.method).toBe("sample");
    const area = spawnArea();
    expect(a.x).toBeGreaterThanOrEqual(area.minX);
    expect(a.x).toBeLessThanOrEqual(area.maxX);
    expect(a.y).toBeGreaterThanOrEqual(area.minY);
    expect(a.y).toBeLessThanOrEqual(area.maxY);
  });

  it("places ten players all clear of each other", () => {
    const rng = seededRng(42);
    const placed: { x: number; y: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const p = allocateSpawn(placed, rng);
      expect(isClearSpawn(p, placed, BOSS_HOME)).toBe(true);
      placed.push(p);
    }
  });

  it("falls back to the grid scan after 80 unlucky samples, scanning rows from the top-left", () => {
    // Every sample lands on (59, 260) (rng 0), which a player occupies; the grid then finds the first clear cell.
    const rng = counting(() => 0);
    const spot = allocateSpawn([{ x: 59, y: 260 }], rng);
    expect(rng.calls).toBe(SPAWN_ATTEMPTS * 2);
    expect(spot).toEqual({ x: 59 + 140, y: 260, method: "grid" });
  });

  it("falls back to (400, 500) clamped when nothing is clear", () => {
    const crowd: { x: number; y: number }[] = [];
    for (let y = 230; y <= 580; y += 40) for (let x = 20; x <= 1080; x += 40) crowd.push({ x, y });
    expect(allocateSpawn(crowd, seededRng(1))).toEqual({ x: 400, y: 500, method: "fallback" });
    expect(allocateSpawn(crowd, seededRng(1), { fallback: { x: 5000, y: -3 } })).toEqual({ x: 1041, y: 260, method: "fallback" });
  });

  it("keeps clear of the live boss position", () => {
    const boss = { x: 300, y: 400 };
    const rng = seededRng(3);
    for (let i = 0; i < 200; i++) {
      const p = allocateSpawn([], rng, { boss });
      expect(Math.hypot(p.x - boss.x, p.y - boss.y)).toBeGreaterThanOrEqual(117);
    }
  });
});
