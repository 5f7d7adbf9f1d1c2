import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { clampToLane, laneOf, MOVE_BUDGET_CAP, resolveMove } from "../../../src/game/pvp/movement.js";
import { PLAYER_RADIUS, WALL_LEFT, WALL_RIGHT } from "../../../src/game/pvp/constants.js";

const far = 10_000;

describe("lanes: each player's half of the 800 × 600 arena, radius 28", () => {
  it("keeps P1 left of the wall (x ≤ 366) and P2 right of it (x ≥ 434)", () => {
    expect(laneOf(1)).toEqual({ minX: 28, maxX: 366, minY: 28, maxY: 572 });
    expect(laneOf(2)).toEqual({ minX: 434, maxX: 772, minY: 28, maxY: 572 });
  });

  it("clamps to the arena edges and to the wall", () => {
    expect(clampToLane({ x: -50, y: -50 }, 1)).toEqual({ x: 28, y: 28 });
    expect(clampToLane({ x: 900, y: 900 }, 1)).toEqual({ x: 366, y: 572 });
    expect(clampToLane({ x: 0, y: 300 }, 2)).toEqual({ x: 434, y: 300 });
    expect(clampToLane({ x: 900, y: 650 }, 2)).toEqual({ x: 772, y: 572 });
    expect(clampToLane({ x: 200, y: 300 }, 1)).toEqual({ x: 200, y: 300 });
  });
});

describe("resolveMove", () => {
  it("stops a player at the wall, whichever side it pushes from", () => {
    expect(resolveMove({ number: 1, from: { x: 350, y: 300 }, to: { x: 420, y: 300 }, budget: 100 })).toMatchObject({ x: 366, y: 300, collided: false });
    expect(resolveMove({ number: 2, from: { x: 450, y: 300 }, to: { x: 380, y: 310 }, budget: 100 })).toMatchObject({ x: 434, y: 310 });
  });

  it("never lets a circle overlap the wall, whatever the requests (seeded fuzz)", () => {
    const rng = seededRng(7);
    for (const number of [1, 2] as const) {
      let p = { ...clampToLane({ x: number === 1 ? 100 : 700, y: 300 }, number) };
      const opponent = number === 1 ? { x: 434 + rng() * 300, y: rng() * 600 } : { x: 28 + rng() * 300, y: rng() * 600 };
      for (let i = 0; i < 5000; i++) {
        const to = { x: (rng() - 0.25) * 2000, y: (rng() - 0.25) * 1500 };
        p = resolveMove({ number, from: p, to, budget: rng() * 500, opponent });
        if (number === 1) expect(p.x + PLAYER_RADIUS).toBeLessThanOrEqual(WALL_LEFT);
        else expect(p.x - PLAYER_RADIUS).toBeGreaterThanOrEqual(WALL_RIGHT);
        expect(p.y).toBeGreaterThanOrEqual(28);
        expect(p.y).toBeLessThanOrEqual(572);
      }
    }
  });

  it("caps the step at the budget: one request cannot teleport", () => {
    const r = resolveMove({ number: 1, from: { x: 100, y: 300 }, to: { x: far, y: 300 }, budget: MOVE_BUDGET_CAP });
    expect(r).toMatchObject({ x: 100 + 112.5, y: 300, limited: true, spent: 112.5 });
    const diagonal = resolveMove({ number: 1, from: { x: 100, y: 100 }, to: { x: 400, y: 500 }, budget: 50 });
    expect(diagonal.x).toBeCloseTo(130, 9);
    expect(diagonal.y).toBeCloseTo(140, 9);
    expect(resolveMove({ number: 1, from: { x: 100, y: 100 }, to: { x: 130, y: 140 }, budget: 50 })).toMatchObject({ x: 130, y: 140, limited: false, spent: 50 });
    expect(resolveMove({ number: 2, from: { x: 600, y: 300 }, to: { x: 700, y: 300 }, budget: 0 })).toMatchObject({ x: 600, y: 300, limited: true, spent: 0 });
  });

  it("keeps 56 px from the opponent through the shared collision function", () => {
    const pushed = resolveMove({ number: 1, from: { x: 200, y: 300 }, to: { x: 280, y: 300 }, budget: 100, opponent: { x: 300, y: 300 } });
    expect(pushed).toMatchObject({ x: 244, y: 300, collided: true });
    const angled = resolveMove({ number: 1, from: { x: 200, y: 200 }, to: { x: 230, y: 260 }, budget: 100, opponent: { x: 250, y: 280 } });
    expect(Math.hypot(angled.x - 250, angled.y - 280)).toBeCloseTo(56, 9);
    expect(angled.collided).toBe(true);
    // The spec's coincident case: pushed 56 px to the right of the opponent.
    expect(resolveMove({ number: 2, from: { x: 500, y: 300 }, to: { x: 600, y: 300 }, budget: 200, opponent: { x: 600, y: 300 } })).toMatchObject({ x: 656, y: 300 });
    expect(resolveMove({ number: 1, from: { x: 100, y: 300 }, to: { x: 150, y: 300 }, budget: 100, opponent: { x: 300, y: 300 } }).collided).toBe(false);
  });

  it("lets the wall win over a push: a collision never moves a circle into the wall", () => {
    const r = resolveMove({ number: 1, from: { x: 300, y: 300 }, to: { x: 340, y: 300 }, budget: 100, opponent: { x: 340, y: 300 } });
    expect(r).toMatchObject({ x: 366, y: 300, collided: true });
  });
});
