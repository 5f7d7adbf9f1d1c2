// One-time passwords in /play (issue 42): a student signed in with the password of a roster import
// must choose its own ("Choose your own password", the new one twice) before the menu, by keyboard
// and mouse at 1280×720; after a page load it asks for the handed-out one too; a teacher made by
// the operator's create-account does the same by touch on a 1024×768 tablet before its classes.
import { describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { TestApp } from "../helpers/app.js";
import { browserSuite, PlayPage, TABLET } from "../helpers/browser.js";
import { rosterResponse } from "../../src/http/classesWire.js";
import { createIssuedAccount } from "../../src/stores/accounts.js";
import { hashPassword } from "../../src/auth/passwords.js";

let t: TestApp;
let browser: Browser;
const tag = String(process.pid % 100000);

browserSuite((app, b) => {
  t = app;
  browser = b;
});

/** Roster students of a fresh teacher's class, with their one-time passwords. */
async function rosterStudents(...usernames: string[]) {
  const teacher = await t.account(`otp_t${tag}`, "teacher-password-1");
  await t.prisma.user.update({ where: { id: teacher.user.id }, data: { role: "teacher" } });
  const { id } = (await t.prisma.schoolClass.create({ data: { teacherId: teacher.user.id, name: "6c", code: `OTPE${tag}` } }));
  const res = await teacher.http.request("POST", `/api/classes/${id}/roster`, `username\n${usernames.join("\n")}\n`, { "content-type": "text/csv" });
  expect(res.status, res.text).toBe(201);
  return rosterResponse.parse(res.body).students;
}

async function signIn(page: Page, username: string, password: string, press: "click" | "tap" = "click"): Promise<void> {
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Sign in" })[press]();
}

const chooseForm = (page: Page) => page.getByRole("form", { name: "Your new password" });

describe("/play: choose your own password", () => {
  it("a roster student gets the screen before the menu, reads its errors, sets a password by keyboard and reaches the menu", async () => {
    const [kid, reloaded] = await rosterStudents(`otp_kid${tag}`, `otp_reload${tag}`);
    const play = await PlayPage.open(browser, t.baseUrl);
    const { page } = play;
    await signIn(page, kid.username, kid.password);
    const form = chooseForm(page);
    await form.waitFor();
    // Nothing else to go to: no menu entries, only signing out.
    await expect(page.locator("#nav a").count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Sign out" }).isVisible()).resolves.toBe(true);
    // The handed-out password is not asked again right after signing in.
    await expect(form.getByLabel("The password you were given").count()).resolves.toBe(0);
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("choose-new");

    const error = page.locator("#choose-error");
    await form.getByLabel("New password", { exact: true }).fill("rainbow-snake-9");
    await form.getByLabel("New password again").fill("rainbow-snake-8");
    await form.getByRole("button", { name: "Save my password" }).click();
    await expect(error.textContent()).resolves.toBe("The two new passwords are not the same. Type it again in both boxes.");
    await play.screenshot("choose-password-1280");

    await form.getByLabel("New password", { exact: true }).fill(kid.password);
    await form.getByLabel("New password again").fill(kid.password);
    await form.getByRole("button", { name: "Save my password" }).click();
    await expect(error.textContent()).resolves.toBe("Choose a new password: it must differ from the one you were given.");

    // By keyboard: type both, Enter submits.
    await form.getByLabel("New password", { exact: true }).fill("rainbow-snake-9");
    await form.getByLabel("New password again").fill("rainbow-snake-9");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: `Progress of ${kid.username}` }).waitFor();
    await expect(page.locator("#nav a").count()).resolves.toBeGreaterThan(0);
    await play.screenshot("choose-password-done-1280");
    // The server agrees, and a page load stays on the menu.
    expect((await t.http().post("/api/auth/login", { username: kid.username, password: kid.password })).status).toBe(401);
    expect((await t.http().post("/api/auth/login", { username: kid.username, password: "rainbow-snake-9" })).body.user.password_change_required).toBe(false);
    await page.reload();
    await page.getByRole("heading", { name: `Progress of ${kid.username}` }).waitFor();
    expect(play.errors).toEqual([]);
    await play.context.close();

    // Signed in, then the page reloads before choosing: the screen comes back and asks for the given one.
    const again = await PlayPage.open(browser, t.baseUrl);
    again.allow(/401/);
    await signIn(again.page, reloaded.username, reloaded.password);
    await chooseForm(again.page).waitFor();
    await again.page.goto("/play/#/home");
    await again.page.reload();
    const asked = chooseForm(again.page);
    await asked.getByLabel("The password you were given").fill("not-the-one-22");
    await asked.getByLabel("New password", { exact: true }).fill("comet-trail-44");
    await asked.getByLabel("New password again").fill("comet-trail-44");
    await asked.getByRole("button", { name: "Save my password" }).click();
    // The server's answer: wait for it to be shown.
    await again.page.locator("#choose-error", { hasText: "The password you were given is not right. Check it and try again." }).waitFor();
    await asked.getByLabel("The password you were given").fill(reloaded.password);
    await asked.getByRole("button", { name: "Save my password" }).click();
    await again.page.getByRole("heading", { name: `Progress of ${reloaded.username}` }).waitFor();
    expect(again.errors).toEqual([]);
    await again.context.close();
  });

  it("a teacher made by create-account chooses by touch on a tablet, then lands on its classes", async () => {
    const username = `otp_op${tag}`;
    await createIssuedAccount(t.prisma, { username, passwordHash: await hashPassword("bako-mitu-resa-47"), role: "teacher" });
    const tablet = await PlayPage.open(browser, t.baseUrl, TABLET);
    const { page } = tablet;
    await signIn(page, username, "bako-mitu-resa-47", "tap");
    const form = chooseForm(page);
    await form.getByLabel("New password", { exact: true }).fill("lesson-plan-77");
    await form.getByLabel("New password again").fill("lesson-plan-77");
    const save = form.getByRole("button", { name: "Save my password" });
    const box = (await save.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    await tablet.screenshot("choose-password-1024", { css: true });
    expect(await tablet.scrollsSideways()).toBe(false);
    await save.tap();
    await page.getByRole("heading", { name: "Your classes" }).waitFor();
    expect(tablet.errors).toEqual([]);
    await tablet.context.close();
  });
});
