// Mode selection in headless Chromium: the live numbers of every mode, pushed by the `mode_select`
// room as players come and go, and the way into each mode.
import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage } from "../helpers/browser.js";

let t: TestApp;
let browser: Browser;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

describe("/play mode selection", () => {
  it("shows live player, room and seat counts that follow the rooms", async () => {
    const play = await PlayPage.open(browser, t.baseUrl);
    const { page } = play;
    await play.playAsGuest("Mo");
    await page.getByRole("button", { name: "Choose a mode" }).click();
    await page.getByRole("heading", { name: "Choose a mode" }).waitFor();
    for (const mode of ["boss", "pvp", "slitherrush"]) await page.locator(`#status-${mode}`, { hasText: "0 players in 0 rooms · 0 open seats" }).waitFor();
    await page.locator("#mode-viewers", { hasText: "1 player choosing a mode" }).waitFor();

    // Another player enters a boss battle: the card updates without a reload.
    // SDK clients standing in for other players; what their rooms send them is not this test's business.
    const bot = await t.sdk().joinOrCreate("boss", { username: "Bot", bullets: 30 });
    bot.onMessage("*", () => {});
    await page.locator("#status-boss", { hasText: "1 player in 1 room · 9 open seats" }).waitFor();
    const duellist = await t.sdk().joinOrCreate("pvp", { username: "Duo", bullets: 30 });
    duellist.onMessage("*", () => {});
    await page.locator("#status-pvp", { hasText: "1 player in 1 room · 1 open seat" }).waitFor();
    const snake = await t.sdk().joinOrCreate("slitherrush", { username: "Sid" });
    snake.onMessage("*", () => {});
    await page.locator("#status-slitherrush", { hasText: "1 player in 1 room · 31 open seats" }).waitFor();
    await play.screenshot("modes");

    await page.getByRole("button", { name: "Play Boss battle" }).click();
    await page.locator("#player-list", { hasText: "Bot (guest)" }).waitFor();
    await page.locator("#player-list .self", { hasText: "Mo (you)" }).waitFor();
    await Promise.all([bot.leave(), duellist.leave(), snake.leave()]);
    await page.locator("#player-list li").first().waitFor();
    await expect.poll(() => page.locator("#player-list li").count(), { timeout: 5000 }).toBe(1);
    expect(play.errors).toEqual([]);
    await play.close();
  });
});
