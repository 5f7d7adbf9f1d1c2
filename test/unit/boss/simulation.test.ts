import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { BossBattle, type BattleEvent } from "../../../src/game/boss/simulation.js";
import { segmentHitsCircle } from "../../../src/game/geometry.js";
import {
  BOSS_ATTACK_INTERVAL_MS,
  BOSS_MAX_HEALTH,
  FIRE_BURST,
  INVULNERABLE_MS,
  MAX_ACTIVE_POWERUPS,
  POWERUP_LIFETIME_MS,
  POWERUP_SPAWN_INTERVAL_MS,
} from "../../../src/game/boss/constants.js";

/** A battle with a parked boss and no surprises, unless a test turns them on. */
function quietBattle(seed = 1) {
  return new BossBattle({ rng: seededRng(seed), tuning: { bossMoves: false, bossAttacks: false, powerupSpawns: false } });
}

function run(battle: BossBattle, ms: number, step = 33): BattleEvent[] {
  const events: BattleEvent[] = [];
  for (let t = 0; t < ms; t += step) events.push(...battle.step(Math.min(step, ms - t)));
  return events;
}

function place(battle: BossBattle, id: string, x: number, y: number) {
  const p = battle.players.get(id)!;
  p.x = x;
  p.y = y;
  return p;
}

describe("BossBattle: players and movement", () => {
  it("adds players at clear spawns with 5 lives and their bullets", () => {
    const b = quietBattle();
    for (let i = 0; i < 10; i++) b.addPlayer(`p${i}`, { username: `u${i}`, character: "knight", bullets: 12 });
    const ps = [...b.players.values()];
    for (const p of ps) {
      expect(p).toMatchObject({ lives: 5, bullets: 12, status: "alive", damageDealt: 0 });
      for (const q of ps) if (p !== q) expect(Math.hypot(p.x - q.x, p.y - q.y)).toBeGreaterThanOrEqual(76);
    }
  });

  it("applies the movement rules with exact numbers", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    b.addPlayer("c", { username: "c", character: "knight", bullets: 10 });
    place(b, "a", 500, 400);
    place(b, "c", 560, 400);
    const r = b.move("a", 530, 400);
    expect(r.ok && r.outcome).toMatchObject({ x: 490, y: 400, collided: true });
    expect(b.players.get("a")).toMatchObject({ x: 490, y: 400 });
    place(b, "a", 50, 550);
    run(b, 500);
    expect(b.move("a", 10, 590).ok).toBe(true);
    expect(b.players.get("a")).toMatchObject({ x: 35, y: 565 });
  });

  it("caps speed: a teleport request moves at most the banked budget, which refills at 420 px/s", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 100, 400);
    b.move("a", 1000, 400);
    expect(b.players.get("a")!.x).toBeCloseTo(205, 6);
    b.move("a", 1000, 400);
    expect(b.players.get("a")!.x).toBeCloseTo(205, 6);
    run(b, 100, 50);
    b.move("a", 1000, 400);
    expect(b.players.get("a")!.x).toBeCloseTo(247, 6);
    // Over 2 s of constant requests the player covers at most 2 s × 420 px/s (+ the bank).
    place(b, "a", 100, 400);
    for (let i = 0; i < 20; i++) {
      b.step(100);
      b.move("a", 1065, 400);
    }
    expect(b.players.get("a")!.x).toBeLessThanOrEqual(100 + 2 * 420 + 105 + 1e-6);
  });

  it("ignores moves of the dead, of unknown players and after the battle", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    expect(b.move("nobody", 1, 1)).toEqual({ ok: false, error: "not_in_battle" });
    b.players.get("a")!.status = "dead";
    expect(b.move("a", 1, 1)).toEqual({ ok: false, error: "dead" });
    b.defeated = true;
    expect(b.move("a", 1, 1)).toEqual({ ok: false, error: "battle_over" });
  });
});

describe("BossBattle: shots and damage", () => {
  it("spends a bullet per shot, fires from the server position, and the server decides the hit (10 damage)", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 550, 400);
    const shot = b.shoot("a", 0, -1);
    expect(shot.ok && shot.bullet).toMatchObject({ x: 550, y: 400, damage: 10 });
    expect(b.players.get("a")).toMatchObject({ bullets: 9, bulletsFired: 1, accountBulletsSpent: 1 });
    const events = run(b, 1000);
    expect(events).toContainEqual({ type: "boss_hit", playerId: "a", damage: 10, bossHealth: BOSS_MAX_HEALTH - 10 });
    expect(b.health).toBe(BOSS_MAX_HEALTH - 10);
    expect(b.players.get("a")).toMatchObject({ damageDealt: 10, bulletsHit: 1 });
  });

  it("a shot away from the boss misses and expires", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 550, 400);
    b.shoot("a", 0, 1);
    expect(run(b, 2000).filter((e) => e.type === "boss_hit")).toEqual([]);
    expect(b.bullets).toEqual([]);
    expect(b.health).toBe(BOSS_MAX_HEALTH);
  });

  it("limits the fire rate (burst of 2, then 5 shots/s) and refuses without bullets", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 3 });
    expect(b.shoot("a", 0, -1).ok).toBe(true);
    expect(b.shoot("a", 0, -1).ok).toBe(true);
    expect(b.shoot("a", 0, -1)).toEqual({ ok: false, error: "fire_rate" });
    b.step(200);
    expect(b.shoot("a", 0, -1).ok).toBe(true);
    run(b, 1000);
    expect(b.players.get("a")!.fireCharge).toBe(FIRE_BURST);
    expect(b.shoot("a", 0, -1)).toEqual({ ok: false, error: "no_bullets" });
    expect(b.shoot("a", 0, 0)).toEqual({ ok: false, error: "no_direction" });
  });

  it("doubles damage under the damage powerup and counts only the health actually taken", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 550, 400);
    b.players.get("a")!.damageBoostUntil = b.now + 8000;
    b.health = 15;
    b.shoot("a", 0, -1);
    const events = run(b, 1000);
    expect(events).toEqual([{ type: "boss_hit", playerId: "a", damage: 15, bossHealth: 0 }, { type: "boss_defeated" }]);
    expect(b.defeated).toBe(true);
    expect(b.players.get("a")!.damageDealt).toBe(15);
    expect(b.shoot("a", 0, -1)).toEqual({ ok: false, error: "battle_over" });
    expect(b.step(1000)).toEqual([]);
  });

  it("spends bonus bullets (from powerups) before the account's bullets", () => {
    const b = quietBattle();
    const p = b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    p.bullets += 2;
    p.bonusBullets = 2;
    for (let i = 0; i < 3; i++) {
      b.shoot("a", 0, -1);
      b.step(400);
    }
    expect(p).toMatchObject({ bullets: 9, bonusBullets: 0, accountBulletsSpent: 1, bulletsFired: 3 });
  });
});

describe("BossBattle: boss attacks", () => {
  it("fires at players every 1.6 s; a hit takes one life, then 1 s of invulnerability", () => {
    const b = new BossBattle({ rng: seededRng(2), tuning: { bossMoves: false, powerupSpawns: false } });
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 550, 400);
    const first = run(b, BOSS_ATTACK_INTERVAL_MS - 40);
    expect(first).toEqual([]);
    const events = run(b, 2000);
    expect(events[0]).toEqual({ type: "player_damaged", playerId: "a", lives: 4, source: "projectile" });
    const p = b.players.get("a")!;
    expect(p.livesLost).toBe(1);
    expect(p.invulnerableUntil).toBeGreaterThan(0);
  });

  it("contact with the boss hurts; five hits kill; the dead are no longer targets", () => {
    const b = new BossBattle({ rng: seededRng(2), tuning: { bossMoves: false, powerupSpawns: false } });
    b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    const p = place(b, "a", b.boss.x, b.boss.y + 100);
    const events = run(b, 5 * INVULNERABLE_MS + 500);
    const damaged = events.filter((e) => e.type === "player_damaged");
    expect(damaged.map((e) => e.type === "player_damaged" && e.lives)).toEqual([4, 3, 2, 1, 0]);
    expect(damaged[0]).toMatchObject({ source: "contact" });
    expect(events.filter((e) => e.type === "player_died")).toEqual([{ type: "player_died", playerId: "a" }]);
    expect(p).toMatchObject({ lives: 0, status: "dead", livesLost: 5 });
    expect(b.aliveCount()).toBe(0);
    expect(run(b, 5000).filter((e) => e.type === "player_damaged")).toEqual([]);
  });

  it("does not hurt a player whose connection dropped", () => {
    const b = new BossBattle({ rng: seededRng(2), tuning: { bossMoves: false, powerupSpawns: false } });
    const p = b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", b.boss.x, b.boss.y + 100);
    p.connected = false;
    expect(run(b, 5000)).toEqual([]);
    expect(p.lives).toBe(5);
  });
});

describe("BossBattle: powerups", () => {
  it("spawns one every 5 s, at most 4 at a time, each expiring after 20 s", () => {
    const b = new BossBattle({ rng: seededRng(3), tuning: { bossMoves: false, bossAttacks: false } });
    const spawned = run(b, POWERUP_SPAWN_INTERVAL_MS + 50).filter((e) => e.type === "powerup_spawned");
    expect(spawned).toHaveLength(1);
    run(b, 16_000);
    expect(b.powerups.size).toBe(MAX_ACTIVE_POWERUPS);
    const events: BattleEvent[] = [];
    for (let i = 0; i < 600; i++) {
      events.push(...b.step(33));
      expect(b.powerups.size).toBeLessThanOrEqual(MAX_ACTIVE_POWERUPS);
      for (const p of b.powerups.values()) expect(p.expiresAt - p.spawnedAt).toBe(POWERUP_LIFETIME_MS);
      for (const p of b.powerups.values()) expect(p.expiresAt).toBeGreaterThan(b.now);
    }
    expect(events.some((e) => e.type === "powerup_expired")).toBe(true);
  });

  it("is collected by proximity only, applying its effect on the server", () => {
    const b = quietBattle();
    const p = b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 900, 500);
    const pu = b.placePowerup("rapidfire", { x: 300, y: 400 });
    expect(run(b, 200)).toEqual([]);
    expect(b.powerups.has(pu.id)).toBe(true);
    place(b, "a", 340, 400);
    const events = run(b, 100);
    expect(events).toEqual([
      { type: "powerup_collected", playerId: "a", powerup: expect.objectContaining({ id: pu.id, type: "rapidfire" }), effect: { type: "rapidfire", livesGained: 0, bulletsGained: 15 } },
    ]);
    expect(p).toMatchObject({ bullets: 25, bonusBullets: 15, powerupsCollected: ["rapidfire"] });
    expect(b.powerups.size).toBe(0);
  });

  it("speed powerup raises the movement cap by 1.5× until it expires", () => {
    const b = quietBattle();
    const p = b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    place(b, "a", 100, 400);
    b.placePowerup("speed", { x: 100, y: 400 });
    run(b, 600, 50);
    expect(p.speedBoostUntil).toBeGreaterThan(b.now);
    b.move("a", 1000, 400);
    expect(p.x).toBeCloseTo(100 + 420 * 1.5 * 0.25, 6);
    run(b, 10_500, 50);
    place(b, "a", 100, 400);
    b.move("a", 1000, 400);
    expect(p.x).toBeCloseTo(100 + 420 * 0.25, 6);
  });

  it("the dead cannot collect", () => {
    const b = quietBattle();
    const p = b.addPlayer("a", { username: "a", character: "knight", bullets: 10 });
    p.status = "dead";
    b.placePowerup("heal", { x: p.x, y: p.y });
    expect(run(b, 200)).toEqual([]);
  });
});

describe("BossBattle: determinism and stats", () => {
  it("replays exactly for a seed", () => {
    const play = () => {
      const b = new BossBattle({ rng: seededRng(77) });
      b.addPlayer("a", { username: "a", character: "knight", bullets: 100 });
      b.addPlayer("b", { username: "b", character: "wizard", bullets: 100 });
      const log: unknown[] = [];
      for (let i = 0; i < 600; i++) {
        if (i % 6 === 0) b.shoot(i % 12 ? "a" : "b", b.boss.x - 500, b.boss.y - 400);
        log.push(...b.step(33));
      }
      return { log, boss: { x: b.boss.x, y: b.boss.y, health: b.health }, stats: b.playerStats() };
    };
    expect(play()).toEqual(play());
  });

  it("reports per-player stats for the victory payload", () => {
    const b = quietBattle();
    b.addPlayer("a", { username: "ann", character: "archer", bullets: 10 });
    expect(b.playerStats()).toEqual([
      { id: "a", username: "ann", character: "archer", damage_dealt: 0, bullets_fired: 0, bullets_hit: 0, lives: 5, lives_lost: 0, powerups_collected: [], status: "alive" },
    ]);
  });

  it("segmentHitsCircle catches a fast bullet passing through the circle between two steps", () => {
    expect(segmentHitsCircle(0, 0, 200, 0, 100, 50, 60)).toBe(true);
    expect(segmentHitsCircle(0, 0, 200, 0, 100, 70, 60)).toBe(false);
    expect(segmentHitsCircle(0, 0, 0, 0, 3, 4, 5)).toBe(true);
  });
});
