// SlitherRush in headless Chromium: two players in one arena see each other (on the canvas, in
// "snakes in view" and on the leaderboard), one shoots the other, who sees the death notice and
// plays again.
import { describe, expect, it } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage } from "../helpers/browser.js";
import { buildBody } from "../../src/game/slitherrush/spawn.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";

let t: TestApp;
let browser: Browser;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

async function guestInSlither(name: string): Promise<PlayPage> {
  const play = await PlayPage.open(browser, t.baseUrl);
  await play.playAsGuest(name);
  await play.page.getByRole("button", { name: "Choose a mode" }).click();
  await play.page.getByRole("button", { name: "Play SlitherRush" }).click();
  await play.page.locator("#slither-canvas").waitFor();
  await play.page.locator("#slither-length", { hasText: /\d+/ }).waitFor();
  return play;
}

/** Test set-up on the server (like a respawn): a snake's head at (x, y), heading (dx, dy) (0, 0: standing), unprotected. */
function place(room: SlitherRushRoom, username: string, x: number, y: number, dx: number, dy: number): void {
  const s = [...room.arena.players.values()].find((p) => p.username === username)!;
  s.dirX = dx;
  s.dirY = dy;
  s.body = buildBody({ x, y }, dx || 1, dy, s.length, room.arena.size);
  s.protectedUntil = room.arena.tick - 1;
  s.epoch++; // a fresh body somewhere else, as after a respawn: clients get it whole
}

describe("/play SlitherRush", () => {
  it("shows two players in one arena to each other, and a kill, a death notice and play again", async () => {
    const sal = await guestInSlither("Sal");
    const tom = await guestInSlither("Tom");
    const [listing, ...others] = await matchMaker.query({ name: "slitherrush" });
    expect(others).toEqual([]); // quick play fills the oldest arena
    const room = matchMaker.getLocalRoomById(listing.roomId) as SlitherRushRoom;

    await sal.page.locator("#slither-players", { hasText: "2 snakes in this arena" }).waitFor();
    await tom.page.locator("#slither-leaderboard", { hasText: "Sal (guest)" }).waitFor();

    // Side by side, heading the same way: each has the other in view, and the camera follows.
    place(room, "Sal (guest)", 1000, 1000, 1, 0);
    place(room, "Tom (guest)", 1000, 1250, 1, 0);
    await sal.page.locator("#slither-nearby", { hasText: "Tom (guest)" }).waitFor();
    await tom.page.locator("#slither-nearby", { hasText: "Sal (guest)" }).waitFor();
    await sal.screenshot("slitherrush");

    // Tom stands in front of Sal, who shoots ahead: three hits take Tom's head.
    place(room, "Sal (guest)", 1000, 1000, 1, 0);
    place(room, "Tom (guest)", 1300, 1000, 0, 0);
    await sal.page.locator("#slither-canvas").focus();
    await sal.page.keyboard.down("Space");
    await tom.page.getByRole("heading", { name: "You were shot" }).waitFor({ timeout: 15_000 });
    await sal.page.keyboard.up("Space");
    await tom.page.locator("#slither-death-text", { hasText: "Sal (guest) took your head" }).waitFor();
    await tom.screenshot("slitherrush-death");
    await sal.page.locator("#slither-kills", { hasText: /^1$/ }).waitFor();
    await sal.page.locator("#slither-feed", { hasText: "You shot Tom (guest)!" }).waitFor();

    // The notice clears itself (no button to press): Tom's respawned snake plays on.
    await tom.page.locator("#slither-death").waitFor({ state: "hidden", timeout: 6_000 });
    await tom.page.locator("#slither-deaths", { hasText: /^1$/ }).waitFor();

    expect(sal.errors).toEqual([]);
    expect(tom.errors).toEqual([]);
    await sal.close();
    await tom.close();
  });
});
