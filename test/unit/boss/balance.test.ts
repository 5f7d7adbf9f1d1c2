// The boss's balance against what a guest may claim, replayed on the pure simulation (seeded), and
// docs/boss-battle.md's figures checked against it: the doc's arithmetic and measured times are
// this file's output, not numbers copied by hand.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { BossBattle } from "../../../src/game/boss/simulation.js";
import { BOSS_MAX_HEALTH, FIRE_RATE_PER_SECOND, GUEST_MAX_BULLETS, MAX_PLAYERS, MIN_BULLETS_TO_JOIN, SHOT_DAMAGE, SIMULATION_HZ } from "../../../src/game/boss/constants.js";
import { MAX_BULLETS_PER_LESSON, MAX_BULLETS_PER_QUESTION } from "../../../src/game/progress.js";

interface Outcome {
  won: boolean;
  seconds: number;
  shots: number;
}

/** `players` players with `bullets` each fire at the boss's centre whenever the fire rate allows; no boss attacks, no powerups. */
function fight(players: number, bullets: number, bossMoves: boolean): Outcome {
  const battle = new BossBattle({ rng: seededRng(1), tuning: { bossMoves, bossAttacks: false, powerupSpawns: false } });
  for (let i = 0; i < players; i++) battle.addPlayer(`p${i}`, { username: `p${i}`, character: "knight", bullets });
  const stepMs = 1000 / SIMULATION_HZ;
  let ms = 0;
  while (!battle.defeated && ms < 120_000) {
    for (const p of battle.players.values()) if (p.bullets > 0) battle.shoot(p.id, battle.boss.x - p.x, battle.boss.y - p.y);
    battle.step(stepMs);
    ms += stepMs;
  }
  const shots = [...battle.players.values()].reduce((n, p) => n + p.bulletsFired, 0);
  return { won: battle.defeated, seconds: ms / 1000, shots };
}

const doc = readFileSync(new URL("../../../docs/boss-battle.md", import.meta.url), "utf8");
const heading = "### What a guest may claim, and why the boss is balanced for it";
/** The section's text with line breaks as spaces and in lower case: re-wrapping the doc breaks nothing. */
const section = doc
  .slice(doc.indexOf(heading), doc.indexOf("\n## ", doc.indexOf(heading)))
  .replace(/\s+/g, " ")
  .toLowerCase();
const n = (x: number) => x.toLocaleString("en-US");
const s1 = (x: number) => `**${x.toFixed(1)} s**`;

describe("the boss against guests at the claim cap (docs/boss-battle.md)", () => {
  it("the doc has the section", () => {
    expect(doc.indexOf(heading)).toBeGreaterThan(0);
  });

  it("the doc states the cap, its origin and the bullet arithmetic as the constants make it", () => {
    expect(GUEST_MAX_BULLETS).toBe(MAX_BULLETS_PER_LESSON + MAX_BULLETS_PER_QUESTION);
    expect(section).toContain(`**${MIN_BULLETS_TO_JOIN} to ${GUEST_MAX_BULLETS}**`);
    const hits = BOSS_MAX_HEALTH / SHOT_DAMAGE;
    expect(section).toContain(`${n(BOSS_MAX_HEALTH)} health (spec), so ${hits} hits`);
    const roomBullets = MAX_PLAYERS * GUEST_MAX_BULLETS;
    expect(section).toContain(`bring ${roomBullets} bullets, at most ${n(roomBullets * SHOT_DAMAGE)} damage`);
    expect(section).toContain(`land ${hits} of their ${roomBullets} shots (${Math.round((100 * hits) / roomBullets)} %)`);
    // The fewest guests at the cap who can win with every shot landing, and one fewer.
    const fewest = Math.ceil(BOSS_MAX_HEALTH / (GUEST_MAX_BULLETS * SHOT_DAMAGE));
    expect(section).toContain(`${words[fewest - 2]} guests (${n((fewest - 1) * GUEST_MAX_BULLETS * SHOT_DAMAGE)} damage) cannot win`);
    expect(section).toContain(`${words[fewest - 1]} (${n(fewest * GUEST_MAX_BULLETS * SHOT_DAMAGE)}) can`);
    expect(section).toContain(`at the entry fee (${n(MAX_PLAYERS * MIN_BULLETS_TO_JOIN * SHOT_DAMAGE)} damage)`);
    expect(section).toContain(`${MAX_PLAYERS} × ${FIRE_RATE_PER_SECOND} × ${SHOT_DAMAGE} = ${MAX_PLAYERS * FIRE_RATE_PER_SECOND * SHOT_DAMAGE} health a second`);
  });

  it("who can win: seven guests at the cap can, six cannot, ten at the entry fee cannot", () => {
    const fewest = Math.ceil(BOSS_MAX_HEALTH / (GUEST_MAX_BULLETS * SHOT_DAMAGE));
    expect(fight(fewest - 1, GUEST_MAX_BULLETS, false).won).toBe(false);
    expect(fight(MAX_PLAYERS, MIN_BULLETS_TO_JOIN, false).won).toBe(false);
    const seven = fight(fewest, GUEST_MAX_BULLETS, false);
    expect(seven.won).toBe(true);
    expect(section).toContain(`${words[fewest - 1]} guests at the cap beat the still boss in ${s1(seven.seconds)}`);
  });

  it("how fast: the fire rate bounds a full room, guests or accounts alike; the doc's times are these", () => {
    const floor = (BOSS_MAX_HEALTH / SHOT_DAMAGE / MAX_PLAYERS - 2) / FIRE_RATE_PER_SECOND; // 2 shots banked
    const guests = fight(MAX_PLAYERS, GUEST_MAX_BULLETS, false);
    const moving = fight(MAX_PLAYERS, GUEST_MAX_BULLETS, true);
    const accounts = fight(MAX_PLAYERS, 600, false);
    expect(guests.won && moving.won && accounts.won).toBe(true);
    expect(guests.seconds).toBeGreaterThanOrEqual(floor);
    expect(accounts.seconds).toBe(guests.seconds);
    expect(section).toContain(`beat a still boss in ${s1(guests.seconds)} (${guests.shots} shots for ${BOSS_MAX_HEALTH / SHOT_DAMAGE} hits)`);
    expect(section).toContain(`a moving one in ${s1(moving.seconds)} (${moving.shots} shots)`);
    expect(section).toContain(`bullets also take ${s1(accounts.seconds)}`);
  });
});

const words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
