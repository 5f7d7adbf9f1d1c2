// /play on touch screens, in Chromium's device emulation (isMobile, hasTouch, a phone in portrait
// and landscape, a tablet): each mode is played with fingers only (CDP touch events, two at once),
// and what the fingers did is checked on the server: the boss battle's player moved and shot, a
// PvP duel was played to its knock-out, a SlitherRush snake turned. Each screen is photographed at
// each size (test/e2e/artifacts/<device>-*.png), never scrolls sideways, and every dialog's
// headline (victory, result, death notice) is inside the window. Issue 36: two fingers moving over
// the HUD, the stage or a dialog never zoom the page (visualViewport.scale stays 1), a SlitherRush
// death under two held thumbs included, while pages outside play stay zoomable; the respawned snake
// is never hidden; on the tablet the arenas take >= 90 % of the width (>= 55 % of the height); the
// HUD keeps its height through PvP's phases; every visible button, link and field is >= 44 x 44 CSS px.
import { describe, expect, it } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage, TOUCH_DEVICES, type Device, type Fingers } from "../helpers/browser.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";
import { buildBody } from "../../src/game/slitherrush/spawn.js";

let t: TestApp;
let browser: Browser;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

/** Signs in as a guest and opens a screen, with taps only. */
async function guestOn(device: Device, name: string, open: (play: PlayPage) => Promise<void>): Promise<PlayPage> {
  const play = await PlayPage.open(browser, t.baseUrl, device);
  await play.playAsGuest(name, "tap");
  expect(await play.scrollsSideways()).toBe(false);
  expect(await smallTargets(play)).toEqual([]);
  // Outside play the page stays zoomable for reading; play locks it (app.ts playMode).
  expect(await play.page.getAttribute('meta[name="viewport"]', "content")).not.toContain("user-scalable=no");
  await open(play);
  return play;
}

async function viaModes(play: PlayPage, button: string): Promise<void> {
  await play.page.getByRole("button", { name: "Choose a mode" }).tap();
  await play.page.getByRole("button", { name: button }).tap();
}

type Box = { x: number; y: number; width: number; height: number };

/** Where the thumbs go: the left one on the stage's left quarter; the right one beside the arena (the pad below it, the margin beside it, or the strip of hints over its foot). */
async function thumbs(play: PlayPage, canvas: string): Promise<{ left: { x: number; y: number }; right: { x: number; y: number } }> {
  const stage = (await play.page.locator(`${canvas} >> xpath=..`).boundingBox()) as Box;
  const arena = (await play.page.locator(canvas).boundingBox()) as Box;
  const below = stage.y + stage.height - (arena.y + arena.height);
  const strip = (await play.page.locator(`${canvas} ~ .touch-pad`).boundingBox()) as Box;
  const beside = stage.x + stage.width - (arena.x + arena.width);
  const right =
    below > 60
      ? { x: stage.x + stage.width * 0.8, y: arena.y + arena.height + below / 2 }
      : beside > 40
        ? { x: arena.x + arena.width + beside / 2, y: arena.y + arena.height * 0.6 }
        : { x: stage.x + stage.width * 0.85, y: strip.y + strip.height / 2 };
  const left = { x: stage.x + stage.width * 0.2, y: arena.y + arena.height * 0.6 };
  // Both thumbs reach their controls without scrolling.
  const window = play.page.viewportSize()!;
  for (const p of [left, right]) expect(p.y < window.height && p.x < window.width, `a thumb at (${p.x}, ${p.y}) is off screen`).toBe(true);
  return { left, right };
}

/** Two fingers land around (x, y) and spread apart, as a pinch-zoom does; then they lift. */
async function pinch(fingers: Fingers, x: number, y: number): Promise<void> {
  await fingers.press(7, x - 15, y - 10);
  await fingers.press(8, x + 15, y + 10);
  await fingers.drag(7, x - 120, y - 80, 8);
  await fingers.drag(8, x + 120, y + 80, 8);
  await fingers.lift(8);
  await fingers.lift(7);
}

/** How far the page is zoomed (1: not at all). */
const zoom = (play: PlayPage) => play.page.evaluate(() => window.visualViewport?.scale ?? 1);

/** Pinches over the element's centre: the page must not zoom. */
async function pinchOver(play: PlayPage, selector: string): Promise<void> {
  const box = (await play.page.locator(selector).first().boundingBox()) as Box;
  const fingers = await play.fingers();
  await pinch(fingers, box.x + box.width / 2, box.y + box.height / 2);
  expect(await zoom(play), `a pinch over ${selector} zoomed the page`).toBe(1);
}

/** Visible buttons, links, fields and summaries under 44 x 44 CSS px (each as "text: w x h"). */
async function smallTargets(play: PlayPage): Promise<string[]> {
  return play.page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("button, a[href], select, input, textarea, summary"))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return el.checkVisibility() && r.width > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
      })
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 43.5 || r.height < 43.5)
      .map(({ el, r }) => `${(el.textContent || el.id || el.tagName).trim().slice(0, 30)}: ${r.width.toFixed(0)} x ${r.height.toFixed(0)}`),
  );
}

/** The canvas's share of the window: width and height. */
async function arenaShare(play: PlayPage, canvas: string): Promise<{ width: number; height: number }> {
  const box = (await play.page.locator(canvas).boundingBox()) as Box;
  const window = play.page.viewportSize()!;
  return { width: box.width / window.width, height: box.height / window.height };
}

/** On the tablet the arena takes the width (and in landscape at least 55 % of the height); on phones in portrait, too. */
async function expectArenaUsesScreen(play: PlayPage, canvas: string, device: Device): Promise<void> {
  const share = await arenaShare(play, canvas);
  console.log(`[mobile] ${device.name} ${canvas}: ${(share.width * 100).toFixed(1)} % of the width, ${(share.height * 100).toFixed(1)} % of the height`);
  if (device.name === "tablet" || device.name.endsWith("portrait")) expect(share.width).toBeGreaterThanOrEqual(0.9);
  if (device.name === "tablet") expect(share.height).toBeGreaterThanOrEqual(0.55);
  const box = (await play.page.locator(canvas).boundingBox()) as Box;
  expect(box.y + box.height, "the arena ends inside the window").toBeLessThanOrEqual(play.page.viewportSize()!.height + 0.5);
}

/** The status line shows `text` whole: not cut, not clipped, and the arena does not move for it. */
async function expectNoticeFits(play: PlayPage, canvas: string, text: string): Promise<void> {
  const { whole, moved } = await play.page.locator(".game .status-line").evaluate(
    (el, [t, sel]) => {
      const arena = document.querySelector(sel)!;
      const top = arena.getBoundingClientRect().top;
      const was = el.textContent;
      el.textContent = t;
      el.classList.remove("fresh");
      const result = { whole: el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1, moved: arena.getBoundingClientRect().top - top };
      el.textContent = was;
      return result;
    },
    [text, canvas] as const,
  );
  expect(whole, `"${text}" is cut`).toBe(true);
  expect(moved, `"${text}" moves the arena`).toBe(0);
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
  it("outside play: sign-in, progress (the character select), modes and champions have 44 px targets and stay zoomable", async () => {
    const play = await PlayPage.open(browser, t.baseUrl, device);
    const { page } = play;
    await page.getByRole("heading", { name: "Play Snakes" }).waitFor();
    expect(await smallTargets(play)).toEqual([]);
    const register = page.getByRole("form", { name: "Create an account" });
    await register.getByLabel("Username").fill(`touch${tag}${process.pid}`);
    await register.getByLabel("Password").fill("analytical engine");
    await register.getByRole("button", { name: "Create account" }).tap();
    await page.getByRole("heading", { name: /^Progress of / }).waitFor();
    await page.locator("#character").waitFor();
    expect(await smallTargets(play)).toEqual([]);
    for (const [link, heading] of [["Modes", "Choose a mode"], ["Champions", "Champions"]] as const) {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link }).tap();
      await page.getByRole("heading", { name: heading, exact: false }).first().waitFor();
      expect(await smallTargets(play)).toEqual([]);
    }
    expect(await page.getAttribute('meta[name="viewport"]', "content")).not.toContain("user-scalable=no");
    await play.screenshot(`${device.name}-champions`, { css: true });
    expect(play.errors).toEqual([]);
    await play.close();
  });

  it("boss battle: the left thumb moves the player, the right one shoots, both at once; the victory dialog fits", async () => {
    const tia = `Tia${tag}`;
    const play = await guestOn(device, tia, async (p) => {
      await p.page.getByRole("button", { name: "Fight the boss" }).tap();
      await p.page.locator("#self-bullets", { hasText: "30" }).waitFor();
    });
    const room = await roomWith<BossRoom>("boss", (r) => [...r.battle.players.values()].some((p) => p.username === `${tia} (guest)`));
    const me = () => [...room.battle.players.values()].find((p) => p.username === `${tia} (guest)`)!;
    me().invulnerableUntil = Number.MAX_SAFE_INTEGER; // the boss never ends a test about fingers
    const start = { x: me().x, y: me().y };
    await play.screenshot(`${device.name}-boss`);
    expect(await play.scrollsSideways()).toBe(false);
    expect(await play.page.getAttribute('meta[name="viewport"]', "content")).toContain("user-scalable=no");
    await expectArenaUsesScreen(play, "#boss-canvas", device);
    expect(await smallTargets(play)).toEqual([]);
    await expectNoticeFits(play, "#boss-canvas", "Hit by the boss's projectile! 1 life left.");
    await expectNoticeFits(play, "#boss-canvas", "Connection lost: reconnecting… (your seat is kept for 20 s)");

    const fingers = await play.fingers();
    const { left, right } = await thumbs(play, "#boss-canvas");
    const toward = start.x < 550 ? 1 : -1; // towards the middle of the arena
    await holdStick(fingers, left, 60 * toward, 0);
    await fingers.press(2, right.x, right.y); // the second finger, while the first still moves
    await expect.poll(() => Math.abs(me().x - start.x), { timeout: 10_000 }).toBeGreaterThanOrEqual(40);
    await expect.poll(() => me().bulletsFired, { timeout: 10_000 }).toBeGreaterThan(0);
    await play.screenshot(`${device.name}-boss-touch`, { css: true });
    await fingers.liftAll();
    await pinchOver(play, ".game .hud");
    await pinchOver(play, "#boss-canvas");
    const moved = Math.hypot(me().x - start.x, me().y - start.y);
    console.log(`[mobile] ${device.name} boss: moved ${moved.toFixed(0)} px, fired ${me().bulletsFired} (server)`);

    room.battle.health = 5; // shorten the fight, server-side
    await fingers.press(2, right.x, right.y);
    await play.page.getByRole("heading", { name: "Victory! The boss is defeated" }).waitFor({ timeout: 20_000 });
    await fingers.liftAll();
    expect(await play.inViewport("#victory-h")).toBe(true);
    expect(await play.inViewport("#victory-stats thead th:last-child")).toBe(true); // no column cut off
    expect(await play.scrollsSideways()).toBe(false);
    await pinchOver(play, "#victory .panel");
    expect(await smallTargets(play)).toEqual([]);
    await play.screenshot(`${device.name}-boss-victory`);
    expect(play.errors).toEqual([]);
    await play.close();
  });

  it("PvP duel: both players ready with a tap, move and shoot with their thumbs, the duel ends in a knock-out; the result dialog fits", async () => {
    const [annName, benName] = [`Ann${tag}`, `Ben${tag}`];
    const ann = await guestOn(device, annName, (p) => viaModes(p, "Play PvP duel"));
    await ann.page.locator("#pvp-phase", { hasText: "Waiting for an opponent" }).waitFor();
    // The arena stays where it is through every phase (the HUD never wraps differently).
    const arenaTop = async () => ((await ann.page.locator("#pvp-canvas").boundingBox()) as Box).y;
    const top = await arenaTop();
    await ann.screenshot(`${device.name}-pvp-waiting`);
    const ben = await guestOn(device, benName, (p) => viaModes(p, "Play PvP duel"));
    await ann.page.locator("#pvp-phase", { hasText: "Ready check" }).waitFor();
    await ann.page.locator("#pvp-opponent", { hasText: benName }).waitFor();
    expect(await arenaTop()).toBe(top);
    await ann.screenshot(`${device.name}-pvp-ready-check`);
    await expectArenaUsesScreen(ann, "#pvp-canvas", device);
    expect(await smallTargets(ann)).toEqual([]);
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
    expect(await arenaTop()).toBe(top);
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
    expect(await arenaTop()).toBe(top);
    await ann.page.locator("#pvp-ready", { hasText: "Ready for a rematch" }).waitFor();
    expect(await smallTargets(ann)).toEqual([]);
    await pinchOver(ann, "#pvp-result .panel");
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
    await expectArenaUsesScreen(sal, "#slither-canvas", device);
    expect(await smallTargets(sal)).toEqual([]);

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

    // A bot (an SDK client, protected: Sal's own fire cannot touch it) shoots Sal, standing in front
    // of it, while both of Sal's thumbs are held on the screen (issue 36: the notice came up under
    // them and their next moves zoomed the page 2.8-4.4x).
    const bot = await t.sdk().joinById(room.roomId, { username: `Bot${tag}` });
    bot.onMessage("*", () => {});
    const place = (username: string, x: number, dx: number) => {
      const s = [...room.arena.players.values()].find((p) => p.username === username)!;
      s.dirX = dx;
      s.dirY = 0;
      s.body = buildBody({ x, y: 1000 }, dx || 1, 0, s.length, room.arena.size);
      s.protectedUntil = room.arena.tick - 1;
      s.epoch++; // a fresh body elsewhere, as after a respawn: clients get it whole
      return s;
    };
    place(`Bot${tag} (guest)`, 1000, 1).protectedUntil = room.arena.tick + 100_000;
    place(`${salName} (guest)`, 1300, 0);
    const deaths = snake().deaths;
    await fingers.press(1, left.x, left.y); // held still: no steering
    await fingers.press(2, right.x, right.y); // held: fire
    bot.send("slitherrush_input", { shoot: true });
    await sal.page.getByRole("heading", { name: "You were shot" }).waitFor({ timeout: 15_000 });
    bot.send("slitherrush_input", { shoot: false });
    expect(await sal.inViewport("#death-h")).toBe(true);
    await sal.screenshot(`${device.name}-slitherrush-death`, { css: true });
    // The held thumbs move on, apart (a pinch's motion), then two fingers pinch where the notice
    // shows (the arena's top edge) and over the HUD.
    await fingers.drag(1, left.x - 30, left.y - 60, 8);
    await fingers.drag(2, right.x + 30, right.y + 60, 8);
    await fingers.liftAll();
    const stage = (await sal.page.locator("#slither-canvas").boundingBox()) as Box;
    await pinch(await sal.fingers(), stage.x + stage.width / 2, stage.y + 30);
    await pinchOver(sal, ".game .hud");
    const scale = await zoom(sal);
    console.log(`[mobile] ${device.name} slitherrush death under two held thumbs: visualViewport.scale ${scale}`);
    expect(scale).toBe(1);
    expect(snake().deaths).toBe(deaths + 1);

    // The respawned snake is drawn at the arena's centre (the camera follows its head) and nothing
    // covers it: not the notice, which then clears itself.
    const ownHeadVisible = () =>
      sal.page.locator("#slither-canvas").evaluate((canvas: HTMLCanvasElement) => {
        const r = canvas.getBoundingClientRect();
        const cx = r.left + r.width / 2;
        const cy = r.top + r.height / 2;
        if (document.elementFromPoint(cx, cy) !== canvas) return "covered";
        const [red, green, blue] = canvas.getContext("2d")!.getImageData(canvas.width / 2, canvas.height / 2, 1, 1).data;
        const background = [[0x0e, 0x15, 0x22], [0x1a, 0x24, 0x38], [0x07, 0x0b, 0x12]];
        return background.some(([r2, g2, b2]) => Math.abs(red - r2) + Math.abs(green - g2) + Math.abs(blue - b2) < 30) ? "not drawn" : "visible";
      });
    await expect.poll(ownHeadVisible, { timeout: 5_000 }).toBe("visible");
    await sal.page.locator("#slither-death").waitFor({ state: "hidden", timeout: 6_000 });
    expect(await ownHeadVisible()).toBe("visible");
    expect(await zoom(sal)).toBe(1);
    await sal.screenshot(`${device.name}-slitherrush-respawned`);
    await bot.leave();
    expect(sal.errors).toEqual([]);
    await sal.close();
  });
});
