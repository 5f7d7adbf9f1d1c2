// The client examples (examples/*.mjs), written from the docs alone with nothing but @colyseus/sdk,
// played against a test server: a PvP duel to its knock-out, and a 30 s boss battle between two
// guests. So the docs, the examples and the server cannot drift apart: every message the examples
// send or listen to is named in the docs too.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
// @ts-expect-error plain JavaScript examples, without declarations
import { playDuel } from "../../examples/pvp-duel.mjs";
// @ts-expect-error plain JavaScript examples, without declarations
import { fightBoss } from "../../examples/boss-battle.mjs";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const quiet = () => {};

describe("examples/ against the server", () => {
  it("pvp-duel.mjs: two guests ready, Ada walks and shoots, Bo is knocked out", async () => {
    const duel = await playDuel(t.baseUrl, quiet);
    expect(duel.end).toMatchObject({ winner: duel.ada, loser: duel.bo, reason: "knockout" });
    const bo = duel.end.stats.players.find((p: { sid: string }) => p.sid === duel.bo);
    expect(bo.lives).toBe(0);
    expect(Math.abs(duel.walked - 200)).toBeLessThanOrEqual(1); // the example walks until within 1 px of its target
    expect(duel.errors.filter((e: { code: string }) => e.code !== "not_in_battle")).toEqual([]);
  }, 60_000);

  it("boss-battle.mjs: two guests fight the boss for 30 s: both move, shoot and hurt it", async () => {
    const battle = await fightBoss(t.baseUrl, 30, quiet);
    expect(battle.health).toBeLessThan(2000);
    for (const p of battle.players) {
      expect(p.maxDistance).toBeGreaterThanOrEqual(40);
      expect(p.fired).toBeGreaterThan(0);
      // Shots past the last bullet or after death are the only refusals a client following the docs meets.
      expect(p.errors.filter((e: { code: string }) => !["no_bullets", "dead"].includes(e.code))).toEqual([]);
    }
  }, 60_000);

  it("every message the examples send or handle is named in the docs", () => {
    const docs = ["messages.md", "pvp.md", "boss-battle.md"].map((f) => readFileSync(new URL(`../../docs/${f}`, import.meta.url), "utf8")).join("\n");
    for (const file of ["pvp-duel.mjs", "boss-battle.mjs"]) {
      const source = readFileSync(new URL(`../../examples/${file}`, import.meta.url), "utf8");
      const names = [...source.matchAll(/(?:send|onMessage|joinOrCreate)\("([a-z_]+)"/g)].map((m) => m[1]);
      expect(names.length).toBeGreaterThan(5);
      for (const name of names) expect(docs, `${file} uses ${name}`).toContain(`\`${name}\``);
    }
  });
});
