import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { BOSS_PATTERNS, createBossAi, nextPattern, startPattern, stepBossAi, type BossAiState, type BossPattern } from "../../../src/game/boss/bossAi.js";
import { BOSS_AREA, BOSS_DASH_WINDUP_MS, BOSS_HOME, BOSS_PATTERN_MAX_MS, BOSS_PATTERN_MIN_MS, BOSS_SPEED } from "../../../src/game/boss/constants.js";

const inArea = (s: BossAiState) => s.x >= BOSS_AREA.minX && s.x <= BOSS_AREA.maxX && s.y >= BOSS_AREA.minY && s.y <= BOSS_AREA.maxY;

function withPattern(pattern: BossPattern, seed = 1): BossAiState {
  const s = createBossAi();
  startPattern(s, pattern, seededRng(seed));
  s.duration = 1e9; // stay in this pattern
  return s;
}

describe("boss AI", () => {
  it("starts at home in the normal pattern and sweeps horizontally at 140 px/s", () => {
    const s = createBossAi();
    expect(s).toMatchObject({ x: BOSS_HOME.x, y: BOSS_HOME.y, pattern: "normal" });
    stepBossAi(s, 1000, [], seededRng(1));
    expect(s.x).toBeCloseTo(BOSS_HOME.x + BOSS_SPEED.normal, 6);
    expect(s.y).toBe(BOSS_HOME.y);
  });

  it("normal turns around at the edge of its area", () => {
    const s = withPattern("normal");
    const rng = seededRng(2);
    for (let i = 0; i < 200; i++) stepBossAi(s, 50, [], rng);
    expect(s.dir).toBe(-1);
    expect(inArea(s)).toBe(true);
  });

  it("chase closes in on the nearest player at 110 px/s", () => {
    const s = withPattern("chase");
    s.x = 550;
    s.y = 110;
    const near = { x: 550, y: 410 };
    stepBossAi(s, 1000, [{ x: 100, y: 500 }, near], seededRng(1));
    expect(s.x).toBeCloseTo(550, 6);
    expect(s.y).toBeCloseTo(110 + BOSS_SPEED.chase, 6);
  });

  it("dash winds up in place, rushes at a player's position, then recovers home", () => {
    const s = withPattern("dash");
    const rng = seededRng(5);
    const player = { x: 550, y: 500 };
    stepBossAi(s, BOSS_DASH_WINDUP_MS - 10, [player], rng);
    expect(s).toMatchObject({ x: BOSS_HOME.x, y: BOSS_HOME.y, dashPhase: "windup" });
    stepBossAi(s, 20, [player], rng);
    expect(s.dashPhase).toBe("dash");
    expect(s.dashTarget).toEqual({ x: 550, y: 500 });
    stepBossAi(s, 100, [player], rng);
    expect(s.y).toBeCloseTo(BOSS_HOME.y + BOSS_SPEED.dash * 0.1, 6);
    for (let i = 0; i < 20; i++) stepBossAi(s, 50, [player], rng);
    expect(s.dashPhase).toBe("recover");
    for (let i = 0; i < 100; i++) stepBossAi(s, 50, [player], rng);
    expect(s).toMatchObject({ x: BOSS_HOME.x, y: BOSS_HOME.y });
  });

  it("zigzag weaves around y = 150 while crossing the arena", () => {
    const s = withPattern("zigzag");
    const rng = seededRng(3);
    const ys: number[] = [];
    for (let i = 0; i < 80; i++) {
      stepBossAi(s, 50, [], rng);
      ys.push(s.y);
      expect(inArea(s)).toBe(true);
    }
    expect(Math.max(...ys)).toBeGreaterThan(170);
    expect(Math.min(...ys)).toBeLessThan(130);
  });

  it("circle travels an ellipse around (550, 300)", () => {
    const s = withPattern("circle");
    const rng = seededRng(4);
    for (let i = 0; i < 400; i++) stepBossAi(s, 50, [], rng);
    const rx = (s.x - 550) / 300;
    const ry = (s.y - 300) / 150;
    expect(Math.hypot(rx, ry)).toBeCloseTo(1, 1);
  });

  it("switches to a different pattern after 4–7 s, deterministically for a seed", () => {
    const run = (seed: number) => {
      const s = createBossAi();
      const rng = seededRng(seed);
      const seen: BossPattern[] = [s.pattern];
      const players = [{ x: 300, y: 400 }, { x: 800, y: 500 }];
      for (let t = 0; t < 120_000; t += 33) {
        const before = s.pattern;
        stepBossAi(s, 33, players, rng);
        if (s.pattern !== before) {
          expect(s.duration).toBeGreaterThanOrEqual(BOSS_PATTERN_MIN_MS);
          expect(s.duration).toBeLessThanOrEqual(BOSS_PATTERN_MAX_MS);
          seen.push(s.pattern);
        }
        expect(inArea(s)).toBe(true);
      }
      return seen;
    };
    const a = run(9);
    expect(a).toEqual(run(9));
    expect(new Set(a)).toEqual(new Set(BOSS_PATTERNS));
    for (let i = 1; i < a.length; i++) expect(a[i]).not.toBe(a[i - 1]);
  });

  it("nextPattern never repeats the current pattern", () => {
    const rng = seededRng(8);
    for (const p of BOSS_PATTERNS) for (let i = 0; i < 50; i++) expect(nextPattern(p, rng)).not.toBe(p);
  });
});
