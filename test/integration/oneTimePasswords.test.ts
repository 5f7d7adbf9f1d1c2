// Issue 42: a password a teacher, an admin or the operator issued is one-time: login, register and
// GET /api/auth/me say `password_change_required` until the account chooses its own, and the issued
// one cannot be kept as the new one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountResponse, passwordChangedResponse } from "../../src/http/authWire.js";
import { rosterResponse } from "../../src/http/classesWire.js";
import { passwordResetResponse } from "../../src/http/accountHelpWire.js";
import { createIssuedAccount } from "../../src/stores/accounts.js";
import { hashPassword } from "../../src/auth/passwords.js";

let t: TestApp;
let teacher: Awaited<ReturnType<TestApp["account"]>>;
let classId: number;
const tag = process.pid % 10000;

beforeAll(async () => {
  t = await startTestApp();
  teacher = await t.account(`otpteach${tag}`, "teacher-password-1");
  await t.prisma.user.update({ where: { id: teacher.user.id }, data: { role: "teacher" } });
  classId = (await t.prisma.schoolClass.create({ data: { teacherId: teacher.user.id, name: "4a", code: `OTPC${process.pid % 100000}` } })).id;
});
afterAll(() => t?.stop());

describe("one-time passwords", () => {
  it("a roster student must choose its own password: login and me say so until it does; the issued one is refused as the new one", async () => {
    const imported = await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\notp_kid_${tag}\n`, { "content-type": "text/csv" });
    expect(imported.status, imported.text).toBe(201);
    const [issued] = rosterResponse.parse(imported.body).students;

    const kid = t.http();
    const login = await kid.post("/api/auth/login", { username: issued.username, password: issued.password });
    expect(login.status, login.text).toBe(200);
    expect(accountResponse.parse(login.body).user.password_change_required).toBe(true);
    expect(accountResponse.parse((await kid.get("/api/auth/me")).body).user.password_change_required).toBe(true);

    // Keeping the issued password: a clear 400, and nothing changes.
    const same = await kid.post("/api/auth/password", { current_password: issued.password, new_password: issued.password });
    expect(same.status, same.text).toBe(400);
    expect(same.body.error).toMatchObject({ code: "password_unchanged", message: expect.stringMatching(/differ from the one you were given/) });
    expect(accountResponse.parse((await kid.get("/api/auth/me")).body).user.password_change_required).toBe(true);

    const changed = await kid.post("/api/auth/password", { current_password: issued.password, new_password: "my-own-secret-1" });
    expect(changed.status, changed.text).toBe(200);
    expect(passwordChangedResponse.parse(changed.body).user.password_change_required).toBe(false);
    expect(accountResponse.parse((await kid.get("/api/auth/me")).body).user.password_change_required).toBe(false);
    expect((await t.prisma.user.findUniqueOrThrow({ where: { id: issued.id } })).passwordIssuedAt).toBeNull();

    // A fresh sign-in with the own password: no longer required; the issued one no longer works.
    expect((await t.http().post("/api/auth/login", { username: issued.username, password: issued.password })).status).toBe(401);
    const again = await t.http().post("/api/auth/login", { username: issued.username, password: "my-own-secret-1" });
    expect(accountResponse.parse(again.body).user.password_change_required).toBe(false);

    // The same password again, now one's own: still refused (a change that changes nothing).
    const unchanged = await kid.post("/api/auth/password", { current_password: "my-own-secret-1", new_password: "my-own-secret-1" });
    expect(unchanged.status).toBe(400);
    expect(unchanged.body.error.code).toBe("password_unchanged");

    // A teacher's reset makes it one-time again.
    const reset = await teacher.http.post(`/api/students/${issued.id}/password-reset`);
    expect(reset.status, reset.text).toBe(200);
    const relogin = await t.http().post("/api/auth/login", { username: issued.username, password: passwordResetResponse.parse(reset.body).password });
    expect(accountResponse.parse(relogin.body).user.password_change_required).toBe(true);
  });

  it("an operator-made teacher must choose too; a registered account never", async () => {
    await createIssuedAccount(t.prisma, { username: `otp_op_${tag}`, passwordHash: await hashPassword("issued-pass-22"), role: "teacher" });
    const login = await t.http().post("/api/auth/login", { username: `otp_op_${tag}`, password: "issued-pass-22" });
    expect(accountResponse.parse(login.body).user).toMatchObject({ role: "teacher", password_change_required: true });

    const registered = await t.http().post("/api/auth/register", { username: `otp_reg_${tag}`, password: "own-password-1" });
    expect(registered.status).toBe(201);
    expect(accountResponse.parse(registered.body).user.password_change_required).toBe(false);
  });
});
