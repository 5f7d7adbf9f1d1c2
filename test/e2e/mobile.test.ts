// /play on touch screens, in Chromium's device emulation (isMobile, hasTouch, a phone in portrait
// and landscape, a tablet): each mode is played with fingers only (CDP touch events, two at once),
// and what the fingers did is checked on the server: the boss battle's player moved and shot, a
// PvP duel was played to its knock-out, a SlitherRush snake turned. Each screen is photographed at
// each size (test/e2e/artifacts/<device>-*.png), never scrolls sideways, and every dialog's
// headline (victory, result, death notice) is inside the window.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Browser } from "playwright-core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { launchBrowser, PlayPage, TOUCH_DEVICES, type Device, type Fingers } from "../helpers/browser.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";
import { buildBody } from "../../src/game/slitherrush/spawn.js";

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** Signs in as a guest and opens a screen, with taps only. */
async function guestOn(device: Device, name: string, open: (play: PlayPage) => Promise<void>): Promise<PlayPage> {
  const play = await PlayPage.open(browser, t.baseUrl, device);
  const form = play.page.getByRole("form", { name: "Play as a guest" });
  await form.getByLabel("Display name").fill(name);
  await form.getByRole("button", { name: "Play as guest" }).tap();
  await play.page.getByRole("heading", { name: `Welcome, ${name}` }).waitFor();
  expect(await play.scrollsSideways()).toBe(false);
  await open(play);
  return play;
}

async function viaModes(play: PlayPage, button: string): Promise<void> {
  await play.page.getByRole("button", { name: "Choose a mode" }).tap();
  await play.page.getByRole("button", { name: button }).tap();
}

type Box = { x: number; y: number; width: number; height: number };

/** Where the thumbs go: the left one on the stage's left quarter; the right one beside the arena (the pad below it, or the margin beside it). */
async function thumbs(play: PlayPage, canvas: string): Promise<{ left: { x: number; y: number }; right: { x: number; y: number } }> {
  const stage = (await play.page.locator(`${canvas} >> xpath=..`).boundingBox()) as Box;
  const arena = (await play.page.locator(canvas).boundingBox()) as Box;
  const below = stage.y + stage.height - (arena.y + arena.height);
  const beside = stage.x + stage.width - (arena.x + arena.width);
  const right =
    below > 60
      ? { x: stage.x + stage.width * 0.8, y: arena.y + arena.height + below / 2 }
      : beside > 40
        ? { x: arena.x + arena.width + beside / 2, y: arena.y + arena.height * 0.6 }
        : { x: stage.x + stage.width * 0.85, y: arena.y + arena.height * 0.6 };
  const left = { x: stage.x + stage.width * 0.2, y: arena.y + arena.height * 0.6 };
  // Both thumbs reach their controls without scrolling.
  const window = play.page.viewportSize()!;
  for (const p of [left, right]) expect(p.y < window.height && p.x < window.width, `a thumb at (${p.x}, ${p.y}) is off screen`).toBe(true);
  return { left, right };
}

/** The left thumb drags `dx, dy` and stays there (the stick held). */
async function holdStick(fingers: Fingers, at: { x: number; y: number }, dx: number, dy: number): Promise<void> {
  await fingers.press(1, at.x, at.y);
  await fingers.drag(1, at.x + dx, at.y + dy);
}

/** The local room of `name` that holds a player called `username` (rooms of earlier tests may still be listed). */
async function roomWith<R>(name: string, holds: (room: R) => boolean): Promise<R> {
  let found: R | undefined;
  await expect
    .poll(async () => {
      const rooms = (await matchMaker.query({ name })).map((l) => matchMaker.getLocalRoomById(l.roomId) as R);
      return (found = rooms.find((r) => r && holds(r)));
    }, { timeout: 10_000 })
    .toBeDefined();
  return found!;
}

describe.each(TOUCH_DEVICES)("/play on a touch screen: $name", (device) => {
  /** Names differ per device, so a room of an earlier device is never taken for this one's. */
  const tag = device.name === "tablet" ? "T" : device.name.endsWith("portrait") ? "P" : "L";
  it("boss battle: the left thumb moves the player, the right one shoots, both at once; the victory dialog fits", async () => {
    const tia = `Tia${tag}`;
    const play = await guestOn(device, tia, async (p) => {
      await p.page.getByRole("button", { name: "Fight the boss" }).tap();
      await p.page.locator("#self-bullets", { hasText: "30" }).waitFor();
    });
    const room = await roomWith<BossRoom>("boss", (r) => [...r.battle.players.values()].some((p) => p.username === `${tia} (guest)`));
    const me = () => [...room.battle.players.values()].find((p) => p.username === `${tia} (guest)`)!;
    const start = { x: me().x, y: me().y };
    await play.screenshot(`${device.name}-boss`);
    expect(await play.scrollsSideways()).toBe(false);

    const fingers = await play.fingers();
    const { left, right } = await thumbs(play, "#boss-canvas");
    const toward = start.x < 550 ? 1 : -1; // towards the middle of the arena
    await holdStick(fingers, left, 60 * toward, 0);
    await fingers.press(2, right.x, right.y); // the second finger, while the first still moves
    await expect.poll(() => Math.abs(me().x - start.x), { timeout: 10_000 }).toBeGreaterThanOrEqual(40);
    await expect.poll(() => me().bulletsFired, { timeout: 10_000 }).toBeGreaterThan(0);
    await play.screenshot(`${device.name}-boss-touch`, { css: true });
    await fingers.liftAll();
    const moved = Math.hypot(me().x - start.x, me().y - start.y);
    console.log(`[mobile] ${device.name} boss: moved ${moved.toFixed(0)} px, fired ${me().bulletsFired} (server)`);

    room.battle.health = 5; // shorten the fight, server-side
    await fingers.press(2, right.x, right.y);
    await play.page.getByRole("heading", { name: "Victory! The boss is defeated" }).waitFor({ timeout: 20_000 });
    await fingers.liftAll();
    expect(await play.inViewport("#victory-h")).toBe(true);
    expect(await play.inViewport("#victory-stats thead th:last-child")).toBe(true); // no column cut off
    expect(await play.scrollsSideways()).toBe(false);
    await play.screenshot(`${device.name}-boss-victory`);
    expect(play.errors).toEqual([]);
    await play.close();
  });

  it("PvP duel: both players ready with a tap, move and shoot with their thumbs, the duel ends in a knock-out; the result dialog fits", async () => {
    const [annName, benName] = [`Ann${tag}`, `Ben${tag}`];
    const ann = await guestOn(device, annName, (p) => viaModes(p, "Play PvP duel"));
    await ann.page.locator("#pvp-phase", { hasText: "Waiting for an opponent" }).waitFor();
    const ben = await guestOn(device, benName, (p) => viaModes(p, "Play PvP duel"));
    await ann.page.locator("#pvp-phase", { hasText: "Ready check" }).waitFor();
    await ann.screenshot(`${device.name}-pvp-ready-check`);
    await ann.page.getByRole("button", { name: "Ready", exact: true }).tap();
    await ben.page.getByRole("button", { name: "Ready", exact: true }).tap();
    const room = await roomWith<PvpRoom>("pvp", (r) => [...r.arena.players.values()].some((p) => p.username === `${annName} (guest)`));
    await expect.poll(() => room.arena.phase, { timeout: 10_000 }).toBe("battle");
    const player = (name: "Ann" | "Ben") => [...room.arena.players.values()].find((p) => p.username === `${name === "Ann" ? annName : benName} (guest)`)!;
    const start = { x: player("Ann").x, y: player("Ann").y };

    // Ann moves (up or down, inside her half) and shoots at the same time.
    const fingers = await ann.fingers();
    const { left, right } = await thumbs(ann, "#pvp-canvas");
    await holdStick(fingers, left, 0, start.y > 300 ? -60 : 60);
    await fingers.press(2, right.x, right.y);
    await expect.poll(() => Math.abs(player("Ann").y - start.y), { timeout: 10_000 }).toBeGreaterThanOrEqual(40);
    await expect.poll(() => player("Ann").shots, { timeout: 10_000 }).toBeGreaterThan(0);
    await ann.screenshot(`${device.name}-pvp-battle`, { css: true });
    const moved = Math.hypot(player("Ann").x - start.x, player("Ann").y - start.y);
    await fingers.lift(1);

    // Held fire (aimed at Ben beside the arena) until the knock-out; one life left shortens it.
    player("Ben").lives = Math.min(player("Ben").lives, 1);
    await expect.poll(() => room.arena.phase, { timeout: 20_000 }).toBe("finished");
    await fingers.liftAll();
    expect(player("Ben").lives).toBe(0);
    console.log(`[mobile] ${device.name} pvp: moved ${moved.toFixed(0)} px, ${player("Ann").shots} shots, ${player("Ann").hits} hits (server)`);
    await ann.page.getByRole("heading", { name: "You won!" }).waitFor();
    await ben.page.getByRole("heading", { name: "You lost" }).waitFor();
    expect(await ann.inViewport("#result-h")).toBe(true);
    expect(await ben.inViewport("#result-h")).toBe(true);
    // The whole table, Bullets column included, is inside the dialog.
    expect(await ann.inViewport("#pvp-stats thead th:last-child")).toBe(true);
    expect(await ann.scrollsSideways()).toBe(false);
    await ann.screenshot(`${device.name}-pvp-result`, { css: true });
    await ben.screenshot(`${device.name}-pvp-result-loser`);
    expect(ann.errors).toEqual([]);
    expect(ben.errors).toEqual([]);
    await ann.close();
    await ben.close();
  });

  it("SlitherRush: a drag on the left steers the snake, with a second finger holding fire on the right; the death notice fits", async () => {
    const salName = `Sal${tag}`;
    const sal = await guestOn(device, salName, async (p) => {
      await viaModes(p, "Play SlitherRush");
      await p.page.locator("#slither-length", { hasText: /\d+/ }).waitFor();
    });
    const room = await roomWith<SlitherRushRoom>("slitherrush", (r) => [...r.arena.players.values()].some((p) => p.username === `${salName} (guest)`));
    const snake = () => [...room.arena.players.values()].find((p) => p.username === `${salName} (guest)`)!;
    await sal.screenshot(`${device.name}-slitherrush`);
    expect(await sal.scrollsSideways()).toBe(false);

    // Drag against the current heading: the server's heading turns round towards it.
    const heading = { x: snake().dirX, y: snake().dirY };
    const fingers = await sal.fingers();
    const { left, right } = await thumbs(sal, "#slither-canvas");
    await holdStick(fingers, left, -heading.x * 60, -heading.y * 60);
    await fingers.press(2, right.x, right.y);
    await expect.poll(() => snake().dirX * -heading.x + snake().dirY * -heading.y, { timeout: 10_000 }).toBeGreaterThan(0.9);
    await sal.screenshot(`${device.name}-slitherrush-touch`, { css: true });
    await fingers.liftAll();
    console.log(`[mobile] ${device.name} slitherrush: heading (${heading.x.toFixed(2)}, ${heading.y.toFixed(2)}) -> (${snake().dirX.toFixed(2)}, ${snake().dirY.toFixed(2)}) (server)`);

    // A bot (an SDK client) shoots Sal, standing in front of it: the death notice fits the screen.
    const bot = await t.sdk().joinById(room.roomId, { username: `Bot${tag}` });
    bot.onMessage("*", () => {});
    const place = (username: string, x: number, dx: number) => {
      const s = [...room.arena.players.values()].find((p) => p.username === username)!;
      s.dirX = dx;
      s.dirY = 0;
      s.body = buildBody({ x, y: 1000 }, dx || 1, 0, s.length, room.arena.size);
      s.protectedUntil = room.arena.tick - 1;
      s.epoch++; // a fresh body elsewhere, as after a respawn: clients get it whole
    };
    place(`Bot${tag} (guest)`, 1000, 1);
    place(`${salName} (guest)`, 1300, 0);
    bot.send("slitherrush_input", { shoot: true });
    await sal.page.getByRole("heading", { name: "You were shot" }).waitFor({ timeout: 15_000 });
    bot.send("slitherrush_input", { shoot: false });
    expect(await sal.inViewport("#death-h")).toBe(true);
    await sal.screenshot(`${device.name}-slitherrush-death`);
    await bot.leave();
    expect(sal.errors).toEqual([]);
    await sal.close();
  });
});
