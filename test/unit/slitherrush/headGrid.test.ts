import { describe, expect, it } from "vitest";
import { HeadGrid } from "../../../src/game/slitherrush/headGrid.js";
import { seededRng } from "../../../src/game/rng.js";

describe("HeadGrid", () => {
  it("finds every head a brute-force scan of the box finds (and only nearby ones)", () => {
    const rng = seededRng(5);
    const grid = new HeadGrid(4400, 2800, 64, 32);
    const heads = Array.from({ length: 32 }, (_, slot) => ({ slot, x: rng() * 4400, y: rng() * 2800 }));
    for (const h of heads) grid.insert(h.slot, h.x, h.y);
    const out = new Int32Array(32);
    for (let q = 0; q < 500; q++) {
      const x = rng() * 4400;
      const y = rng() * 2800;
      const box = { minX: x - 40, minY: y - 40, maxX: x + 40, maxY: y + 40 };
      const n = grid.query(box.minX, box.minY, box.maxX, box.maxY, out);
      const found = new Set(out.subarray(0, n));
      for (const h of heads) {
        if (h.x >= box.minX && h.x <= box.maxX && h.y >= box.minY && h.y <= box.maxY) expect(found.has(h.slot)).toBe(true);
      }
      // Only the cells the box touches: at most a 3×3 block of 64 px cells for an 80 px box.
      for (const slot of found) {
        const h = heads[slot];
        expect(Math.abs(h.x - x)).toBeLessThan(40 + 64);
        expect(Math.abs(h.y - y)).toBeLessThan(40 + 64);
      }
    }
  });

  it("empties on clear and clamps queries outside the arena", () => {
    const grid = new HeadGrid(200, 200, 64, 4);
    grid.insert(3, 5, 5);
    const out = new Int32Array(4);
    expect(grid.query(-500, -500, -400, -400, out)).toBe(1);
    grid.clear();
    expect(grid.size).toBe(0);
    expect(grid.query(0, 0, 200, 200, out)).toBe(0);
  });
});
