// The boss's movement: the original client's five patterns (normal, dash, zigzag, chase, circle),
// run server-side as a deterministic state machine of (state, dt, targets, rng).
import { pick, randomInt, type Rng } from "../rng.js";
import {
  BOSS_AREA,
  BOSS_CIRCLE_ANGULAR_SPEED,
  BOSS_CIRCLE_CENTER,
  BOSS_CIRCLE_RADIUS,
  BOSS_DASH_MAX_MS,
  BOSS_DASH_WINDUP_MS,
  BOSS_HOME,
  BOSS_PATTERN_MAX_MS,
  BOSS_PATTERN_MIN_MS,
  BOSS_SPEED,
  BOSS_ZIGZAG_AMPLITUDE,
  BOSS_ZIGZAG_PERIOD_MS,
  BOSS_ZIGZAG_Y,
  type Point,
} from "./constants.js";

export const BOSS_PATTERNS = ["normal", "dash", "zigzag", "chase", "circle"] as const;
export type BossPattern = (typeof BOSS_PATTERNS)[number];
export type DashPhase = "windup" | "dash" | "recover";

export interface BossAiState extends Point {
  pattern: BossPattern;
  /** ms spent in the current pattern, and how long it lasts. */
  elapsed: number;
  duration: number;
  /** Horizontal heading of normal and zigzag. */
  dir: 1 | -1;
  /** Position on the circle pattern's ellipse, radians. */
  angle: number;
  dashPhase: DashPhase;
  dashPhaseElapsed: number;
  dashTarget: Point | null;
}

export function createBossAi(start: Point = BOSS_HOME): BossAiState {
  return {
    x: start.x,
    y: start.y,
    pattern: "normal",
    elapsed: 0,
    duration: BOSS_PATTERN_MIN_MS,
    dir: 1,
    angle: 0,
    dashPhase: "windup",
    dashPhaseElapsed: 0,
    dashTarget: null,
  };
}

export function clampToBossArea(p: Point): Point {
  return {
    x: Math.min(BOSS_AREA.maxX, Math.max(BOSS_AREA.minX, p.x)),
    y: Math.min(BOSS_AREA.maxY, Math.max(BOSS_AREA.minY, p.y)),
  };
}

/** Moves `p` at most `maxDistance` towards `goal`; returns true when it arrived. */
function moveToward(p: Point, goal: Point, maxDistance: number): boolean {
  const g = clampToBossArea(goal);
  const dx = g.x - p.x;
  const dy = g.y - p.y;
  const d = Math.hypot(dx, dy);
  if (d <= maxDistance) {
    p.x = g.x;
    p.y = g.y;
    return true;
  }
  p.x += (dx / d) * maxDistance;
  p.y += (dy / d) * maxDistance;
  return false;
}

function nearest(from: Point, targets: readonly Point[]): Point | undefined {
  let best: Point | undefined;
  let bestD = Infinity;
  for (const t of targets) {
    const d = Math.hypot(t.x - from.x, t.y - from.y);
    if (d < bestD) {
      bestD = d;
      best = t;
    }
  }
  return best;
}

/** A different pattern than the current one, uniformly. */
export function nextPattern(current: BossPattern, rng: Rng): BossPattern {
  return pick(rng, BOSS_PATTERNS.filter((p) => p !== current));
}

export function startPattern(state: BossAiState, pattern: BossPattern, rng: Rng): void {
  state.pattern = pattern;
  state.elapsed = 0;
  state.duration = randomInt(rng, BOSS_PATTERN_MIN_MS, BOSS_PATTERN_MAX_MS);
  state.dashPhase = "windup";
  state.dashPhaseElapsed = 0;
  state.dashTarget = null;
  // Join the ellipse where the boss is, so the circle starts without a jump.
  state.angle = Math.atan2((state.y - BOSS_CIRCLE_CENTER.y) / BOSS_CIRCLE_RADIUS.y, (state.x - BOSS_CIRCLE_CENTER.x) / BOSS_CIRCLE_RADIUS.x);
}

/**
 * Advances the boss by dtMs. `targets` are the players the boss may go after (alive, connected).
 * Mutates and returns the state.
 */
export function stepBossAi(state: BossAiState, dtMs: number, targets: readonly Point[], rng: Rng): BossAiState {
  const dt = dtMs / 1000;
  state.elapsed += dtMs;
  switch (state.pattern) {
    case "normal": {
      const goalX = state.dir > 0 ? BOSS_AREA.maxX : BOSS_AREA.minX;
      if (moveToward(state, { x: goalX, y: BOSS_HOME.y }, BOSS_SPEED.normal * dt) || state.x === goalX) state.dir = state.dir > 0 ? -1 : 1;
      break;
    }
    case "zigzag": {
      const goal = { x: state.x + state.dir * BOSS_SPEED.zigzag, y: BOSS_ZIGZAG_Y + BOSS_ZIGZAG_AMPLITUDE * Math.sin((2 * Math.PI * state.elapsed) / BOSS_ZIGZAG_PERIOD_MS) };
      moveToward(state, goal, BOSS_SPEED.zigzag * dt);
      if (state.x <= BOSS_AREA.minX) state.dir = 1;
      else if (state.x >= BOSS_AREA.maxX) state.dir = -1;
      break;
    }
    case "chase":
      moveToward(state, nearest(state, targets) ?? BOSS_HOME, BOSS_SPEED.chase * dt);
      break;
    case "dash":
      stepDash(state, dtMs, targets, rng);
      break;
    case "circle": {
      state.angle += BOSS_CIRCLE_ANGULAR_SPEED * dt;
      const goal = { x: BOSS_CIRCLE_CENTER.x + BOSS_CIRCLE_RADIUS.x * Math.cos(state.angle), y: BOSS_CIRCLE_CENTER.y + BOSS_CIRCLE_RADIUS.y * Math.sin(state.angle) };
      moveToward(state, goal, BOSS_SPEED.circle * dt);
      break;
    }
  }
  if (state.elapsed >= state.duration) startPattern(state, nextPattern(state.pattern, rng), rng);
  return state;
}

/** Wind up in place, rush at the position a player had when the wind-up ended, then go home. */
function stepDash(state: BossAiState, dtMs: number, targets: readonly Point[], rng: Rng): void {
  state.dashPhaseElapsed += dtMs;
  const dt = dtMs / 1000;
  if (state.dashPhase === "windup") {
    if (state.dashPhaseElapsed < BOSS_DASH_WINDUP_MS) return;
    state.dashPhaseElapsed = 0;
    if (targets.length === 0) {
      state.dashPhase = "recover";
      return;
    }
    const t = pick(rng, targets);
    state.dashTarget = clampToBossArea({ x: t.x, y: t.y });
    state.dashPhase = "dash";
    return;
  }
  if (state.dashPhase === "dash" && state.dashTarget) {
    const arrived = moveToward(state, state.dashTarget, BOSS_SPEED.dash * dt);
    if (arrived || state.dashPhaseElapsed >= BOSS_DASH_MAX_MS) {
      state.dashPhase = "recover";
      state.dashPhaseElapsed = 0;
      state.dashTarget = null;
    }
    return;
  }
  moveToward(state, BOSS_HOME, BOSS_SPEED.recover * dt);
}
