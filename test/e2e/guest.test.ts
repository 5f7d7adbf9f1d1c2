// The /play client for guests, in headless Chromium against the real server: two guests (one on a
// narrow phone-sized window) fight the boss in one room, see each other, chat, land hits, and
// nothing about them is ever written to the database.
import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, NARROW, PlayPage } from "../helpers/browser.js";

let t: TestApp;
let browser: Browser;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

async function guest(name: string, viewport?: typeof NARROW): Promise<PlayPage> {
  const play = await PlayPage.open(browser, t.baseUrl, viewport);
  await play.playAsGuest(name);
  return play;
}

describe("/play as a guest", () => {
  it("plays the boss battle with another guest, chats, lands hits, and nothing is persisted", async () => {
    const zed = await guest("Zed");
    const amy = await guest("Amy", NARROW);
    await amy.screenshot("guest-home-narrow");

    await zed.page.getByRole("button", { name: "Fight the boss" }).click();
    await zed.page.locator("#self-bullets", { hasText: "30" }).waitFor();
    await amy.page.getByRole("button", { name: "Fight the boss" }).click();
    await amy.page.locator("#self-bullets", { hasText: "30" }).waitFor();
    // On a phone-sized window the players, chat and help are folded below the arena; opening them
    // leaves the arena where it is.
    const arena = await amy.page.locator("#boss-canvas").boundingBox();
    await amy.page.getByText("Players, chat and controls").click();
    expect(await amy.page.locator("#boss-canvas").boundingBox()).toEqual(arena);

    // Both in one room, each listed in the other's player list (names from the server, marked guest).
    await zed.page.locator("#player-list", { hasText: "Amy (guest)" }).waitFor();
    await amy.page.locator("#player-list", { hasText: "Zed (guest)" }).waitFor();
    await amy.page.locator("#player-list .self", { hasText: "Amy (you)" }).waitFor();

    const chat = amy.page.getByRole("form", { name: "Send a chat message" });
    await chat.getByLabel("Message").fill("hello from a phone");
    await chat.getByRole("button", { name: "Send" }).click();
    await zed.page.locator("#chat-log", { hasText: "Amy (guest): hello from a phone" }).waitFor();

    await zed.page.locator("#boss-canvas").focus();
    await zed.page.keyboard.down("Space");
    const health = await amy.bossHealthBelow(2000); // Zed's hits, seen on Amy's screen
    await zed.page.keyboard.up("Space");
    expect(health).toBeLessThan(2000);
    await amy.screenshot("boss-narrow");
    await zed.screenshot("boss-two-players");

    await zed.page.getByRole("button", { name: "Leave battle" }).click();
    await zed.page.getByRole("heading", { name: "Welcome, Zed" }).waitFor();
    await amy.page.locator("#chat-log", { hasText: "Zed (guest) left." }).waitFor();

    // Guests are never persisted: no user, no progress, no seat, no stats.
    expect(await t.prisma.user.count()).toBe(0);
    expect(await t.prisma.gameProgress.count()).toBe(0);
    expect(await t.prisma.bossPlayer.count()).toBe(0);
    expect(await t.prisma.bossBattleStats.count()).toBe(0);

    expect(zed.errors).toEqual([]);
    expect(amy.errors).toEqual([]);
    await zed.close();
    await amy.close();
  });

  it("keeps the guest for a reload of the tab, and forgets it on request", async () => {
    const play = await guest("Bea");
    await play.page.reload();
    await play.page.getByRole("heading", { name: "Welcome, Bea" }).waitFor();
    await play.page.getByRole("button", { name: "Stop playing as guest" }).click();
    await play.page.getByRole("heading", { name: "Play Snakes" }).waitFor();
    expect(play.errors).toEqual([]);
    await play.close();
  });
});
