import { describe, expect, it } from "vitest";
import { BOSS_BOUNDS, PLAYER_MAX_SPEED, MOVE_BURST_SECONDS } from "../../../src/game/boss/constants.js";
import { clampToArena, limitStep, moveBudgetCap, resolveMove } from "../../../src/game/boss/movement.js";

const FULL = 10_000;

describe("clampToArena (rule 2)", () => {
  it("clamps x to [35, 1065] and y to [235, 565]", () => {
    expect(clampToArena(0, 0)).toEqual({ x: 35, y: 235 });
    expect(clampToArena(2000, 900)).toEqual({ x: 1065, y: 565 });
    expect(clampToArena(500, 400)).toEqual({ x: 500, y: 400 });
    expect(clampToArena(-1e9, 1e9, BOSS_BOUNDS)).toEqual({ x: 35, y: 565 });
  });
});

describe("limitStep (speed cap)", () => {
  it("keeps short steps and cuts long ones along the same direction", () => {
    expect(limitStep({ x: 0, y: 0 }, { x: 30, y: 40 }, 100)).toEqual({ x: 30, y: 40, limited: false, distance: 50 });
    expect(limitStep({ x: 0, y: 0 }, { x: 300, y: 400 }, 100)).toEqual({ x: 60, y: 80, limited: true, distance: 100 });
    expect(limitStep({ x: 5, y: 5 }, { x: 500, y: 5 }, 0)).toEqual({ x: 5, y: 5, limited: true, distance: 0 });
  });

  it("banks at most a quarter second of top speed", () => {
    expect(moveBudgetCap()).toBe(PLAYER_MAX_SPEED * MOVE_BURST_SECONDS);
    expect(moveBudgetCap(1.5)).toBe(PLAYER_MAX_SPEED * 1.5 * MOVE_BURST_SECONDS);
  });
});

describe("resolveMove (rules 2–4 with the speed cap)", () => {
  it("clamps, then pushes out of each other player in order, then clamps again", () => {
    expect(resolveMove({ from: { x: 60, y: 400 }, to: { x: 10, y: 400 }, budget: FULL, others: [] })).toMatchObject({ x: 35, y: 400, collided: false });
    // Other player at (560, 400): desired (530, 400) is 30 away → pushed to 490.
    expect(resolveMove({ from: { x: 500, y: 400 }, to: { x: 530, y: 400 }, budget: FULL, others: [{ x: 560, y: 400 }] })).toMatchObject({
      x: 490,
      y: 400,
      collided: true,
    });
    // The result of one collision feeds the next: pushed left by B, then up... by C.
    const r = resolveMove({
      from: { x: 400, y: 400 },
      to: { x: 520, y: 400 },
      budget: FULL,
      others: [
        { x: 560, y: 400 },
        { x: 490, y: 440 },
      ],
    });
    // After B: (490, 400); C at (490, 440) is 40 away straight below → pushed up to y = 370.
    expect(r).toMatchObject({ x: 490, y: 370, collided: true });
    // A push past the wall is clamped back inside.
    expect(resolveMove({ from: { x: 60, y: 400 }, to: { x: 40, y: 400 }, budget: FULL, others: [{ x: 60, y: 400 }] })).toMatchObject({ x: 35, y: 400 });
  });

  it("coincident points go to other.x + 70", () => {
    expect(resolveMove({ from: { x: 300, y: 400 }, to: { x: 400, y: 400 }, budget: FULL, others: [{ x: 400, y: 400 }] })).toMatchObject({ x: 470, y: 400, collided: true });
  });

  it("never ends closer than 70 px to another player, even when the clamp undoes a push in a corner", () => {
    // A in the bottom-right corner, B 70 px to its left; B rested 0.2 s (84 px banked) and asks for A's spot.
    const a = { x: 1065, y: 565 };
    const b = { x: 995, y: 565 };
    const r = resolveMove({ from: b, to: a, budget: PLAYER_MAX_SPEED * 0.2, others: [a] });
    expect(Math.hypot(r.x - a.x, r.y - a.y)).toBeGreaterThanOrEqual(70);
    expect(r).toMatchObject({ x: 995, y: 565, collided: true, spent: 0 });
    // Along the bottom wall towards a player at the wall: pushed down past it, clamped back up.
    const c = { x: 500, y: 565 };
    const s = resolveMove({ from: { x: 500, y: 480 }, to: { x: 500, y: 560 }, budget: FULL, others: [c] });
    expect(Math.hypot(s.x - c.x, s.y - c.y)).toBeGreaterThanOrEqual(70 - 1e-6);
  });

  it("never moves further than the budget: a teleport gains nothing", () => {
    const r = resolveMove({ from: { x: 100, y: 400 }, to: { x: 1000, y: 400 }, budget: 105, others: [] });
    expect(r).toMatchObject({ x: 205, y: 400, limited: true, spent: 105 });
  });
});
