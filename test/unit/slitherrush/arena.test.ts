import { describe, expect, it } from "vitest";
import {
  ARENA_HEIGHT,
  ARENA_WIDTH,
  BULLET_LIFETIME_TICKS,
  BULLET_SPEED,
  FIRE_COOLDOWN_TICKS,
  HEAD_RADIUS,
  MAX_BULLETS,
  MAX_HP,
  MAX_LENGTH,
  MAX_PLAYERS,
  MIN_LENGTH,
  MUZZLE_OFFSET,
  PLAYER_SPEED,
  SEGMENT_SPACING,
  SPAWN_CLEARANCE,
  SPAWN_MARGIN,
  SPAWN_PROTECT_TICKS,
  START_LENGTH,
  TICK_RATE,
} from "../../../src/game/slitherrush/constants.js";
import { SlitherArena, type Snake } from "../../../src/game/slitherrush/arena.js";
import { seededRng } from "../../../src/game/rng.js";
import { arena, join, place, steps } from "./helpers.js";

const STEP = PLAYER_SPEED / TICK_RATE; // 7.5 px
const BULLET_STEP = BULLET_SPEED / TICK_RATE;

describe("constants of the original", () => {
  it("derive the tick counts from the seconds", () => {
    expect(STEP).toBe(7.5);
    expect(FIRE_COOLDOWN_TICKS).toBe(7); // 0.22 s → 6.6 ticks, rounded up
    expect(BULLET_LIFETIME_TICKS).toBe(41); // 1.35 s → 40.5 ticks
    expect(SPAWN_PROTECT_TICKS).toBe(18); // 0.6 s
  });
});

describe("joining", () => {
  it("gives a fresh snake full hp, start length, a straight body at 10 px spacing and protection", () => {
    const a = arena();
    const s = join(a, "p1");
    expect(s).toMatchObject({ hp: MAX_HP, length: START_LENGTH, score: 0, kills: 0, deaths: 0, slot: 0, epoch: 1 });
    expect(s.body).toHaveLength(START_LENGTH);
    expect(s.body[1].x).toBeCloseTo(s.body[0].x - SEGMENT_SPACING);
    expect(a.isProtected(s)).toBe(true);
    expect(s.body[0].x).toBeGreaterThanOrEqual(SPAWN_MARGIN);
    expect(s.body[0].x).toBeLessThanOrEqual(ARENA_WIDTH - SPAWN_MARGIN);
  });

  it("holds at most 32 snakes, one per id, and reuses freed slots", () => {
    const a = arena();
    for (let i = 0; i < MAX_PLAYERS; i++) join(a, `p${i}`);
    expect(a.full).toBe(true);
    expect(a.addPlayer("extra", { username: "x" })).toBeUndefined();
    a.removePlayer("p5");
    expect(a.addPlayer("p0", { username: "dup" })).toBeUndefined();
    expect(a.addPlayer("late", { username: "late" })?.slot).toBe(5);
  });

  it("hands out the original's colours, first unused first", () => {
    const a = arena();
    expect([join(a, "a").color, join(a, "b").color, join(a, "c").color]).toEqual([0, 1, 2]);
  });
});

describe("movement", () => {
  it("moves the head 7.5 px per tick along the heading and trails the body one point per tick", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    const before = s.body.map((p) => ({ ...p }));
    a.step();
    expect(s.body[0]).toEqual({ x: 1000 + STEP, y: 1000 });
    expect(s.body[1]).toEqual(before[0]);
    expect(s.body).toHaveLength(START_LENGTH);
    expect(s.body[START_LENGTH - 1]).toEqual(before[START_LENGTH - 2]);
  });

  it("clamps the head to the walls (they stop, they do not kill)", () => {
    const a = arena();
    const s = place(a, join(a, "p"), ARENA_WIDTH - 12, 15, 1, -1);
    steps(a, 5);
    expect(s.body[0]).toEqual({ x: ARENA_WIDTH - HEAD_RADIUS, y: HEAD_RADIUS });
    expect(s.hp).toBe(MAX_HP);
  });

  it("applies an input on the next tick, normalised", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    a.setInput("p", { direction: { x: 0, y: 300 } });
    expect(s.dirX).toBe(1); // not before the tick
    a.step();
    expect(s.body[0].x).toBeCloseTo(1000);
    expect(s.body[0].y).toBeCloseTo(1000 + STEP);
  });

  it("lets the latest input before a tick win", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    a.setInput("p", { direction: { x: 0, y: 1 } });
    a.setInput("p", { direction: { x: -3, y: 4 } });
    a.step();
    expect(s.dirX).toBeCloseTo(-0.6);
    expect(s.dirY).toBeCloseTo(0.8);
  });

  it("keeps the heading for a zero vector, even after another direction in the same tick", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    a.setInput("p", { direction: { x: 0, y: 1 } });
    a.setInput("p", { direction: { x: 0, y: 0 } });
    a.step();
    expect(s.body[0]).toEqual({ x: 1000 + STEP, y: 1000 });
  });

  it("normalises huge vectors and ignores non-finite ones", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    a.setInput("p", { direction: { x: 1e300, y: -1e300 } });
    a.step();
    expect(Math.hypot(s.dirX, s.dirY)).toBeCloseTo(1);
    expect(s.dirX).toBeCloseTo(Math.SQRT1_2);
    a.setInput("p", { direction: { x: Number.NaN, y: 1 } });
    a.setInput("p", { direction: { x: Infinity, y: 0 } });
    a.step();
    expect(s.dirX).toBeCloseTo(Math.SQRT1_2);
    expect(a.setInput("nobody", { shoot: true })).toBe(false);
  });
});

describe("shooting", () => {
  it("fires from 17 px ahead of the head at 640 px/s, once per 7 ticks while shoot is held", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    a.setInput("p", { shoot: true });
    const fired = steps(a, 15).map((e) => e.fired.length);
    expect(fired).toEqual([1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    const first = a.bullets[0];
    // Fired on tick 1 from the moved head, then flown 14 ticks (the firing tick included).
    expect(first.x).toBeCloseTo(1000 + STEP + MUZZLE_OFFSET + 15 * BULLET_STEP, 1);
    expect(first.y).toBeCloseTo(1000, 3);
    a.setInput("p", { shoot: false });
    expect(steps(a, 10).every((e) => e.fired.length === 0)).toBe(true);
    expect(s.lastFireTick).toBe(15);
  });

  it("flies a bullet 41 ticks (the firing tick included), then drops it", () => {
    const a = arena();
    place(a, join(a, "p"), 200, 1400);
    a.setInput("p", { shoot: true });
    a.step();
    a.setInput("p", { shoot: false });
    const id = a.bullets[0].id;
    expect(a.bullets[0].ticksLeft).toBe(BULLET_LIFETIME_TICKS - 1);
    steps(a, BULLET_LIFETIME_TICKS - 2);
    expect(a.bullets.map((b) => b.id)).toContain(id);
    a.step();
    expect(a.bullets.map((b) => b.id)).not.toContain(id);
  });

  it("drops a bullet that leaves the arena", () => {
    const a = arena();
    place(a, join(a, "p"), ARENA_WIDTH - 80, 1400);
    a.setInput("p", { shoot: true });
    a.step();
    a.setInput("p", { shoot: false });
    expect(a.bullets).toHaveLength(1);
    a.step();
    expect(a.bullets).toHaveLength(1);
    a.step();
    expect(a.bullets).toHaveLength(0);
  });

  it("holds at most 240 bullets in flight (32 snakes alone reach 192: 6 each)", () => {
    const a = arena();
    const s = place(a, join(a, "p"), 1000, 1000);
    place(a, join(a, "q"), 1000, 2000);
    for (let i = 0; i < MAX_BULLETS - 1; i++) a.bullets.push({ id: 1000 + i, ownerId: "q", ownerSlot: 1, angle: 0, x: 100, y: 2500, vx: 0, vy: 0, ticksLeft: 100 });
    a.setInput("p", { shoot: true });
    a.setInput("q", { shoot: true });
    const e = a.step();
    expect(e.fired).toHaveLength(1);
    expect(a.bullets).toHaveLength(MAX_BULLETS);
    expect(s.lastFireTick).toBe(1);
  });
});

describe("hits, kills and protection", () => {
  function duel() {
    const a = arena();
    const shooter = place(a, join(a, "shooter"), 1000, 1000, 1, 0);
    const target = place(a, join(a, "target"), 1200, 1000, 0, 1);
    return { a, shooter, target };
  }

  /** Steps while holding both snakes where the duel puts them (snakes never stop on their own). */
  function hold(a: SlitherArena, shooter: Snake, target: Snake, ticks: number, until = () => false) {
    const events = [];
    for (let t = 0; t < ticks && !until(); t++) {
      events.push(a.step());
      place(a, shooter, 1000, 1000, 1, 0);
      if (!events[events.length - 1].deaths.length) place(a, target, 1200, 1000, 0, 1);
    }
    return events;
  }

  it("takes one hp per bullet that reaches the head", () => {
    const { a, shooter, target } = duel();
    a.setInput("shooter", { shoot: true });
    const events = hold(a, shooter, target, 9).flatMap((e) => e.hits);
    expect(events[0]).toMatchObject({ ownerId: "shooter", victimId: "target", hpLeft: 2 });
    expect(target.hp).toBe(2);
    expect(shooter.hp).toBe(MAX_HP);
  });

  it("tests the bullet's whole path in a tick, so a fast bullet cannot skip a head", () => {
    const { a, target } = duel();
    // The bullet is at x = 1024.5 + 21.33·k after tick k: 1195.2 (k = 8), then 1216.5 (k = 9).
    // A head 13 px off the line between those samples is 16.8 px from both: a point test misses it.
    place(a, target, 1205.8, 1013);
    target.dirX = 0; // a test-only stationary snake
    a.setInput("shooter", { shoot: true });
    a.step();
    a.setInput("shooter", { shoot: false });
    const hits = steps(a, 8).flatMap((e) => e.hits);
    expect(hits).toEqual([{ bulletId: 0, ownerId: "shooter", victimId: "target", hpLeft: 2 }]);
  });

  it("misses a head more than 15 px off the path", () => {
    const { a, target } = duel();
    place(a, target, 1200, 1016, 1, 0);
    a.setInput("shooter", { shoot: true });
    expect(steps(a, 30).flatMap((e) => e.hits)).toEqual([]);
  });

  it("never hits its owner, and a protected head takes no hit", () => {
    const { a, target } = duel();
    target.protectedUntil = a.tick + 1000;
    a.setInput("shooter", { shoot: true });
    expect(steps(a, 30).flatMap((e) => e.hits)).toEqual([]);
    expect(target.hp).toBe(MAX_HP);
  });

  it("kills at 0 hp: +1 score/kill/+2 length to the shooter, +1 death/−1 score/−2 length and a protected respawn to the victim", () => {
    const { a, shooter, target } = duel();
    target.score = 4;
    target.length = 20;
    a.setInput("shooter", { shoot: true });
    const events = hold(a, shooter, target, 60, () => target.deaths > 0);
    const death = events.flatMap((e) => e.deaths)[0];
    place(a, shooter, 1000, 1000, 1, 0);
    expect(death).toEqual({ playerId: "target", killerId: "shooter", reason: "shot" });
    expect(shooter).toMatchObject({ kills: 1, score: 1, length: START_LENGTH + 2, bestScore: 1, bestLength: START_LENGTH + 2 });
    expect(target).toMatchObject({ deaths: 1, score: 3, length: 18, hp: MAX_HP, epoch: 2 });
    expect(target.body).toHaveLength(18);
    expect(a.isProtected(target)).toBe(true);
    expect(Math.hypot(target.body[0].x - shooter.body[0].x, target.body[0].y - shooter.body[0].y)).toBeGreaterThanOrEqual(SPAWN_CLEARANCE);
    // The shooter's body grows by padding on the next ticks.
    a.setInput("shooter", { shoot: false });
    a.step();
    expect(shooter.body).toHaveLength(START_LENGTH + 2);
  });

  it("keeps lengths within 10..40 and the score at 0 or more", () => {
    const { a, shooter, target } = duel();
    shooter.length = MAX_LENGTH - 1;
    target.length = MIN_LENGTH + 1;
    target.score = 0;
    a.setInput("shooter", { shoot: true });
    const deaths = hold(a, shooter, target, 400, () => target.deaths >= 3).flatMap((e) => e.deaths).length;
    expect(deaths).toBe(3);
    expect(shooter.length).toBe(MAX_LENGTH);
    expect(target.length).toBe(MIN_LENGTH);
    expect(target.score).toBe(0);
    expect(shooter.score).toBe(3);
  });

  it("stays protected for exactly 0.6 s after a spawn", () => {
    const a = arena();
    const s = join(a, "p");
    steps(a, SPAWN_PROTECT_TICKS);
    expect(a.isProtected(s)).toBe(true);
    a.step();
    expect(a.isProtected(s)).toBe(false);
    expect(a.statusOf(s)).toBe("alive");
  });

  it("gives the bullet to the head it reaches first on its path", () => {
    const a = arena();
    place(a, join(a, "shooter"), 1000, 1000, 1, 0);
    const far = place(a, join(a, "far"), 1060, 1000, 0, 1);
    const near = place(a, join(a, "near"), 1040, 1000, 0, 1);
    near.dirY = far.dirY = 0;
    a.setInput("shooter", { shoot: true });
    // This tick's path runs 1024.5 → 1045.8: both heads are within 15 px of it, "near" comes first.
    expect(a.step().hits.map((h) => h.victimId)).toEqual(["near"]);
  });
});

describe("spawning", () => {
  it("keeps every spawn at least 140 px from the other heads", () => {
    const a = new SlitherArena({ rng: seededRng(42) });
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const s = join(a, `p${i}`);
      for (const o of a.players.values()) {
        if (o === s) continue;
        expect(Math.hypot(o.body[0].x - s.body[0].x, o.body[0].y - s.body[0].y)).toBeGreaterThanOrEqual(SPAWN_CLEARANCE);
      }
    }
  });

  it("falls back to the arena centre when no clear spot is found", () => {
    const a = new SlitherArena({ rng: seededRng(3), size: { width: 300, height: 300 } });
    join(a, "first");
    const second = join(a, "second");
    expect(second.body[0]).toEqual({ x: 150, y: 150 });
    expect(ARENA_HEIGHT).toBe(2800);
  });
});

describe("leaderboard", () => {
  it("ranks the top five by score, then kills, then length", () => {
    const a = arena();
    const stats: [string, number, number, number][] = [
      ["a", 1, 5, 14],
      ["b", 3, 1, 10],
      ["c", 3, 2, 10],
      ["d", 3, 2, 12],
      ["e", 0, 0, 40],
      ["f", 2, 0, 14],
      ["g", 0, 0, 39],
    ];
    for (const [id, score, kills, length] of stats) Object.assign(join(a, id), { score, kills, length });
    const board = a.leaderboard();
    expect(board.map((r) => r.id)).toEqual(["d", "c", "b", "f", "a"]);
    expect(board[0]).toEqual({ id: "d", username: "d", score: 3, kills: 2, length: 12, status: "protected" });
    expect(a.ranks().get("g")).toBe(7);
  });

  it("breaks a full tie by join order", () => {
    const a = arena();
    join(a, "x");
    join(a, "y");
    expect(a.leaderboard().map((r) => r.id)).toEqual(["x", "y"]);
  });
});

describe("determinism", () => {
  function run(seed: number) {
    const a = new SlitherArena({ rng: seededRng(seed) });
    const rng = seededRng(seed + 1000);
    for (let i = 0; i < 24; i++) join(a, `p${i}`);
    const log: unknown[] = [];
    for (let t = 0; t < 600; t++) {
      for (let i = 0; i < 24; i++) {
        if (rng() < 0.3) a.setInput(`p${i}`, { direction: { x: rng() - 0.5, y: rng() - 0.5 }, shoot: rng() < 0.5 });
      }
      const e = a.step();
      if (e.deaths.length || e.hits.length) log.push(e);
    }
    return { log, state: [...a.players.values()].map((s) => ({ ...s, pendingHeading: null })), bullets: a.bullets };
  }

  it("replays exactly for a seed", () => {
    const first = run(7);
    expect(first.log.length).toBeGreaterThan(0);
    expect(run(7)).toEqual(first);
    expect(run(8).state).not.toEqual(first.state);
  });
});
