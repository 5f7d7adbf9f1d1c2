// Issue 42: classes, join codes, roster imports and a class's figures over the real server, with
// who is online in which mode (rooms joined with the SDK). Roles are set as the operator's
// set-role does (src/stores/accounts.ts).
import type { Room as SdkRoom } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually } from "../helpers/boss.js";
import { setAccountRole } from "../../src/stores/accounts.js";
import { parseCsv } from "../../src/classes/csv.js";
import { CLASS_CODE_ALPHABET } from "../../src/classes/codes.js";
import { studentsResponse, questionsResponse, rosterResponse, classListResponse } from "../../src/http/classesWire.js";
import { ROSTER_CSV_HEADER } from "../../src/classes/figures.js";
import { execute } from "../../src/admin/commands.js";

let t: TestApp;
type Account = Awaited<ReturnType<TestApp["account"]>>;
let teacher: Account;
let otherTeacher: Account;
let admin: Account;
let student: Account;
let classId: number;
let code: string;
const tag = `${process.pid % 100000}`;
const CODE = new RegExp(`^[${CLASS_CODE_ALPHABET}]{7}$`);

beforeAll(async () => {
  t = await startTestApp();
  teacher = await t.account(`teach_${tag}`);
  otherTeacher = await t.account(`teach2_${tag}`);
  admin = await t.account(`admin_${tag}`);
  student = await t.account(`pupil_${tag}`);
  await setAccountRole(t.prisma, teacher.user.id, "teacher");
  await setAccountRole(t.prisma, otherTeacher.user.id, "teacher");
  await setAccountRole(t.prisma, admin.user.id, "admin");
  const made = await teacher.http.post("/api/classes", { name: "  Year 8 CS  " });
  expect(made.status, made.text).toBe(201);
  classId = made.body.class.id;
  code = made.body.class.code;
});

afterAll(async () => {
  await t?.stop();
});

describe("classes and codes", () => {
  it("a teacher creates a class with a short unambiguous code; students and strangers cannot", async () => {
    expect(code).toMatch(CODE);
    const mine = await teacher.http.get("/api/classes");
    expect(classListResponse.parse(mine.body).classes.map((c) => c.name)).toEqual(["Year 8 CS"]);
    expect((await student.http.post("/api/classes", { name: "mine" })).body.error.code).toBe("forbidden");
    expect((await t.http().post("/api/classes", { name: "x" })).status).toBe(401);
    expect((await teacher.http.post("/api/classes", { name: "" })).status).toBe(400);
    expect((await otherTeacher.http.get("/api/classes")).body.classes).toEqual([]);
    const all = await admin.http.get("/api/classes");
    expect(all.body.classes.map((c: { id: number }) => c.id)).toContain(classId);
  });

  it("a student joins with the code in any case and spacing; again changes nothing; a wrong code is a 404", async () => {
    const typed = `${code.slice(0, 3).toLowerCase()}-${code.slice(3)} `;
    const first = await student.http.post("/api/classes/join", { code: typed });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ class: { id: classId, name: "Year 8 CS" }, joined: true });
    expect((await student.http.post("/api/classes/join", { code })).body.joined).toBe(false);
    const wrong = await student.http.post("/api/classes/join", { code: "0000000" });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe("class_not_found");
    expect((await t.http().post("/api/classes/join", { code })).status).toBe(401);
  });

  it("rotating the code retires the old one", async () => {
    const made = await teacher.http.post("/api/classes", { name: "Rotating" });
    const rotated = await teacher.http.post(`/api/classes/${made.body.class.id}/code`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.class.code).toMatch(CODE);
    expect(rotated.body.class.code).not.toBe(made.body.class.code);
    const other = await t.account();
    expect((await other.http.post("/api/classes/join", { code: made.body.class.code })).status).toBe(404);
    expect((await other.http.post("/api/classes/join", { code: rotated.body.class.code })).status).toBe(200);
  });

  it("another teacher gets 403 on every route of the class, a student 403, no session 401; an unknown class 404", async () => {
    const paths: Array<[string, string, unknown?]> = [
      ["POST", `/api/classes/${classId}/code`],
      ["DELETE", `/api/classes/${classId}/students/${student.user.id}`],
      ["GET", `/api/classes/${classId}/students`],
      ["GET", `/api/classes/${classId}/students.csv`],
      ["GET", `/api/classes/${classId}/questions`],
    ];
    for (const [method, path] of paths) {
      expect((await otherTeacher.http.request(method, path)).status, `${method} ${path}`).toBe(403);
      expect((await student.http.request(method, path)).status, `${method} ${path}`).toBe(403);
      expect((await t.http().request(method, path)).status, `${method} ${path}`).toBe(401);
    }
    const roster = await otherTeacher.http.request("POST", `/api/classes/${classId}/roster`, "username\nsneaky_one\n", { "content-type": "text/csv" });
    expect(roster.status).toBe(403);
    expect(await t.prisma.user.count({ where: { username: "sneaky_one" } })).toBe(0);
    expect((await teacher.http.get("/api/classes/99999999/students")).status).toBe(404);
    expect((await teacher.http.get("/api/classes/abc/students")).status).toBe(400);
    const refused = await t.prisma.auditEntry.findMany({ where: { actorId: otherTeacher.user.id, classId } });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.result === "forbidden")).toBe(true);
  });
});

describe("figures", () => {
  it("what the student did shows per student, per topic and per question", async () => {
    await student.http.get("/api/snakes/");
    expect((await student.http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 })).status).toBe(200);
    expect((await student.http.post("/api/snakes/answer-question", { square: 7, correct: true, bullets_earned: 3 })).status).toBe(200);
    expect((await student.http.post("/api/snakes/answer-question", { square: 8, correct: false })).status).toBe(200);
    const res = await teacher.http.get(`/api/classes/${classId}/students`);
    expect(res.status, res.text).toBe(200);
    const body = studentsResponse.parse(res.body);
    const me = body.students.find((s) => s.id === student.user.id)!;
    expect(me).toMatchObject({ username: student.user.username, lessonsCompleted: 1, squaresRight: 1, squaresWrong: 1, bullets: 8, online: null, locked: false, muted: false });
    expect(me.topics.find((x) => x.topic === "variables_and_types")).toEqual({ topic: "variables_and_types", right: 1, wrong: 0 });
    expect(me.topics.find((x) => x.topic === "conditionals")).toEqual({ topic: "conditionals", right: 0, wrong: 1 });
    expect(me.lastSeenAt).not.toBeNull();
    const q = questionsResponse.parse((await teacher.http.get(`/api/classes/${classId}/questions`)).body);
    expect(q.questions).toHaveLength(50);
    expect(q.questions[0]).toMatchObject({ square: 8, topic: "conditionals", wrong: 1 });
    expect(q.questions[0].question.length).toBeGreaterThan(5);
    expect(q.topics.find((x) => x.topic === "conditionals")!.wrong).toBe(1);
    // An admin reads any class.
    expect((await admin.http.get(`/api/classes/${classId}/students`)).status).toBe(200);
  });

  it("the roster CSV: a header, one row per student, formulas defused", async () => {
    const res = await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username,display_name\nformula_${tag},"=HYPERLINK(""x"")"\n`, { "content-type": "text/csv" });
    expect(res.status, res.text).toBe(201);
    const csv = await teacher.http.get(`/api/classes/${classId}/students.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(csv.text);
    expect(rows[0].fields).toEqual([...ROSTER_CSV_HEADER]);
    const formula = rows.find((r) => r.fields[1] === `formula_${tag}`)!;
    expect(formula.fields[2]).toBe(`'=HYPERLINK("x")`);
    expect(rows.find((r) => r.fields[1] === student.user.username)!.fields[3]).toBe("1");
    expect((await t.prisma.auditEntry.count({ where: { action: "class.export_csv", actorId: teacher.user.id } }))).toBe(1);
  });

  it("removing a student takes it out of the class and deletes nothing of its own", async () => {
    const kid = await t.account();
    expect((await kid.http.post("/api/classes/join", { code: (await teacher.http.get("/api/classes")).body.classes[0].code })).status).toBe(200);
    await kid.http.post("/api/snakes/complete-lesson", { lesson_number: 2 });
    const before = await t.prisma.gameProgress.findUnique({ where: { userId: kid.user.id } });
    const res = await teacher.http.delete(`/api/classes/${classId}/students/${kid.user.id}`);
    expect(res.body).toEqual({ removed: true });
    expect((await teacher.http.delete(`/api/classes/${classId}/students/${kid.user.id}`)).body).toEqual({ removed: false });
    expect((await teacher.http.get(`/api/classes/${classId}/students`)).body.students.map((s: { id: number }) => s.id)).not.toContain(kid.user.id);
    expect(await t.prisma.gameProgress.findUnique({ where: { userId: kid.user.id } })).toEqual(before);
    expect(await t.prisma.user.count({ where: { id: kid.user.id } })).toBe(1);
  });
});

describe("roster import", () => {
  it("creates the accounts with easy-to-type passwords shown once; they sign in with them", async () => {
    const csv = `username,display_name\r\nr1_${tag},"Lovelace, Ada"\r\nr2_${tag},\r\n`;
    const res = await teacher.http.request("POST", `/api/classes/${classId}/roster`, csv, { "content-type": "text/csv" });
    expect(res.status, res.text).toBe(201);
    const { students } = rosterResponse.parse(res.body);
    expect(students.map((s) => [s.username, s.displayName])).toEqual([[`r1_${tag}`, "Lovelace, Ada"], [`r2_${tag}`, null]]);
    for (const s of students) {
      expect(s.password).toMatch(/^[a-z]{4}-[a-z]{4}-[a-z]{4}-[2-9]{2}$/);
      expect((await t.http().post("/api/auth/login", { username: s.username, password: s.password })).status).toBe(200);
    }
    const listed = (await teacher.http.get(`/api/classes/${classId}/students`)).body.students.map((s: { username: string }) => s.username);
    expect(listed).toEqual(expect.arrayContaining([`r1_${tag}`, `r2_${tag}`]));
    const entry = await t.prisma.auditEntry.findFirst({ where: { action: "class.import_roster", result: "ok", actorId: teacher.user.id }, orderBy: { id: "desc" } });
    expect(entry).toMatchObject({ classId, actorRole: "teacher" });
  });

  it("answers a printable CSV with Accept: text/csv or ?format=csv", async () => {
    const byAccept = await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\np1_${tag}\n`, { "content-type": "text/csv", accept: "text/csv" });
    expect(byAccept.status).toBe(201);
    expect(byAccept.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(byAccept.text);
    expect(rows[0].fields).toEqual(["username", "display_name", "password"]);
    expect(rows[1].fields[0]).toBe(`p1_${tag}`);
    const byQuery = await teacher.http.request("POST", `/api/classes/${classId}/roster?format=csv`, `username\np2_${tag}\n`, { "content-type": "text/csv" });
    expect(parseCsv(byQuery.text)[1].fields[0]).toBe(`p2_${tag}`);
  });

  it("an existing username or an invalid row refuses the whole import, naming each line; nothing is created", async () => {
    const users = await t.prisma.user.count();
    const taken = await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\nfresh_${tag}\n${student.user.username.toUpperCase()}\n`, { "content-type": "text/csv" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("username_taken");
    expect(taken.body.error.details.problems).toEqual([expect.objectContaining({ line: 3, field: "username" })]);
    const invalid = await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\nok_${tag}\nno spaces\nok_${tag}\nab\n`, { "content-type": "text/csv" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_roster");
    expect(invalid.body.error.details.problems.map((p: { line: number }) => p.line)).toEqual([3, 4, 5]);
    expect((await teacher.http.request("POST", `/api/classes/${classId}/roster`, `name\nx_${tag}\n`, { "content-type": "text/csv" })).body.error.details.problems[0].field).toBe("header");
    expect((await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\n"unclosed\n`, { "content-type": "text/csv" })).status).toBe(400);
    expect((await teacher.http.post(`/api/classes/${classId}/roster`, { username: "json" })).status).toBe(415);
    const big = `username\n${Array.from({ length: 201 }, (_, i) => `big${i}_${tag}`).join("\n")}\n`;
    expect((await teacher.http.request("POST", `/api/classes/${classId}/roster`, big, { "content-type": "text/csv" })).status).toBe(400);
    expect((await teacher.http.request("POST", `/api/classes/${classId}/roster`, `username\n${"x".repeat(70 * 1024)}\n`, { "content-type": "text/csv" })).status).toBe(413);
    expect(await t.prisma.user.count()).toBe(users);
  });
});

describe("online now, and in which mode", () => {
  const onlineOf = async (userId: number) => (await teacher.http.get(`/api/classes/${classId}/students`)).body.students.find((s: { id: number }) => s.id === userId)?.online;

  it("a room join shows within 5 s with its mode and since; leaving clears it within 5 s", async () => {
    const joined = Date.now();
    const rooms: SdkRoom[] = [];
    try {
      rooms.push(await t.sdk(student.cookie).joinOrCreate("mode_select", {}));
      const seen = await eventually(async () => (await onlineOf(student.user.id))?.mode === "mode_select" && (await onlineOf(student.user.id)), "mode_select online", 5000);
      expect(Date.parse(seen.since)).toBeGreaterThanOrEqual(joined - 1000);
      // A game room wins over the mode page while the account is in both.
      rooms.push(await t.sdk(student.cookie).joinOrCreate("boss_lobby", {}));
      await eventually(async () => (await onlineOf(student.user.id))?.mode === "boss_lobby", "boss_lobby online", 5000);
    } finally {
      for (const r of rooms) await r.leave();
    }
    await eventually(async () => (await onlineOf(student.user.id)) === null, "offline after leaving", 5000);
    // A guest in a room is nobody's student.
    const guest = await t.sdk().joinOrCreate("mode_select", {});
    await guest.leave();
  });
});

describe("limits are per account, not per address", () => {
  it("a teacher over its limit is refused; another teacher behind the same address is not", async () => {
    const address = { "x-forwarded-for": "198.51.100.7" };
    const made = await teacher.http.post("/api/classes", { name: "Limits" });
    let last = 0;
    for (let i = 0; i < 61 && last !== 429; i++) last = (await teacher.http.post(`/api/classes/${made.body.class.id}/code`, undefined, address)).status;
    expect(last).toBe(429);
    expect((await otherTeacher.http.post("/api/classes", { name: "Mine" }, address)).status).toBe(201);
  });
});

describe("operator commands", () => {
  it("create-account prints one line with a one-time password; set-role changes the role; both are audited as the operator", async () => {
    const deps = { prisma: t.prisma, sessions: t.app.ctx.sessions, db: t.app.ctx.db };
    const made = await execute({ command: "create-account", values: { username: `op_teacher_${tag}`, role: "teacher" }, positionals: [] }, deps);
    expect(made.code).toBe(0);
    expect(made.stdout).toHaveLength(1);
    const line = made.stdout[0] as { id: number; username: string; role: string; password: string };
    expect(line).toMatchObject({ username: `op_teacher_${tag}`, role: "teacher" });
    expect((await t.http().post("/api/auth/login", { username: line.username, password: line.password })).status).toBe(200);
    const again = await execute({ command: "create-account", values: { username: `OP_TEACHER_${tag}`, role: "admin" }, positionals: [] }, deps);
    expect(again.code).toBe(1);
    const role = await execute({ command: "set-role", values: { username: line.username, role: "admin" }, positionals: [] }, deps);
    expect(role.stdout[0]).toMatchObject({ role: "admin", previous_role: "teacher" });
    expect((await t.prisma.user.findUnique({ where: { id: line.id } }))!.role).toBe("admin");
    const entries = await t.prisma.auditEntry.findMany({ where: { targetId: line.id }, orderBy: { id: "asc" } });
    expect(entries.map((e) => [e.action, e.actorRole, e.result])).toEqual([
      ["account.create", "operator", "ok"],
      ["account.set_role", "operator", "ok"],
    ]);
  });
});
