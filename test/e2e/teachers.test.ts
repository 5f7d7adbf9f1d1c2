// The teacher's dashboard (#/teacher) and the admin screen (#/admin) of /play in headless Chromium
// against the real server: a teacher creates a class, imports a roster (one-time passwords shown
// once, a printable CSV), watches the class live (a student's room shows as "online — in <mode>"
// within 5 s, without a reload), reads what the class gets wrong, exports the CSV and helps a
// student; a student joins by code at sign-up and from the menu; an admin finds, exports and erases
// an account and reads the audit log. At 1280×720 (mouse and keyboard) and on a 1024×768 touch screen.
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { HttpClient, TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage, TABLET } from "../helpers/browser.js";

let t: TestApp;
let browser: Browser;
const password = "correct horse battery";
const tag = String(process.pid % 100000);
const teacherName = `ms_l${tag}`;
const adminName = `root${tag}`;
const className = "7B Computing";
let teacherHttp: HttpClient;
let classId: number;

browserSuite((app, b) => {
  t = app;
  browser = b;
});

async function accountWithRole(username: string, role: "teacher" | "admin") {
  const account = await t.account(username, password);
  await t.prisma.user.update({ where: { id: account.user.id }, data: { role } });
  return account;
}

beforeAll(async () => {
  teacherHttp = (await accountWithRole(teacherName, "teacher")).http;
  await accountWithRole(adminName, "admin");
});

async function signIn(page: Page, username: string, pass = password): Promise<void> {
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill(pass);
  await form.getByRole("button", { name: "Sign in" }).click();
}

/** The roster row of `username`. */
const row = (page: Page, username: string) => page.locator("#roster-body tr", { hasText: username });

describe("/play teacher's dashboard", () => {
  let play: PlayPage;
  let code: string;
  let roster: Array<{ id: number; username: string; password: string }>;

  it("creates a class and imports a roster whose one-time passwords are shown once and download as CSV", async () => {
    play = await PlayPage.open(browser, t.baseUrl);
    const { page } = play;
    await signIn(page, teacherName);
    // A teacher lands on the classes, and has no "Join a class" entry.
    await page.getByRole("heading", { name: "Your classes" }).waitFor();
    await expect(page.getByRole("link", { name: "Join a class" }).count()).resolves.toBe(0);
    await page.getByText("No class yet").waitFor();

    const create = page.getByRole("form", { name: "Create a class" });
    await create.getByLabel("New class").fill(className);
    await create.getByRole("button", { name: "Create class" }).click();
    await page.getByRole("heading", { name: className, level: 2 }).waitFor();
    code = (await page.locator("#join-code").textContent())!.trim();
    expect(code).toMatch(/^[A-Z0-9]{4,12}$/);
    const [stored] = (await teacherHttp.get("/api/classes")).body.classes;
    classId = stored.id;
    expect(stored.code).toBe(code);

    await page.locator("summary", { hasText: "Import a roster" }).click();
    const usernames = [`ada${tag}`, `alan${tag}`, `grace${tag}`];
    await page.getByLabel("Roster (CSV)").fill(`username,display_name\n${usernames[0]},Ada L.\n${usernames[1]},Alan T.\n${usernames[2]},Grace H.\n`);
    await page.getByRole("button", { name: "Create the accounts" }).click();
    await page.getByRole("heading", { name: /3 accounts created/ }).waitFor();
    const shown = await page.locator("#one-time-passwords tbody tr").evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td"), (c) => c.textContent)));
    expect(shown.map((r) => r[0])).toEqual(usernames);
    roster = shown.map((r, i) => ({ id: 0, username: usernames[i], password: r[2]! }));
    for (const s of roster) expect(s.password.length).toBeGreaterThanOrEqual(8);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download printable CSV" }).click()]);
    const csv = await readFile((await download.path())!, "utf8");
    expect(csv.split("\r\n")[0]).toBe("class,username,display_name,password");
    for (const s of roster) expect(csv).toContain(`${className},${s.username},`);
    for (const s of roster) expect(csv).toContain(s.password);
    // The roster fills in without a reload.
    for (const name of usernames) await row(page, name).waitFor();
    await play.screenshot("teacher-roster-import");

    // Hidden, they are gone from the page.
    await page.getByRole("button", { name: "Hide the passwords" }).click();
    await expect(page.locator("#one-time-passwords").count()).resolves.toBe(0);
    await page.locator("summary", { hasText: "Import a roster" }).click();

    // The passwords work: a student signs in with theirs.
    const student = t.http();
    expect((await student.post("/api/auth/login", { username: roster[0].username, password: roster[0].password })).status).toBe(200);
    roster = roster.map((s) => ({ ...s, id: 0 }));
    expect(play.errors).toEqual([]);
  });

  it("a student joins by code at sign-up; a wrong code gets a readable error and can be fixed from the menu", async () => {
    const student = await PlayPage.open(browser, t.baseUrl);
    const { page } = student;
    student.allow(/Failed to load resource/); // the refused code's 404
    const register = page.getByRole("form", { name: "Create an account" });
    await register.getByLabel("Username").fill(`linus${tag}`);
    await register.getByLabel("Password").fill(password);
    await register.getByLabel("Class code (optional)").fill("ZZZZZZZ");
    await register.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Join a class" }).waitFor();
    await page.locator("#join-error", { hasText: /Your account is ready, but the class code was not accepted: .+/ }).waitFor();
    await student.screenshot("student-join-error");
    await page.getByRole("textbox", { name: "Class code", exact: true }).fill(code.toLowerCase());
    await page.getByRole("button", { name: "Join", exact: true }).click();
    await page.locator("#join-done", { hasText: `You are in ${className}` }).waitFor();
    // The menu has the entry for later.
    await page.getByRole("link", { name: "Join a class" }).waitFor();
    await play.page.locator("#roster-body tr", { hasText: `linus${tag}` }).waitFor({ timeout: 5000 });

    // At sign-up with the right code: straight in.
    const second = await PlayPage.open(browser, t.baseUrl);
    const form = second.page.getByRole("form", { name: "Create an account" });
    await form.getByLabel("Username").fill(`barbara${tag}`);
    await form.getByLabel("Password").fill(password);
    await form.getByLabel("Class code (optional)").fill(code);
    await form.getByRole("button", { name: "Create account" }).click();
    await second.page.getByRole("heading", { name: `Progress of barbara${tag}` }).waitFor();
    await play.page.locator("#roster-body tr", { hasText: `barbara${tag}` }).waitFor({ timeout: 5000 });
    expect(student.errors).toEqual([]);
    expect(second.errors).toEqual([]);
    await Promise.all([student.close(), second.close()]);
  });

  it("shows a student's room as “online — in <mode>” within 5 s, without a reload, and their answers by topic", async () => {
    const { page } = play;
    const student = t.http();
    await student.post("/api/auth/login", { username: roster[1].username, password: roster[1].password });
    // Wrong and right answers: the class's weakest topic and questions.
    for (const square of [7, 8, 9]) await student.post("/api/snakes/answer-question", { square, correct: false, bullets_earned: 0 });
    await student.post("/api/snakes/answer-question", { square: 10, correct: true, bullets_earned: 10 });
    await student.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 });

    const pageLoads = await page.evaluate(() => performance.getEntriesByType("navigation").length);
    const started = Date.now();
    const snake = await t.sdk(student.cookieHeader).joinOrCreate("slitherrush", {});
    snake.onMessage("*", () => {});
    await row(page, roster[1].username).locator("td.presence", { hasText: "online — in SlitherRush" }).waitFor({ timeout: 5000 });
    const seenAfter = Date.now() - started;
    console.log(`[teachers] online in SlitherRush shown after ${seenAfter} ms`);
    expect(seenAfter).toBeLessThan(5000);
    const cells = await row(page, roster[1].username).locator("td").allTextContents();
    expect(cells.slice(1, 3)).toEqual(["1", "1 / 3"]); // lessons; squares right / wrong
    await page.locator("#class-topic-table tbody tr").first().waitFor({ timeout: 15_000 });
    await page.locator("#class-question-table tbody tr").first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await play.screenshot("teacher-dashboard-1280");
    await page.screenshot({ path: `${(await import("../helpers/browser.js")).ARTIFACTS_DIR}/teacher-dashboard-1280-full.png`, fullPage: true });

    await snake.leave();
    await row(page, roster[1].username).locator("td.presence", { hasText: "offline" }).waitFor({ timeout: 5000 });
    expect(await page.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(pageLoads);
    // Nothing overflows at 1280×720: the roster's twelve columns fit without scrolling.
    expect(await play.scrollsSideways()).toBe(false);
    expect(await page.locator("#roster").evaluate((el) => el.parentElement!.scrollWidth <= el.parentElement!.clientWidth)).toBe(true);
    expect(play.errors).toEqual([]);
  });

  it("stops polling while the tab is hidden", async () => {
    const { page } = play;
    const count = () => page.evaluate(() => performance.getEntriesByType("resource").filter((e) => /\/students$/.test(e.name)).length);
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    const before = await count();
    await new Promise((r) => setTimeout(r, 4500)); // the absence of requests over two poll periods
    expect(await count()).toBeLessThanOrEqual(before + 1); // at most the one already under way
    const hidden = await count();
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await expect.poll(count, { timeout: 3000 }).toBeGreaterThan(hidden);
  });

  it("rotates the join code and exports the roster's figures as CSV", async () => {
    const { page } = play;
    await page.getByRole("button", { name: "New code" }).click();
    await page.getByRole("dialog", { name: "Please confirm" }).getByRole("button", { name: "Make a new code" }).click();
    await expect.poll(async () => (await page.locator("#join-code").textContent())?.trim()).not.toBe(code);
    const fresh = (await page.locator("#join-code").textContent())!.trim();
    const old = await (await t.account(undefined, password)).http.post("/api/classes/join", { code });
    expect(old.status).toBe(404);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export figures (CSV)" }).click()]);
    const csv = await readFile((await download.path())!, "utf8");
    for (const s of roster) expect(csv).toContain(s.username);
    expect(download.suggestedFilename()).toBe("7B-Computing-figures.csv");
    code = fresh;
    expect(play.errors).toEqual([]);
  });

  it("helps a student by keyboard: new password, lock and unlock, mute, end sessions, remove from the class", async () => {
    const { page } = play;
    const s = roster[2];
    // Keyboard only: focus the name, Enter opens the student's dialog, Esc closes it.
    await row(page, s.username).getByRole("button").focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: /Grace H\./ });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.closest("tr")?.textContent)).toContain(s.username);
    await page.keyboard.press("Enter");
    await dialog.waitFor();

    await dialog.getByRole("button", { name: "New password" }).click();
    await page.getByRole("dialog", { name: "Please confirm" }).getByRole("button", { name: "Make a new password" }).click();
    const fresh = (await dialog.locator("#new-password").textContent())!;
    expect(fresh.length).toBeGreaterThanOrEqual(8);
    await play.screenshot("teacher-help-student");
    const student = t.http();
    expect((await student.post("/api/auth/login", { username: s.username, password: s.password })).status).toBe(401);
    expect((await student.post("/api/auth/login", { username: s.username, password: fresh })).status).toBe(200);

    await dialog.getByRole("button", { name: "Lock", exact: true }).click();
    await dialog.getByText(`${s.username} is locked out.`).waitFor();
    expect((await t.http().post("/api/auth/login", { username: s.username, password: fresh })).status).toBe(403);
    await row(page, s.username).locator(".flags", { hasText: "locked" }).waitFor({ timeout: 5000 });
    await dialog.getByRole("button", { name: "Unlock" }).click();
    await dialog.getByText(`${s.username} may sign in again.`).waitFor();
    expect((await t.http().post("/api/auth/login", { username: s.username, password: fresh })).status).toBe(200);

    await dialog.getByRole("button", { name: "Mute in chat" }).click();
    await dialog.getByText(/is muted/).waitFor();
    await row(page, s.username).locator(".flags", { hasText: "muted" }).waitFor({ timeout: 5000 });

    await dialog.getByRole("button", { name: "End sessions" }).click();
    await dialog.getByText(/sessions ended/).waitFor();
    expect((await student.get("/api/auth/me")).status).toBeGreaterThanOrEqual(401);

    await dialog.getByRole("button", { name: "Remove from class" }).click();
    const confirm = page.getByRole("dialog", { name: "Please confirm" });
    await confirm.getByRole("button", { name: "Keep" }).click();
    await expect(row(page, s.username).count()).resolves.toBe(1);
    await dialog.getByRole("button", { name: "Remove from class" }).click();
    await confirm.getByRole("button", { name: "Remove from class" }).click();
    await dialog.waitFor({ state: "detached" });
    await row(page, s.username).waitFor({ state: "detached", timeout: 5000 });
    // Removing deletes nothing of theirs.
    expect(await t.prisma.user.count({ where: { username: s.username } })).toBe(1);
    expect(play.errors).toEqual([]);
  });

  it("fits a 1024×768 touch screen: no clipped table, 44 px targets, the help dialog by touch", async () => {
    const tablet = await PlayPage.open(browser, t.baseUrl, TABLET);
    const { page } = tablet;
    const form = page.getByRole("form", { name: "Sign in" });
    await form.getByLabel("Username").fill(teacherName);
    await form.getByLabel("Password").fill(password);
    await form.getByRole("button", { name: "Sign in" }).tap();
    await row(page, roster[0].username).waitFor();
    await tablet.screenshot("teacher-dashboard-1024", { css: true });
    expect(await tablet.scrollsSideways()).toBe(false);
    expect(await page.locator("#roster").evaluate((el) => el.parentElement!.scrollWidth <= el.parentElement!.clientWidth)).toBe(true);
    const small = await page.locator("main button:visible, main summary:visible, main input:visible").evaluateAll((els) =>
      els.map((el) => el.getBoundingClientRect()).filter((r) => r.width < 44 || r.height < 44).length,
    );
    expect(small).toBe(0);
    await row(page, roster[0].username).getByRole("button").tap();
    const dialog = page.getByRole("dialog", { name: /Ada L\./ });
    await dialog.waitFor();
    expect(await tablet.inViewport("#student-dialog")).toBe(true);
    await tablet.screenshot("teacher-student-1024", { css: true });
    await dialog.getByRole("button", { name: "Close" }).tap();
    await dialog.waitFor({ state: "detached" });
    expect(tablet.errors).toEqual([]);
    await tablet.close();
  });
});

describe("/play admin screen", () => {
  it("finds, exports and erases an account (typing its name), and filters the audit log", async () => {
    const victim = await t.account(`erase${tag}`, password);
    const admin = await PlayPage.open(browser, t.baseUrl);
    const { page } = admin;
    await signIn(page, adminName);
    await page.getByRole("heading", { name: "Your classes" }).waitFor();
    await page.getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("heading", { name: "Accounts and audit log" }).waitFor();

    await page.getByLabel("Find an account").fill(`erase${tag}`);
    await page.getByRole("button", { name: "Search" }).click();
    const line = page.locator("#account-table tbody tr", { hasText: `erase${tag}` });
    await line.waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), line.getByRole("button", { name: `Export erase${tag}` }).click()]);
    const exported = JSON.parse(await readFile((await download.path())!, "utf8"));
    expect(JSON.stringify(exported)).toContain(`erase${tag}`);

    await line.getByRole("button", { name: `Erase erase${tag}` }).click();
    const dialog = page.getByRole("dialog", { name: `Erase erase${tag}?` });
    const erase = dialog.getByRole("button", { name: `Erase erase${tag}` });
    await expect(erase.isDisabled()).resolves.toBe(true);
    await dialog.getByLabel(`Type erase${tag} to confirm`).fill(`erase${tag}`.slice(0, -1));
    await expect(erase.isDisabled()).resolves.toBe(true);
    await dialog.getByLabel(`Type erase${tag} to confirm`).fill(`erase${tag}`);
    await admin.screenshot("admin-erase");
    await erase.click();
    await page.locator("#admin-status", { hasText: `erase${tag} was erased.` }).waitFor();
    expect(await t.prisma.user.count({ where: { id: victim.user.id } })).toBe(0);

    // The audit log: this erasure at once, the teacher's help actions, filtered by action.
    await page.locator("#audit-table tbody tr", { hasText: "account" }).filter({ hasText: adminName }).first().waitFor();
    await expect(page.getByRole("button", { name: "Load older entries" }).isVisible()).resolves.toBe(false); // one page holds them all
    await page.getByLabel("Action").fill("lock");
    await page.locator("#audit-table tbody tr", { hasText: teacherName }).first().waitFor();
    const actions = await page.locator("#audit-table tbody tr td:nth-child(3)").allTextContents();
    expect(actions.length).toBeGreaterThan(0);
    for (const a of actions) expect(a.toLowerCase()).toContain("lock");
    await admin.screenshot("admin-audit");
    expect(admin.errors).toEqual([]);
    await admin.close();
  });
});
