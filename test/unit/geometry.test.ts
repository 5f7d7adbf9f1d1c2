import { describe, expect, it } from "vitest";
import { pushApart, resolveCollision } from "../../src/game/geometry.js";

describe("resolveCollision (the spec's table)", () => {
  it("d < 0.001: places the point min_dist to the right of the other point, keeping desired y", () => {
    expect(resolveCollision(300, 400, 300, 400, 70)).toEqual({ x: 370, y: 400, collided: true });
    expect(resolveCollision(300.0004, 400.0002, 300, 400, 56)).toEqual({ x: 356, y: 400.0002, collided: true });
  });

  it("d >= min_dist: returns the desired point unchanged", () => {
    expect(resolveCollision(370, 400, 300, 400, 70)).toEqual({ x: 370, y: 400, collided: false });
    expect(resolveCollision(500, 100, 300, 400, 70)).toEqual({ x: 500, y: 100, collided: false });
  });

  it("otherwise: pushes the desired point away along the unit vector by (min_dist − d)", () => {
    // d = 30 along +x: pushed by 40 to x = 370.
    expect(resolveCollision(330, 400, 300, 400, 70)).toEqual({ x: 370, y: 400, collided: true });
    // d = 50 along (3,4)/5: pushed by 20 to (342, 456), exactly 70 away.
    const r = resolveCollision(330, 440, 300, 400, 70);
    expect(r.collided).toBe(true);
    expect(r.x).toBeCloseTo(342, 10);
    expect(r.y).toBeCloseTo(456, 10);
    expect(Math.hypot(r.x - 300, r.y - 400)).toBeCloseTo(70, 10);
    // PvP minimum distance 56, pushing to the left.
    const pvp = resolveCollision(390, 300, 400, 300, 56);
    expect(pvp).toEqual({ x: 344, y: 300, collided: true });
  });
});

describe("pushApart (resolveCollision into a reused result)", () => {
  it("gives exactly resolveCollision's answer in every case, overwriting what the result held", () => {
    const out = { x: -1, y: -1, collided: true };
    const cases: Array<[number, number, number, number, number]> = [
      [300, 400, 300, 400, 70],
      [300.0004, 400.0002, 300, 400, 56],
      [370, 400, 300, 400, 70],
      [330, 420, 300, 400, 70],
      [299.9, 350, 300, 400, 56],
    ];
    for (const c of cases) {
      expect(pushApart(...c, out)).toBe(out);
      expect({ ...out }).toEqual(resolveCollision(...c));
    }
  });
});
