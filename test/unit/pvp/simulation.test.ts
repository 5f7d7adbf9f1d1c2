import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { bulletsBroughtIn, PvpArena, type PvpEvent } from "../../../src/game/pvp/simulation.js";
import { BULLET_LIFETIME_MS, FIRE_BURST, GUEST_MAX_BULLETS, PLAYER_MAX_SPEED } from "../../../src/game/pvp/constants.js";
import { MOVE_BUDGET_CAP } from "../../../src/game/pvp/movement.js";

const init = (username: string, bullets = 30) => ({ username, character: "knight", bullets });

function run(arena: PvpArena, ms: number, step = 33): PvpEvent[] {
  const events: PvpEvent[] = [];
  for (let t = 0; t < ms; t += step) events.push(...arena.step(Math.min(step, ms - t)));
  return events;
}

function place(arena: PvpArena, id: string, x: number, y: number) {
  const p = arena.players.get(id)!;
  p.x = x;
  p.y = y;
  return p;
}

/** Two seated players, a (P1) and b (P2), in a running battle. */
function battle(seed = 1, bullets: [number, number] = [30, 30]) {
  const arena = new PvpArena({ rng: seededRng(seed) });
  arena.join("a", init("alice", bullets[0]));
  arena.join("b", init("bob", bullets[1]));
  arena.ready("a");
  const started = arena.ready("b");
  expect(started.ok && started.events).toEqual([{ type: "battle_start", matchId: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
  return arena;
}

/** Fires one shot at a time from `shooter` along (dx, 0), each waited for, until `hits` have landed. */
function landHits(arena: PvpArena, shooter: string, dx: number, hits: number): PvpEvent[] {
  const events: PvpEvent[] = [];
  for (let i = 0; i < hits && arena.phase === "battle"; i++) {
    const r = arena.shoot(shooter, dx, 0);
    if (!r.ok) throw new Error(r.error);
    const landed = run(arena, 1000);
    expect(landed.filter((e) => e.type === "player_hit")).toHaveLength(1);
    events.push(...landed);
  }
  return events;
}

describe("PvpArena: seats and the ready check", () => {
  it("seats P1 left at (100, 300) and P2 right at (700, 300); the second seat opens the ready check", () => {
    const arena = new PvpArena();
    const a = arena.join("a", init("alice"));
    expect(a.ok && a.player).toMatchObject({ number: 1, x: 100, y: 300, lives: 5, ready: false, bullets: 30 });
    expect(a.ok && a.events).toEqual([]);
    expect(arena.phase).toBe("waiting");
    const b = arena.join("b", init("bob"));
    expect(b.ok && b.player).toMatchObject({ number: 2, x: 700, y: 300 });
    expect(b.ok && b.events).toEqual([{ type: "match_ready" }]);
    expect(arena.phase).toBe("ready_check");
    expect(arena.join("c", init("carol"))).toEqual({ ok: false, error: "room_full" });
    expect(arena.join("a", init("alice"))).toEqual({ ok: false, error: "already_joined" });
  });

  it("never hands out a player number twice: a newcomer takes the free one", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    arena.leave("a");
    expect(arena.phase).toBe("waiting");
    const c = arena.join("c", init("carol"));
    expect(c.ok && c.player).toMatchObject({ number: 1, x: 100 });
    arena.leave("b");
    const d = arena.join("d", init("dave"));
    expect(d.ok && d.player).toMatchObject({ number: 2, x: 700 });
    expect([...arena.players.values()].map((p) => p.number).sort()).toEqual([1, 2]);
  });

  it("starts the battle when both are ready: spawns, 5 lives, ready flags spent", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    place(arena, "a", 200, 100);
    arena.players.get("b")!.lives = 2;
    const first = arena.ready("a");
    expect(first.ok && first.events).toEqual([]);
    expect(arena.players.get("a")!.ready).toBe(true);
    expect(arena.ready("a").ok).toBe(true); // idempotent
    const second = arena.ready("b");
    expect(second.ok && second.events).toHaveLength(1);
    expect(arena.phase).toBe("battle");
    expect(arena.players.get("a")).toMatchObject({ x: 100, y: 300, lives: 5, ready: false });
    expect(arena.players.get("b")).toMatchObject({ x: 700, y: 300, lives: 5, ready: false });
    expect(arena.ready("a")).toEqual({ ok: false, error: "battle_active" });
  });

  it("a lone ready player starts as soon as an opponent arrives and readies", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice"));
    expect(arena.ready("a").ok).toBe(true);
    arena.join("b", init("bob"));
    expect(arena.phase).toBe("ready_check");
    const r = arena.ready("b");
    expect(r.ok && r.events[0]?.type).toBe("battle_start");
  });

  it("refuses ready without bullets and from strangers", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice", 0));
    expect(arena.ready("a")).toEqual({ ok: false, error: "no_bullets" });
    expect(arena.ready("zz")).toEqual({ ok: false, error: "not_in_room" });
  });

  it("waits for a dropped player before starting, and starts when it returns", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    arena.ready("a");
    arena.setConnected("a", false);
    const r = arena.ready("b");
    expect(r.ok && r.events).toEqual([]);
    expect(arena.setConnected("a", true)).toEqual([{ type: "battle_start", matchId: expect.any(String) }]);
  });
});

describe("PvpArena: movement", () => {
  it("holds the wall under a client pushing into it for seconds", () => {
    const arena = battle();
    for (let i = 0; i < 200; i++) {
      arena.step(50);
      arena.move("a", 800, 300);
      arena.move("b", 0, 300);
      expect(arena.players.get("a")!.x).toBeLessThanOrEqual(366);
      expect(arena.players.get("b")!.x).toBeGreaterThanOrEqual(434);
    }
    expect(arena.players.get("a")!.x).toBe(366);
    expect(arena.players.get("b")!.x).toBe(434);
  });

  it("caps speed at 450 px/s with a 0.25 s bank: a teleport request moves 112.5 px", () => {
    const arena = battle();
    arena.move("a", 366, 300);
    expect(arena.players.get("a")!.x).toBeCloseTo(212.5, 9);
    arena.move("a", 366, 300);
    expect(arena.players.get("a")!.x).toBeCloseTo(212.5, 9);
    arena.step(100);
    arena.move("a", 366, 300);
    expect(arena.players.get("a")!.x).toBeCloseTo(257.5, 9);
    // Two seconds of constant requests cover at most 2 s × 450 px/s plus the bank.
    place(arena, "b", 772, 28);
    arena.players.get("b")!.moveBudget = MOVE_BUDGET_CAP;
    for (let i = 0; i < 20; i++) {
      arena.step(100);
      arena.move("b", 772, 572);
    }
    expect(arena.players.get("b")!.y - 28).toBeLessThanOrEqual(2 * PLAYER_MAX_SPEED + MOVE_BUDGET_CAP + 1e-9);
  });

  it("clamps to the arena edges", () => {
    const arena = battle();
    place(arena, "a", 40, 40);
    arena.move("a", -500, -500);
    expect(arena.players.get("a")).toMatchObject({ x: 28, y: 28 });
    place(arena, "b", 760, 560);
    arena.move("b", 1000, 1000);
    expect(arena.players.get("b")).toMatchObject({ x: 772, y: 572 });
  });

  it("refuses non-finite targets, strangers and dropped players", () => {
    const arena = battle();
    expect(arena.move("a", Number.NaN, 3)).toEqual({ ok: false, error: "bad_position" });
    expect(arena.move("a", Infinity, 3)).toEqual({ ok: false, error: "bad_position" });
    expect(arena.move("zz", 1, 3)).toEqual({ ok: false, error: "not_in_room" });
    arena.setConnected("a", false);
    expect(arena.move("a", 110, 300)).toEqual({ ok: false, error: "disconnected" });
    expect(arena.players.get("a")).toMatchObject({ x: 100, y: 300 });
  });
});

describe("PvpArena: bullets and hits", () => {
  it("fires from the muzzle at 720 px/s and spends one bullet per shot", () => {
    const arena = battle();
    const r = arena.shoot("a", 3, 4);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.bullet.x).toBeCloseTo(100 + 0.6 * 33, 9);
    expect(r.bullet.y).toBeCloseTo(300 + 0.8 * 33, 9);
    expect(arena.players.get("a")).toMatchObject({ bullets: 29, bulletsSpent: 1, shots: 1 });
    arena.step(100);
    expect(r.bullet.x).toBeCloseTo(100 + 0.6 * 33 + 0.6 * 72, 9);
    expect(r.bullet.y).toBeCloseTo(300 + 0.8 * 33 + 0.8 * 72, 9);
  });

  it("flies over the wall and hits the opponent's circle (28 + 8 px) when the server says so", () => {
    const arena = battle();
    arena.shoot("a", 1, 0);
    // Muzzle at x = 133; the bullet touches P2's circle at x = 700 − 36 = 664: after 531 / 720 s ≈ 737.5 ms.
    expect(run(arena, 726, 33)).toEqual([]);
    expect(arena.bullets[0].x).toBeGreaterThan(406);
    const events = run(arena, 33);
    expect(events).toEqual([{ type: "player_hit", targetId: "b", shooterId: "a", lives: 4, bulletId: 1 }]);
    expect(arena.bullets).toEqual([]);
    expect(arena.players.get("a")!.hits).toBe(1);
  });

  it("misses a target out of line; the bullet leaves the arena", () => {
    const arena = battle();
    place(arena, "b", 700, 500);
    arena.shoot("a", 1, 0);
    expect(run(arena, 2000)).toEqual([]);
    expect(arena.bullets).toEqual([]);
    expect(arena.players.get("b")!.lives).toBe(5);
  });

  it("grazes count: a bullet passing within 36 px of the centre hits, 37 px misses", () => {
    const hitAt = (y: number) => {
      const arena = battle();
      place(arena, "b", 700, 300 + y);
      arena.shoot("a", 1, 0);
      return run(arena, 2000).some((e) => e.type === "player_hit");
    };
    expect(hitAt(36)).toBe(true);
    expect(hitAt(-36)).toBe(true);
    expect(hitAt(37)).toBe(false);
  });

  it("a fast pass between ticks still hits (swept test), and a shooter never hits itself", () => {
    const arena = battle();
    place(arena, "b", 500, 300);
    arena.shoot("a", 1, 0);
    // One 50 ms sub-step carries the bullet 36 px; the segment test catches the crossing.
    const events = run(arena, 600, 50);
    expect(events.filter((e) => e.type === "player_hit")).toHaveLength(1);
    const back = battle();
    back.shoot("a", -1, 0);
    expect(run(back, 1000)).toEqual([]);
    expect(back.players.get("a")!.lives).toBe(5);
  });

  it("drops a bullet at the end of its lifetime", () => {
    const arena = battle();
    const r = arena.shoot("a", 0, 1);
    if (!r.ok) throw new Error(r.error);
    r.bullet.ageMs = BULLET_LIFETIME_MS - 10;
    run(arena, 10);
    expect(arena.bullets).toEqual([]);
  });

  it("caps the fire rate: a burst of 2, then 4 shots per second", () => {
    const arena = battle();
    for (let i = 0; i < FIRE_BURST; i++) expect(arena.shoot("a", 1, 0).ok).toBe(true);
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "fire_rate" });
    arena.step(250);
    expect(arena.shoot("a", 1, 0).ok).toBe(true);
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "fire_rate" });
    // Over 5 s of trying every 10 ms (aimed past a): at most 5 × 4 shots plus the bank.
    place(arena, "a", 100, 100);
    let fired = 0;
    for (let i = 0; i < 500; i++) {
      arena.step(10);
      if (arena.shoot("b", -1, 0).ok) fired++;
    }
    expect(fired).toBeLessThanOrEqual(5 * 4 + FIRE_BURST);
    expect(fired).toBeGreaterThanOrEqual(5 * 4);
  });

  it("refuses shots outside a battle, without a direction and without bullets", () => {
    const arena = new PvpArena();
    arena.join("a", init("alice", 1));
    arena.join("b", init("bob"));
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "not_in_battle" });
    arena.ready("a");
    arena.ready("b");
    expect(arena.shoot("a", 0, 0)).toEqual({ ok: false, error: "no_direction" });
    expect(arena.shoot("a", Number.NaN, 1)).toEqual({ ok: false, error: "no_direction" });
    expect(arena.shoot("a", 1, 0).ok).toBe(true);
    arena.step(1000);
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "no_bullets" });
    expect(arena.players.get("a")).toMatchObject({ bullets: 0, bulletsSpent: 1 });
    expect(arena.shoot("zz", 1, 0)).toEqual({ ok: false, error: "not_in_room" });
  });
});

describe("PvpArena: the end of a battle", () => {
  it("ends at zero lives with the winner, the loser, the reason and the stats", () => {
    const arena = battle();
    arena.shoot("b", -1, 0); // b misses once: aimed at a, but a steps aside
    place(arena, "a", 100, 100);
    run(arena, 1200);
    place(arena, "a", 100, 300);
    const events = landHits(arena, "a", 1, 5);
    const hits = events.filter((e) => e.type === "player_hit");
    expect(hits.map((e) => e.type === "player_hit" && e.lives)).toEqual([4, 3, 2, 1, 0]);
    const end = events.find((e) => e.type === "battle_end");
    expect(end).toMatchObject({
      type: "battle_end",
      result: {
        matchId: arena.matchId,
        reason: "knockout",
        winnerId: "a",
        loserId: "b",
        players: [
          { id: "a", number: 1, username: "alice", shots: 5, hits: 5, lives: 5, bullets: 25 },
          { id: "b", number: 2, username: "bob", shots: 1, hits: 0, lives: 0, bullets: 29 },
        ],
      },
    });
    expect(end?.type === "battle_end" && end.result.durationMs).toBeGreaterThan(0);
    expect(arena.phase).toBe("finished");
    expect(arena.bullets).toEqual([]);
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "not_in_battle" });
    expect(events.filter((e) => e.type === "battle_end")).toHaveLength(1);
  });

  it("a leave during a battle is a forfeit: the opponent wins; the arena waits for a new opponent", () => {
    const arena = battle();
    landHits(arena, "b", -1, 2);
    const events = arena.leave("b");
    expect(events).toEqual([
      {
        type: "battle_end",
        result: expect.objectContaining({ reason: "forfeit", winnerId: "a", loserId: "b" }),
      },
    ]);
    expect(arena.phase).toBe("waiting");
    expect([...arena.players.keys()]).toEqual(["a"]);
    expect(arena.leave("b")).toEqual([]);
    // A leave outside a battle is no forfeit.
    const calm = new PvpArena();
    calm.join("a", init("alice"));
    calm.join("b", init("bob"));
    expect(calm.leave("a")).toEqual([]);
  });

  it("pauses while a player's connection is gone: bullets freeze, shots wait, then it resumes", () => {
    const arena = battle();
    arena.shoot("a", 1, 0);
    run(arena, 200);
    const x = arena.bullets[0].x;
    arena.setConnected("b", false);
    expect(arena.paused()).toBe(true);
    expect(run(arena, 2000)).toEqual([]);
    expect(arena.bullets[0].x).toBe(x);
    expect(arena.shoot("a", 1, 0)).toEqual({ ok: false, error: "paused" });
    arena.setConnected("b", true);
    expect(run(arena, 1000).filter((e) => e.type === "player_hit")).toHaveLength(1);
    // When the connection does not come back, the room gives up: a forfeit.
    arena.setConnected("b", false);
    expect(arena.leave("b")[0]).toMatchObject({ type: "battle_end", result: { reason: "forfeit", winnerId: "a" } });
  });

  it("ends out of ammunition: more lives wins, equal lives is a draw", () => {
    const arena = battle(1, [1, 1]);
    arena.shoot("a", 1, 0);
    place(arena, "a", 100, 100);
    arena.shoot("b", -1, 0);
    const events = run(arena, 2000);
    expect(events.filter((e) => e.type === "player_hit")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "battle_end", result: { reason: "out_of_ammo", winnerId: "a", loserId: "b" } });
    const draw = battle(1, [1, 1]);
    place(draw, "b", 700, 100);
    draw.shoot("a", 1, 0);
    draw.shoot("b", 0, 1);
    expect(run(draw, 2000)).toEqual([{ type: "battle_end", result: expect.objectContaining({ reason: "out_of_ammo", winnerId: null, loserId: null }) }]);
  });

  it("rematch: both ready again after a battle; lives and places reset, bullets carry over", () => {
    const arena = battle(3);
    landHits(arena, "a", 1, 5);
    const firstMatch = arena.matchId;
    expect(arena.phase).toBe("finished");
    expect(arena.players.get("a")!.ready).toBe(false);
    place(arena, "b", 600, 100);
    arena.ready("b");
    expect(arena.phase).toBe("finished");
    const r = arena.ready("a");
    expect(r.ok && r.events).toEqual([{ type: "battle_start", matchId: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
    expect(arena.matchId).not.toBe(firstMatch);
    expect(arena.players.get("b")).toMatchObject({ lives: 5, x: 700, y: 300, shots: 0, hits: 0, bullets: 30 });
    expect(arena.players.get("a")).toMatchObject({ lives: 5, shots: 0, hits: 0, bullets: 25, bulletsSpent: 5 });
  });
});

describe("PvpArena: ammunition and robustness", () => {
  it("a guest's claim is capped at 30; an account brings its record; nonsense brings nothing", () => {
    expect(bulletsBroughtIn({ guest: true, claimed: 500 })).toBe(GUEST_MAX_BULLETS);
    expect(bulletsBroughtIn({ guest: true, claimed: 12.7 })).toBe(12);
    expect(bulletsBroughtIn({ guest: false, recorded: 500 })).toBe(500);
    expect(bulletsBroughtIn({ guest: true, claimed: -4 })).toBe(0);
    expect(bulletsBroughtIn({ guest: true, claimed: Number.NaN })).toBe(0);
  });

  it("survives nonsense step lengths and drops stalls beyond 250 ms", () => {
    const arena = battle();
    arena.step(Number.NaN);
    arena.step(-5);
    expect(arena.now).toBe(0);
    arena.step(10_000);
    expect(arena.now).toBe(250);
  });

  it("is deterministic for a seed: the same intents give the same events and state", () => {
    const script = (seed: number) => {
      const rng = seededRng(99);
      const arena = battle(seed);
      const log: unknown[] = [];
      for (let i = 0; i < 400; i++) {
        arena.move("a", rng() * 800, rng() * 600);
        arena.move("b", rng() * 800, rng() * 600);
        if (rng() < 0.3) arena.shoot("a", rng() - 0.3, rng() - 0.5);
        if (rng() < 0.3) arena.shoot("b", rng() - 0.7, rng() - 0.5);
        log.push(...arena.step(33));
        if (arena.phase === "finished") {
          arena.ready("a");
          log.push(...(arena.ready("b") as { events?: PvpEvent[] }).events ?? []);
        }
      }
      return { log, players: [...arena.players.values()], bullets: arena.bullets, matchId: arena.matchId };
    };
    const first = script(42);
    expect(first.log.some((e) => (e as PvpEvent).type === "player_hit")).toBe(true);
    expect(script(42)).toEqual(first);
    expect(script(43).matchId).not.toBe(first.matchId);
  });
});
