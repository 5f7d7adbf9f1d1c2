// Headless Chromium (Debian's package) driven by playwright-core, for the /play end-to-end tests.
// Every page records console errors, messages it had no handler for, and uncaught exceptions; a test ends by asserting there were
// none. Screenshots go to test/e2e/artifacts/ (E2E_ARTIFACTS_DIR to change it).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
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

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error("no Chromium: apt-get install chromium, or set CHROMIUM_PATH");
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
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

  /** A fresh browser context (own cookies and storage) on /play/. */
  static async open(browser: Browser, baseUrl: string, viewport = DESKTOP): Promise<PlayPage> {
    const context = await browser.newContext({ viewport, baseURL: baseUrl });
    const page = await context.newPage();
    const play = new PlayPage(context, page);
    await page.goto("/play/");
    return play;
  }

  /** Tolerates console errors matching `re` (a request the test makes fail on purpose). */
  allow(re: RegExp): void {
    this.allowed.push(re);
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const path = join(ARTIFACTS_DIR, `${name}.png`);
    await this.page.screenshot({ path });
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

  async close(): Promise<void> {
    await this.context.close();
  }
}
