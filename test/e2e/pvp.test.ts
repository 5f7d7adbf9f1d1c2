// The PvP duel in headless Chromium: two browser contexts are paired by quick play, both press
// Ready and see the battle start, a hit costs the other a life, and a knock-out shows the winner.
import { describe, expect, it } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage } from "../helpers/browser.js";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";

let t: TestApp;
let browser: Browser;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

async function guestInPvp(name: string): Promise<PlayPage> {
  const play = await PlayPage.open(browser, t.baseUrl);
  await play.playAsGuest(name);
  await play.page.getByRole("button", { name: "Choose a mode" }).click();
  await play.page.getByRole("button", { name: "Play PvP duel" }).click();
  await play.page.locator("#pvp-canvas").waitFor();
  return play;
}

describe("/play PvP duel", () => {
  it("pairs two players who both press Ready, see the battle start, trade hits and see the winner", async () => {
    const ann = await guestInPvp("Ann");
    await ann.page.locator("#pvp-phase", { hasText: "Waiting for an opponent" }).waitFor();
    const ben = await guestInPvp("Ben");

    // Paired: each sees the other; the ready check begins.
    await ann.page.locator("#pvp-opponent", { hasText: "Ben (guest)" }).waitFor();
    await ben.page.locator("#pvp-opponent", { hasText: "Ann (guest)" }).waitFor();
    await ann.page.locator("#pvp-phase", { hasText: "Ready check" }).waitFor();
    await ann.screenshot("pvp-ready-check");

    await ann.page.getByRole("button", { name: "Ready", exact: true }).click();
    await ben.page.locator("#pvp-opponent", { hasText: "ready" }).waitFor();
    await ben.page.getByRole("button", { name: "Ready", exact: true }).click();
    await ann.page.locator("#pvp-phase", { hasText: "Battle!" }).waitFor();
    await ben.page.locator("#pvp-phase", { hasText: "Battle!" }).waitFor();

    // Ann shoots at Ben over the wall (Space aims at the opponent); the server takes Ben's life.
    await ann.page.locator("#pvp-canvas").focus();
    await ann.page.keyboard.down("Space");
    await ben.page.locator("#self-lives", { hasText: /^[0-4]$/ }).waitFor({ timeout: 15_000 });
    await ann.page.keyboard.up("Space");
    await ann.page.locator("#pvp-opponent", { hasText: /♥ [0-4]/ }).waitFor();
    await ann.screenshot("pvp-battle");

    // One life left for Ben: the next hit is a knock-out.
    const [listing] = await matchMaker.query({ name: "pvp" });
    const room = matchMaker.getLocalRoomById(listing.roomId) as PvpRoom;
    const benSid = [...room.arena.players.values()].find((p) => p.username.startsWith("Ben"))!.id;
    room.arena.players.get(benSid)!.lives = 1;
    await ann.page.keyboard.down("Space");
    await ann.page.getByRole("heading", { name: "You won!" }).waitFor({ timeout: 15_000 });
    await ann.page.keyboard.up("Space");
    await ben.page.getByRole("heading", { name: "You lost" }).waitFor();
    await ann.page.locator("#pvp-stats tbody tr", { hasText: "Ann (you)" }).waitFor();
    await ann.screenshot("pvp-result");
    expect(await t.prisma.pvpResult.count()).toBe(0); // guests are never stored

    expect(ann.errors).toEqual([]);
    expect(ben.errors).toEqual([]);
    await ann.close();
    await ben.close();
  });
});
