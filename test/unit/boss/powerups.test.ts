import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { applyPowerup, createPowerup, damageMultiplier, inPickupReach, speedMultiplier, type PowerupHolder } from "../../../src/game/boss/powerups.js";
import { POWERUP_LIFETIME_MS, POWERUP_TYPES } from "../../../src/game/boss/constants.js";

const holder = (over: Partial<PowerupHolder> = {}): PowerupHolder => ({ lives: 5, bullets: 20, bonusBullets: 0, damageBoostUntil: 0, speedBoostUntil: 0, ...over });

describe("createPowerup", () => {
  it("makes an 8-hex-char id, a known type and a spot in x 100..700, y 300..550", () => {
    const rng = seededRng(11);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const p = createPowerup(rng, 1000, seen);
      expect(p.id).toMatch(/^[0-9a-f]{8}$/);
      expect(seen.has(p.id)).toBe(false);
      seen.add(p.id);
      expect(POWERUP_TYPES).toContain(p.type);
      expect(Number.isInteger(p.x) && p.x >= 100 && p.x <= 700).toBe(true);
      expect(Number.isInteger(p.y) && p.y >= 300 && p.y <= 550).toBe(true);
      expect(p.expiresAt).toBe(1000 + POWERUP_LIFETIME_MS);
    }
    expect(new Set([...Array(200)].map(() => createPowerup(rng, 0).type)).size).toBe(4);
  });

  it("never reuses an id that is taken", () => {
    let calls = 0;
    const rng = () => (calls++ < 8 ? 0 : 0.5);
    expect(createPowerup(rng, 0, new Set(["00000000"])).id).toBe("88888888");
  });
});

describe("pickup reach", () => {
  it("collects within 55 px (player radius 35 + powerup radius 20)", () => {
    expect(inPickupReach({ x: 0, y: 0 }, { x: 55, y: 0 })).toBe(true);
    expect(inPickupReach({ x: 0, y: 0 }, { x: 33, y: 44 })).toBe(true);
    expect(inPickupReach({ x: 0, y: 0 }, { x: 55.1, y: 0 })).toBe(false);
  });
});

describe("effects (the spec's table)", () => {
  it("damage: 2× for 8 s, expiring by timestamp; collecting again restarts the timer", () => {
    const h = holder();
    expect(applyPowerup(h, "damage", 1000)).toEqual({ type: "damage", livesGained: 0, bulletsGained: 0, until: 9000, multiplier: 2 });
    expect(damageMultiplier(h, 1000)).toBe(2);
    expect(damageMultiplier(h, 8999)).toBe(2);
    expect(damageMultiplier(h, 9000)).toBe(1);
    applyPowerup(h, "damage", 5000);
    expect(damageMultiplier(h, 12_999)).toBe(2);
  });

  it("speed: 1.5× for 10 s", () => {
    const h = holder();
    expect(applyPowerup(h, "speed", 0)).toMatchObject({ until: 10_000, multiplier: 1.5 });
    expect(speedMultiplier(h, 9999)).toBe(1.5);
    expect(speedMultiplier(h, 10_000)).toBe(1);
  });

  it("rapidfire: +15 bullets at once, as battle-only bonus bullets", () => {
    const h = holder({ bullets: 3 });
    expect(applyPowerup(h, "rapidfire", 0)).toMatchObject({ bulletsGained: 15 });
    expect(h).toMatchObject({ bullets: 18, bonusBullets: 15 });
  });

  it("heal: +1 life below 5 lives, +10 bullets at full lives", () => {
    const hurt = holder({ lives: 3 });
    expect(applyPowerup(hurt, "heal", 0)).toMatchObject({ livesGained: 1, bulletsGained: 0 });
    expect(hurt).toMatchObject({ lives: 4, bullets: 20 });
    const full = holder({ lives: 5 });
    expect(applyPowerup(full, "heal", 0)).toMatchObject({ livesGained: 0, bulletsGained: 10 });
    expect(full).toMatchObject({ lives: 5, bullets: 30, bonusBullets: 10 });
  });
});
