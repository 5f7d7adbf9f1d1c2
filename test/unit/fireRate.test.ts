// The fire-rate rule judged at each shot's own time (src/game/fireRate.ts): honest shots a lossy
// link delivers in bunches are all allowed, and no claimed age lets a client fire faster than
// burst + rate × (window + MAX_SHOT_AGE_MS). Network delays from a seeded generator.
import { describe, expect, it } from "vitest";
import { fullGauge, MAX_SHOT_AGE_MS, refillGauge, shotTime, spendShot, type FireGauge, type FireRate } from "../../src/game/fireRate.js";
import { seededRng, type Rng } from "../../src/game/rng.js";
import { FIRE_BURST as PVP_BURST, FIRE_RATE_PER_SECOND as PVP_RATE } from "../../src/game/pvp/constants.js";
import { PvpArena } from "../../src/game/pvp/simulation.js";

const PVP: FireRate = { ratePerSecond: PVP_RATE, burst: PVP_BURST };
const STEP_MS = 1000 / 30;
const INTERPOLATION_MS = 100;

/** A shot the room applies at `appliedAt` (its tick), fired at `firedAt`: judged with its stamp's age, or on arrival (age 0). */
function judge(shots: { firedAt: number; appliedAt: number }[], byStamp: boolean, rule = PVP): number {
  const gauge: FireGauge = fullGauge(rule);
  let now = 0;
  let allowed = 0;
  for (const shot of shots) {
    refillGauge(gauge, rule, shot.appliedAt - now);
    now = shot.appliedAt;
    // The stamp is the render time: the client's view, INTERPOLATION_MS behind its clock.
    const at = shotTime(gauge, rule, now, byStamp ? now - (shot.firedAt - INTERPOLATION_MS) : 0);
    if (Number.isNaN(at)) continue;
    spendShot(gauge, rule, now, at);
    allowed++;
  }
  return allowed;
}

/**
 * Honest shots `intervalMs` apart over one TCP connection: one-way delay 50 ± 15 ms, `loss` of the
 * segments lost and resent after an RTO of 200–400 ms; in-order delivery holds every later shot
 * behind a lost one. Each is applied at the first simulation step after it arrives.
 */
function lossyLink(rng: Rng, count: number, intervalMs: number, loss: number): { firedAt: number; appliedAt: number }[] {
  const shots: { firedAt: number; appliedAt: number }[] = [];
  let deliveredUpTo = 0;
  for (let i = 0; i < count; i++) {
    const firedAt = 1000 + i * intervalMs;
    let arrives = firedAt + 35 + rng() * 30;
    while (rng() < loss) arrives += 200 + rng() * 200;
    deliveredUpTo = Math.max(deliveredUpTo, arrives);
    shots.push({ firedAt, appliedAt: Math.ceil(deliveredUpTo / STEP_MS) * STEP_MS });
  }
  return shots;
}

describe("fire rate judged at each shot's own time", () => {
  it("honest shots 255 ms apart on a 100 ± 30 ms link losing 2 %: none refused by stamp (on arrival, some are)", () => {
    const rows: string[] = [];
    for (const seed of [1, 2, 3, 4, 5]) {
      const shots = lossyLink(seededRng(seed), 2000, 255, 0.02);
      const onArrival = judge(shots, false);
      const byStamp = judge(shots, true);
      rows.push(`seed ${seed}: refused on arrival ${(((2000 - onArrival) / 2000) * 100).toFixed(1)} %, by stamp ${(((2000 - byStamp) / 2000) * 100).toFixed(1)} %`);
      expect(byStamp).toBe(2000);
      expect(onArrival).toBeLessThan(2000);
    }
    console.log(rows.join("\n"));
  });

  it("a 7 s outage's shots arriving at once are judged by their times, as far back as MAX_SHOT_AGE_MS", () => {
    const shots = Array.from({ length: 28 }, (_, i) => ({ firedAt: 1000 + i * 255, appliedAt: 8000 }));
    // Only what was fired within MAX_SHOT_AGE_MS (+ the interpolation) of arrival keeps its spacing; the rest is the bank.
    expect(judge(shots, true)).toBeLessThanOrEqual(PVP.burst + Math.ceil((MAX_SHOT_AGE_MS / 1000) * PVP.ratePerSecond) + 1);
  });

  it("no claimed age fires faster: at most burst + rate × (window + MAX_SHOT_AGE_MS)", () => {
    const rng = seededRng(7);
    for (let trial = 0; trial < 50; trial++) {
      const gauge = fullGauge(PVP);
      let now = 0;
      let fired = 0;
      const windowMs = 5000;
      for (; now < windowMs; now += 10) {
        refillGauge(gauge, PVP, 10);
        // A cheater tries shot after shot with any age it likes (huge, negative, NaN, decreasing).
        for (let k = 0; k < 3; k++) {
          const age = [rng() * 5000, -rng() * 1000, Number.NaN, MAX_SHOT_AGE_MS * (1 - k / 3), Infinity][Math.floor(rng() * 5)];
          const at = shotTime(gauge, PVP, now, age);
          if (Number.isNaN(at)) continue;
          expect(at).toBeLessThanOrEqual(now);
          spendShot(gauge, PVP, now, at);
          fired++;
        }
      }
      expect(fired).toBeLessThanOrEqual(PVP.burst + (PVP.ratePerSecond * (windowMs + MAX_SHOT_AGE_MS)) / 1000);
    }
  });

  it("the arena applies it: three shots fired 255 ms apart and applied in one step all fly; without ages the third is refused", () => {
    const play = (ages: number[]) => {
      const arena = new PvpArena({ rng: seededRng(3) });
      arena.join("a", { username: "a", character: "archer", bullets: 30 });
      arena.join("b", { username: "b", character: "archer", bullets: 30 });
      arena.ready("a");
      arena.ready("b");
      for (let i = 0; i < 10; i++) arena.step(200);
      return ages.map((age) => arena.shoot("a", 0, 1, 0, age));
    };
    expect(play([610, 355, 100]).map((r) => r.ok)).toEqual([true, true, true]);
    expect(play([0, 0, 0]).map((r) => (r.ok ? "ok" : r.error))).toEqual(["ok", "ok", "fire_rate"]);
  });
});

describe("a shot of now and the refilled charge", () => {
  it("allows a shot as soon as the steps' refills show one ready, whatever the rounding", () => {
    const rule = { ratePerSecond: 3, burst: 3 };
    const gauge = fullGauge(rule);
    let now = 0;
    for (let shot = 0; shot < 200; shot++) {
      // Fire whenever the gauge the players are shown says a shot is ready, on 1000/60 ms steps.
      while (gauge.fireCharge < 1) {
        now += 1000 / 60;
        refillGauge(gauge, rule, 1000 / 60);
      }
      const at = shotTime(gauge, rule, now);
      expect(Number.isNaN(at), `shot ${shot} at ${now} with charge ${gauge.fireCharge}`).toBe(false);
      spendShot(gauge, rule, now, at);
    }
  });
});
