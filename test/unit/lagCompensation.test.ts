// The hit decision with a rewound history: a shooter whose view lags the server aims exactly where
// its view shows the target; compensated, it hits as often as a shooter with no lag, uncompensated
// it misses. Pure and seeded: the history is recorded from the simulation itself.
import { describe, expect, it } from "vitest";
import { clampLag, MAX_REWIND_MS, shotLag, type PastPositions } from "../../src/game/lagCompensation.js";
import { PvpArena } from "../../src/game/pvp/simulation.js";
import { laneOf } from "../../src/game/pvp/movement.js";
import { PLAYER_MAX_SPEED } from "../../src/game/pvp/constants.js";
import { BOSS_TARGET_ID, BossBattle } from "../../src/game/boss/simulation.js";
import { randomBetween, seededRng, type Rng } from "../../src/game/rng.js";
import type { Point } from "../../src/game/geometry.js";

/** Positions recorded once per tick, read back linearly interpolated (what the room's Rewind does). */
class RecordedHistory implements PastPositions {
  private readonly samples = new Map<string, Array<{ t: number } & Point>>();
  constructor(private readonly clock: () => number) {}
  record(id: string, p: Point): void {
    const list = this.samples.get(id) ?? [];
    list.push({ t: this.clock(), x: p.x, y: p.y });
    this.samples.set(id, list);
  }
  /** Where `id` was at time `t` (clamped to what was recorded). */
  atTime(id: string, t: number): Point | undefined {
    const list = this.samples.get(id);
    if (!list?.length) return undefined;
    if (t <= list[0].t) return list[0];
    for (let i = 1; i < list.length; i++) {
      const b = list[i];
      if (b.t >= t) {
        const a = list[i - 1];
        const f = (t - a.t) / (b.t - a.t);
        return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
      }
    }
    return list[list.length - 1];
  }
  at(id: string, lagMs: number): Point | undefined {
    return this.atTime(id, this.clock() - lagMs);
  }
}

/** A target path: stop and go, at full speed to a random point near the wall, then a pause of 0.3–0.9 s. */
function wanderer(rng: Rng, lane: ReturnType<typeof laneOf>) {
  let goal: Point | null = null;
  let restUntil = 0;
  return (now: number, from: Point): Point => {
    if (goal && Math.hypot(goal.x - from.x, goal.y - from.y) < 1) {
      goal = null;
      restUntil = now + randomBetween(rng, 300, 900);
    }
    if (!goal && now >= restUntil) goal = { x: randomBetween(rng, lane.minX, Math.min(lane.maxX, lane.minX + 220)), y: randomBetween(rng, lane.minY + 60, lane.maxY - 60) };
    return goal ?? from;
  };
}

const TICK_MS = 1000 / 30;

/**
 * Shooter "a" (P1) fires at the rate cap, aimed exactly at where its view shows "b" (P2): b's
 * position `viewLagMs` ago (no lead). b moves on a seeded stop-and-go path. Returns hits per shot.
 */
function duel(seed: number, viewLagMs: number, compensated: boolean, seconds = 30): number {
  const rng = seededRng(seed);
  const arena = new PvpArena({ rng: seededRng(seed + 1) });
  arena.join("a", { username: "a", character: "knight", bullets: 10_000 });
  arena.join("b", { username: "b", character: "knight", bullets: 10_000 });
  arena.ready("a");
  arena.ready("b");
  const history = new RecordedHistory(() => arena.now);
  arena.past = history;
  const path = wanderer(rng, laneOf(2));
  const b = arena.players.get("b")!;
  const a = arena.players.get("a")!;
  a.x = 330; // at the wall, so that flight time does not swamp the view's lag
  let shots = 0;
  let hits = 0;
  history.record("b", b);
  for (let t = 0; t < seconds * 1000; t += TICK_MS) {
    const goal = path(arena.now, b);
    const step = Math.min(1, (PLAYER_MAX_SPEED * TICK_MS) / 1000 / Math.max(1e-9, Math.hypot(goal.x - b.x, goal.y - b.y)));
    arena.move("b", b.x + (goal.x - b.x) * step, b.y + (goal.y - b.y) * step);
    const seen = history.atTime("b", arena.now - viewLagMs)!;
    if (a.fireCharge >= 1) {
      const shot = arena.shoot("a", seen.x - a.x, seen.y - a.y, compensated ? viewLagMs : 0);
      if (shot.ok) shots++;
    }
    for (const e of arena.step(TICK_MS)) if (e.type === "player_hit") hits++;
    b.lives = 5; // nobody is knocked out: the battle goes on for the whole measurement
    history.record("b", b);
  }
  return hits / shots;
}

describe("shotLag / clampLag: the rewind cap", () => {
  it("takes the shooter's view age within [0, cap]", () => {
    expect(shotLag(10_000, 9_800)).toBe(200);
    expect(shotLag(10_000, 10_000)).toBe(0);
    expect(shotLag(10_000, 9_800, 150)).toBe(150);
  });

  it("clamps a forged stamp: far past to the cap, future / missing / NaN to live", () => {
    expect(shotLag(10_000, 1)).toBe(MAX_REWIND_MS);
    expect(shotLag(10_000, -5_000)).toBe(0);
    expect(shotLag(10_000, 0)).toBe(0);
    expect(shotLag(10_000, 20_000)).toBe(0);
    expect(shotLag(10_000, Number.NaN)).toBe(0);
    expect(shotLag(10_000, Number.POSITIVE_INFINITY)).toBe(0);
    expect(shotLag(Number.NaN, 9_000)).toBe(0);
    expect(clampLag(Number.NaN)).toBe(0);
    expect(clampLag(-1)).toBe(0);
    expect(clampLag(1e12)).toBe(MAX_REWIND_MS);
    expect(clampLag(Number.POSITIVE_INFINITY)).toBe(0);
  });
});

describe("PvP bullets against the rewound opponent", () => {
  const seeds = [11, 12];
  const rate = (lag: number, compensated: boolean) => seeds.reduce((s, seed) => s + duel(seed, lag, compensated), 0) / seeds.length;

  it("a shooter 300 ms behind hits as often as one with no lag when compensated, far less when not", () => {
    const base = rate(0, true);
    const on = rate(300, true);
    const off = rate(300, false);
    expect(base).toBeGreaterThan(0.5);
    expect(on).toBeGreaterThanOrEqual(0.9 * base);
    expect(off).toBeLessThan(0.75 * base);
  });

  it("a view older than the cap is judged at the cap: the extra lag is the shooter's to lead", () => {
    const atCap = rate(MAX_REWIND_MS, true);
    const beyond = rate(MAX_REWIND_MS + 400, true);
    expect(atCap).toBeGreaterThanOrEqual(0.9 * rate(0, true));
    expect(beyond).toBeLessThan(0.75 * atCap);
  });

  it("clamps the bullet's lag: forged values change nothing beyond the cap, nor before the battle", () => {
    const arena = new PvpArena({ rng: seededRng(3) });
    arena.join("a", { username: "a", character: "knight", bullets: 10 });
    arena.join("b", { username: "b", character: "knight", bullets: 10 });
    arena.ready("a");
    arena.ready("b");
    const lagOf = (lag: number) => {
      const shot = arena.shoot("a", 1, 0, lag);
      if (!shot.ok) throw new Error(shot.error);
      arena.step(500); // refills the fire rate
      return shot.bullet.lagMs;
    };
    expect(lagOf(200)).toBe(0); // the battle has just started: there is no past to rewind to
    arena.step(1000);
    expect(lagOf(200)).toBe(200);
    expect(lagOf(1e9)).toBe(MAX_REWIND_MS);
    expect(lagOf(Number.NaN)).toBe(0);
    expect(lagOf(-50)).toBe(0);
  });

  it("asks the history only for the opponent, never for the shooter", () => {
    const arena = new PvpArena({ rng: seededRng(4) });
    arena.join("a", { username: "a", character: "knight", bullets: 10 });
    arena.join("b", { username: "b", character: "knight", bullets: 10 });
    arena.ready("a");
    arena.ready("b");
    const asked = new Set<string>();
    arena.past = { at: (id) => (asked.add(id), undefined) };
    arena.step(1000);
    arena.shoot("a", 1, 0, 100);
    arena.step(1000);
    expect([...asked]).toEqual(["b"]);
  });
});

describe("Boss battle: player shots judged as seen, the boss's projectiles on server time", () => {
  function battle() {
    const b = new BossBattle({ rng: seededRng(5), tuning: { bossMoves: false, bossAttacks: false, powerupSpawns: false } });
    b.addPlayer("p", { username: "p", character: "knight", bullets: 10 });
    const p = b.players.get("p")!;
    p.x = 200;
    p.y = 500;
    b.boss.x = 800;
    b.boss.y = 300;
    return { b, p };
  }

  it("a shot aimed where the shooter saw the boss hits it there", () => {
    const seenBoss = { x: 500, y: 300 };
    for (const [lag, expected] of [
      [200, 1],
      [0, 0],
    ] as const) {
      const { b } = battle();
      b.past = { at: (id, l) => (id === BOSS_TARGET_ID && l === 200 ? seenBoss : undefined) };
      for (let t = 0; t < 1000; t += TICK_MS) b.step(TICK_MS);
      const shot = b.shoot("p", seenBoss.x - 200, seenBoss.y - 500, lag);
      expect(shot.ok).toBe(true);
      const hits = [];
      for (let t = 0; t < 1500; t += TICK_MS) hits.push(...b.step(TICK_MS).filter((e) => e.type === "boss_hit"));
      expect(hits).toHaveLength(expected);
    }
  });

  it("never rewinds the players for the boss's projectiles", () => {
    const b = new BossBattle({ rng: seededRng(6), tuning: { bossMoves: false, bossAttacks: true, powerupSpawns: false } });
    b.addPlayer("p", { username: "p", character: "knight", bullets: 10 });
    const asked: string[] = [];
    b.past = { at: (id) => (asked.push(id), { x: -1000, y: -1000 }) };
    const damaged = [];
    for (let t = 0; t < 10_000; t += TICK_MS) damaged.push(...b.step(TICK_MS).filter((e) => e.type === "player_damaged"));
    expect(damaged.length).toBeGreaterThan(0);
    expect(asked).toEqual([]);
  });
});
