// Headless Chromium (Debian's package) driven by playwright-core, for the /play end-to-end tests.
// Every page records console errors, messages it had no handler for, and uncaught exceptions; a test ends by asserting there were
// none. Screenshots go to test/e2e/artifacts/ (E2E_ARTIFACTS_DIR to change it).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { startTestApp, type TestApp } from "./app.js";
import { findChromium } from "../../scripts/chromium.mjs";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const ARTIFACTS_DIR = process.env.E2E_ARTIFACTS_DIR ?? fileURLToPath(new URL("../e2e/artifacts/", import.meta.url));

export const DESKTOP = { width: 1280, height: 720 };
export const NARROW = { width: 390, height: 844 };

/** A touch device in Chromium's emulation: its window, pixel ratio, touch screen and mobile viewport. */
export interface Device {
  name: string;
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
}
export const PHONE_PORTRAIT: Device = { name: "phone-portrait", viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
export const PHONE_LANDSCAPE: Device = { name: "phone-landscape", viewport: { width: 844, height: 390 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
export const TABLET: Device = { name: "tablet", viewport: { width: 1024, height: 768 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const TOUCH_DEVICES = [PHONE_PORTRAIT, PHONE_LANDSCAPE, TABLET];

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error("no Chromium: apt-get install chromium, or set CHROMIUM_PATH");
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
}

/**
 * A browser suite's surroundings: a test app and a Chromium, started before the file's tests (and
 * handed to `ready`) and stopped after them.
 */
export function browserSuite(ready: (t: TestApp, browser: Browser) => void): void {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    ready(t, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });
}

export class PlayPage {
  readonly errors: string[] = [];
  private readonly allowed: RegExp[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on("console", (msg) => {
      const text = msg.text();
      // A message the client has no handler for is a protocol gap, even though the SDK only warns.
      const unhandled = msg.type() === "warning" && text.includes("onMessage() not registered");
      if ((msg.type() === "error" || unhandled) && !this.allowed.some((re) => re.test(text))) this.errors.push(`console: ${text}`);
    });
    page.on("pageerror", (err) => this.errors.push(`page error: ${err.message}`));
  }

  /** A fresh browser context (own cookies and storage) on /play/, in a desktop window of `viewport` or on a touch `Device`. */
  static async open(browser: Browser, baseUrl: string, viewport: { width: number; height: number } | Device = DESKTOP): Promise<PlayPage> {
    const context = await browser.newContext(
      "viewport" in viewport
        ? { viewport: viewport.viewport, deviceScaleFactor: viewport.deviceScaleFactor, isMobile: viewport.isMobile, hasTouch: viewport.hasTouch, baseURL: baseUrl }
        : { viewport, baseURL: baseUrl },
    );
    const page = await context.newPage();
    const play = new PlayPage(context, page);
    await page.goto("/play/");
    return play;
  }

  /** Fills the guest form with `name` and presses its button (`tap` on a touch device); waits for the welcome. */
  async playAsGuest(name: string, press: "click" | "tap" = "click"): Promise<void> {
    const form = this.page.getByRole("form", { name: "Play as a guest" });
    await form.getByLabel("Display name").fill(name);
    await form.getByRole("button", { name: "Play as guest" })[press]();
    await this.page.getByRole("heading", { name: `Welcome, ${name}` }).waitFor();
  }

  /** Tolerates console errors matching `re` (a request the test makes fail on purpose). */
  allow(re: RegExp): void {
    this.allowed.push(re);
  }

  /** A screenshot at the device's pixel ratio; `css`: also one at one pixel per CSS pixel (`<name>.css.png`, small enough for docs/img). */
  async screenshot(name: string, { css = false } = {}): Promise<string> {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const path = join(ARTIFACTS_DIR, `${name}.png`);
    await this.page.screenshot({ path });
    if (css) await this.page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.css.png`), scale: "css" });
    return path;
  }

  /** The text of an element, once it exists. */
  async text(selector: string): Promise<string> {
    return (await this.page.locator(selector).textContent()) ?? "";
  }

  /** Resolves when the HUD's boss health (e.g. "1,990 / 2,000") is below `value`. */
  async bossHealthBelow(value: number, timeout = 20_000): Promise<number> {
    const handle = await this.page.waitForFunction(
      (limit) => {
        const text = document.getElementById("boss-health")?.textContent ?? "";
        const health = Number(text.split("/")[0].replace(/[^0-9]/g, ""));
        return text && health < limit ? health : false;
      },
      value,
      { timeout, polling: "raf" },
    );
    return (await handle.jsonValue()) as number;
  }

  /** Fingers on the touch screen (CDP Input.dispatchTouchEvent: several at once, moved one by one). */
  async fingers(): Promise<Fingers> {
    return new Fingers(await this.context.newCDPSession(this.page));
  }

  /** The page is no wider than the window: nothing scrolls sideways. */
  async scrollsSideways(): Promise<boolean> {
    return this.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  }

  /** The element's box lies inside the window (a dialog's headline is visible without scrolling). */
  async inViewport(selector: string): Promise<boolean> {
    return this.page.locator(selector).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    });
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

type Cdp = Awaited<ReturnType<BrowserContext["newCDPSession"]>>;

/** Touch points held on the screen; every event carries all of them, as a real touch screen reports. */
export class Fingers {
  private readonly down = new Map<number, { x: number; y: number }>();

  constructor(private readonly cdp: Cdp) {}

  private points() {
    return [...this.down].map(([id, p]) => ({ id, x: p.x, y: p.y, radiusX: 8, radiusY: 8, force: 1 }));
  }

  async press(id: number, x: number, y: number): Promise<void> {
    this.down.set(id, { x, y });
    await this.cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: this.points() });
  }

  /** Drags finger `id` to (x, y) in `steps` moves. */
  async drag(id: number, x: number, y: number, steps = 6): Promise<void> {
    const from = this.down.get(id)!;
    for (let i = 1; i <= steps; i++) {
      this.down.set(id, { x: from.x + ((x - from.x) * i) / steps, y: from.y + ((y - from.y) * i) / steps });
      await this.cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: this.points() });
    }
  }

  /** CDP releases the points an event leaves out; touchEnd carries none (the last finger up). */
  async lift(id: number): Promise<void> {
    this.down.delete(id);
    const rest = this.points();
    await this.cdp.send("Input.dispatchTouchEvent", rest.length ? { type: "touchMove", touchPoints: rest } : { type: "touchEnd", touchPoints: [] });
  }

  async liftAll(): Promise<void> {
    for (const id of [...this.down.keys()]) await this.lift(id);
  }
}
