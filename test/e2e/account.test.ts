// The /play client with an account, in headless Chromium against the real server: register, sign
// out and in, earn the boss's 10 bullets through the progress API, fight the boss (hits lower its
// health, a victory shows the stats and makes a champion), champions and leaderboards.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage } from "../helpers/browser.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";

let t: TestApp;
let browser: Browser;
let play: PlayPage;
const username = `ada${process.pid}`;
const password = "analytical engine";

browserSuite((app, b) => {
  t = app;
  browser = b;
});
beforeAll(async () => {
  play = await PlayPage.open(browser, t.baseUrl);
});

async function bossRoom(): Promise<BossRoom> {
  const [listing] = await matchMaker.query({ name: "boss" });
  return matchMaker.getLocalRoomById(listing.roomId) as BossRoom;
}

describe("/play with an account", () => {
  it("registers, signs out and signs in again", async () => {
    const { page } = play;
    await page.getByRole("heading", { name: "Play Snakes" }).waitFor();
    await play.screenshot("signin");

    const register = page.getByRole("form", { name: "Create an account" });
    await register.getByLabel("Username").fill(username);
    await register.getByLabel("Password").fill(password);
    await register.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: `Progress of ${username}` }).waitFor();
    expect(await t.prisma.user.count({ where: { username } })).toBe(1);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Play Snakes" }).waitFor();
    const signIn = page.getByRole("form", { name: "Sign in" });
    await signIn.getByLabel("Username").fill(username);
    await signIn.getByLabel("Password").fill(password);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Progress of ${username}` }).waitFor();
    // The session survives a reload (HttpOnly cookie + /api/auth/me).
    await page.reload();
    await page.getByRole("heading", { name: `Progress of ${username}` }).waitFor();
    expect(play.errors).toEqual([]);
  });

  it("earns the 10 bullets the boss needs with lessons and a question square", async () => {
    const { page } = play;
    await expect(page.getByRole("button", { name: "Fight the boss" }).isDisabled()).resolves.toBe(true);
    await page.getByRole("button", { name: /Complete lesson 1/ }).click();
    await page.locator("#stat-bullets", { hasText: /^5$/ }).waitFor();
    await page.getByRole("button", { name: /Complete lesson 2/ }).click();
    await page.locator("#stat-bullets", { hasText: /^10$/ }).waitFor();
    await page.getByRole("button", { name: "Answer square 7 correctly (+10)" }).click();
    await page.locator("#stat-bullets", { hasText: /^20$/ }).waitFor();
    await page.getByRole("button", { name: "Answer square 8 wrongly" }).click();
    await page.getByRole("button", { name: /Answer square 9 correctly/ }).waitFor();
    await expect(page.getByRole("button", { name: "Fight the boss" }).isEnabled()).resolves.toBe(true);
    await play.screenshot("progress");

    const user = await t.prisma.user.findUniqueOrThrow({ where: { username }, include: { progress: true } });
    expect(user.progress).toMatchObject({ totalBullets: 20, completedLessons: [1, 2], visitedSquares: [7, 8] });
    expect(play.errors).toEqual([]);
  });

  it("joins the boss battle, moves, and lands hits that lower the boss's health", async () => {
    const { page } = play;
    await page.getByRole("button", { name: "Fight the boss" }).click();
    await page.locator("#boss-canvas").waitFor();
    await page.locator("#self-bullets", { hasText: "20" }).waitFor();
    const room = await bossRoom();
    const [sid] = [...room.battle.players.keys()];
    const start = { ...room.battle.players.get(sid)! };

    // The keyboard moves the player on the server (the canvas has the focus after joining).
    await page.keyboard.down("ArrowRight");
    await vi.waitFor(() => expect(room.battle.players.get(sid)!.x).toBeGreaterThan(start.x + 20), { timeout: 5000, interval: 50 });
    await page.keyboard.up("ArrowRight");

    // Space shoots at the boss (leading it); the server decides the hits.
    await page.keyboard.down("Space");
    const health = await play.bossHealthBelow(2000);
    await page.keyboard.up("Space");
    expect(health).toBeLessThan(2000);
    expect(room.battle.health).toBeLessThanOrEqual(health);
    await play.screenshot("boss");
    expect(play.errors).toEqual([]);
  });

  it("shows the victory stats, and the victory makes a champion", async () => {
    const { page } = play;
    const room = await bossRoom();
    room.battle.health = 10; // one more hit ends the battle
    await page.keyboard.down("Space");
    await page.getByRole("heading", { name: "Victory! The boss is defeated" }).waitFor({ timeout: 20_000 });
    await page.keyboard.up("Space");
    const row = page.locator("#victory-stats tbody tr", { hasText: username });
    await row.waitFor();
    await play.screenshot("boss-victory");

    await page.getByRole("button", { name: "Back to progress" }).click();
    await page.locator(".stat", { hasText: "champion" }).waitFor();
    await page.getByRole("link", { name: "Champions" }).click();
    await page.getByRole("heading", { name: /Hall of champions \(1\)/ }).waitFor();
    await page.locator("table", { hasText: username }).first().waitFor();
    await play.screenshot("boards");
    expect(play.errors).toEqual([]);
  });
});
