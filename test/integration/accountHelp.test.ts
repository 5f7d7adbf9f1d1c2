// Issue 42: helping a student (reset, lock, unlock, mute, unmute, logout), and an admin's account
// search, export, erasure and audit log, over the real server with real Colyseus clients.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { joined } from "../helpers/boss.js";
import { ACCOUNT_LOCKED, SESSION_ENDED } from "../../src/protocol/closeCodes.js";
import { ISSUED_PASSWORD_PATTERN } from "../../src/auth/issuedPasswords.js";
import { EXPORTED_TABLES } from "../../src/accounts/export.js";
import { accountsResponse, auditResponse, exportResponse, passwordResetResponse, studentActionResponse } from "../../src/http/accountHelpWire.js";

let t: TestApp;
let teacher: Awaited<ReturnType<TestApp["account"]>>;
let admin: Awaited<ReturnType<TestApp["account"]>>;
let classId: number;
let counter = 0;
const PASSWORD = "student-password-1";

beforeAll(async () => {
  t = await startTestApp();
  teacher = await t.account(`teach${process.pid % 10000}`, "teacher-password-1");
  admin = await t.account(`adm${process.pid % 10000}`, "admin-password-1");
  await t.prisma.user.update({ where: { id: teacher.user.id }, data: { role: "teacher" } });
  await t.prisma.user.update({ where: { id: admin.user.id }, data: { role: "admin" } });
  classId = (await t.prisma.schoolClass.create({ data: { teacherId: teacher.user.id, name: "5b", code: `HLPT${process.pid % 100000}` } })).id;
});
afterAll(() => t?.stop());

/** A signed-in student in the teacher's class. */
async function student() {
  const acc = await t.account(`kid${process.pid % 10000}_${++counter}`, PASSWORD);
  await t.prisma.classMember.create({ data: { classId, userId: acc.user.id } });
  return acc;
}

const closed = (room: SdkRoom) => new Promise<{ code: number; reason?: string }>((resolve) => room.onLeave((code, reason) => resolve({ code, reason })));
const login = (username: string, password: string) => t.http().post("/api/auth/login", { username, password });

describe("helping a student (a teacher for its students)", () => {
  it("password-reset: a new one-time password; the old session is refused; the open room connection closes (4007)", async () => {
    const kid = await student();
    const lobby = await joined(t.sdk(kid.cookie).joinOrCreate("boss_lobby", {}));
    const left = closed(lobby.room);
    const res = await teacher.http.post(`/api/students/${kid.user.id}/password-reset`);
    expect(res.status, res.text).toBe(200);
    const body = passwordResetResponse.parse(res.body);
    expect(body.password).toMatch(ISSUED_PASSWORD_PATTERN);
    expect((await left).code).toBe(SESSION_ENDED);
    expect((await kid.http.get("/api/auth/me")).status).toBe(401);
    expect((await login(kid.user.username, PASSWORD)).status).toBe(401);
    expect((await login(kid.user.username, body.password)).status).toBe(200);
    const stored = await t.prisma.user.findUniqueOrThrow({ where: { id: kid.user.id } });
    expect(stored.passwordIssuedAt).not.toBeNull();
    expect(stored.passwordHash).not.toContain(body.password);
    const [entry] = await t.prisma.auditEntry.findMany({ where: { targetId: kid.user.id, action: "student.password_reset" } });
    expect(entry).toMatchObject({ actorId: teacher.user.id, actorRole: "teacher", targetName: kid.user.username, result: "ok" });
    expect(entry.address).toBeTruthy();
    expect(JSON.stringify(entry)).not.toContain(body.password);
  });

  it("lock: closed out of its room within 5 s with a readable reason, refused at sign-in with account_locked; unlock lets it in again", async () => {
    const kid = await student();
    const lobby = await joined(t.sdk(kid.cookie).joinOrCreate("boss_lobby", {}));
    const other = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Watcher" }));
    const left = closed(lobby.room);
    const started = Date.now();
    const res = await teacher.http.post(`/api/students/${kid.user.id}/lock`);
    expect(res.status, res.text).toBe(200);
    expect(studentActionResponse.parse(res.body).student).toMatchObject({ id: kid.user.id, locked: true, muted: false });
    const leave = await left;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(leave.code).toBe(ACCOUNT_LOCKED);
    expect(leave.reason).toMatch(/locked/);
    expect(await lobby.log.waitFor("error")).toMatchObject({ code: "account_locked" });
    // Its seat left as on a leave: the others see it go.
    await other.log.waitFor("boss_chat_message", (m) => m.content === `${kid.user.username} left the lobby`);
    const refused = await login(kid.user.username, PASSWORD);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("account_locked");
    expect(refused.body.error.message).toMatch(/locked/);
    expect((await kid.http.get("/api/auth/me")).status).not.toBe(200);
    // A join after the lock is a guest's at most: the session is gone.
    expect((await teacher.http.post(`/api/students/${kid.user.id}/unlock`)).body.student.locked).toBe(false);
    expect((await login(kid.user.username, PASSWORD)).status).toBe(200);
    await other.room.leave();
  });

  it("mute: the lobby chat refuses its lines with a readable error and the others never see them; unmute relays again", async () => {
    const kid = await student();
    const speaker = await joined(t.sdk(kid.cookie).joinOrCreate("boss_lobby", {}));
    const listener = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Listener" }));
    expect((await teacher.http.post(`/api/students/${kid.user.id}/mute`)).body.student.muted).toBe(true);
    speaker.room.send("boss_chat_send", { content: "spam spam spam" });
    const error = await speaker.log.waitFor("error", (e) => e.type === "boss_chat_send");
    expect(error).toMatchObject({ code: "muted" });
    expect(error.message).toMatch(/muted/);
    expect((await teacher.http.post(`/api/students/${kid.user.id}/unmute`)).body.student.muted).toBe(false);
    speaker.room.send("boss_chat_send", { content: "sorry" });
    await listener.log.waitFor("boss_chat_message", (m) => m.content === "sorry");
    // The line sent while muted came before "sorry" on the same connection: it was never relayed.
    expect(listener.log.all("boss_chat_message").map((m) => m.content)).not.toContain("spam spam spam");
    await speaker.room.leave();
    await listener.room.leave();
  });

  it("mute: the boss battle chat refuses its lines too and the other player never sees them", async () => {
    const kid = await student();
    await t.prisma.gameProgress.upsert({ where: { userId: kid.user.id }, create: { userId: kid.user.id, totalBullets: 20 }, update: { totalBullets: 20 } });
    const speaker = await joined(t.joinNewRoom("boss", {}, kid.cookie));
    const listener = await joined(t.sdk().joinById(speaker.room.roomId, { username: "Ally", bullets: 20 }));
    expect((await admin.http.post(`/api/students/${kid.user.id}/mute`)).status).toBe(200);
    speaker.room.send("boss_chat_send", { content: "muted line" });
    expect(await speaker.log.waitFor("error", (e) => e.type === "boss_chat_send")).toMatchObject({ code: "muted" });
    listener.room.send("boss_chat_send", { content: "ally line" });
    await speaker.log.waitFor("boss_chat_message", (m) => m.content === "ally line");
    expect((await admin.http.post(`/api/students/${kid.user.id}/unmute`)).status).toBe(200);
    speaker.room.send("boss_chat_send", { content: "back" });
    await listener.log.waitFor("boss_chat_message", (m) => m.content === "back");
    expect(listener.log.all("boss_chat_message").map((m) => m.content)).not.toContain("muted line");
    await speaker.room.leave();
    await listener.room.leave();
  });

  it("logout: every session ends and its room connection closes; the password stays", async () => {
    const kid = await student();
    const lobby = await joined(t.sdk(kid.cookie).joinOrCreate("boss_lobby", {}));
    const left = closed(lobby.room);
    expect((await teacher.http.post(`/api/students/${kid.user.id}/logout`)).status).toBe(200);
    expect((await left).code).toBe(SESSION_ENDED);
    expect((await kid.http.get("/api/auth/me")).status).toBe(401);
    expect((await login(kid.user.username, PASSWORD)).status).toBe(200);
  });

  it("a teacher cannot act on a student outside its classes (403, audited); an admin can; bad ids are 400", async () => {
    const outsider = await t.account(undefined, PASSWORD);
    const refused = await teacher.http.post(`/api/students/${outsider.user.id}/lock`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(await t.prisma.auditEntry.count({ where: { targetId: outsider.user.id, action: "student.lock", result: "forbidden" } })).toBe(1);
    expect((await t.prisma.user.findUniqueOrThrow({ where: { id: outsider.user.id } })).lockedAt).toBeNull();
    expect((await admin.http.post(`/api/students/${outsider.user.id}/mute`)).status).toBe(200);
    expect((await admin.http.post(`/api/students/2147483000/mute`)).status).toBe(404);
    const bad = await teacher.http.post(`/api/students/abc/lock`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("validation_failed");
  });
});

describe("an admin's accounts, export, erasure and audit log", () => {
  it("finds accounts by part of the name, any letter case, bounded", async () => {
    const kid = await student();
    const res = await admin.http.get(`/api/admin/accounts?q=${encodeURIComponent(kid.user.username.toUpperCase())}`);
    expect(res.status, res.text).toBe(200);
    const body = accountsResponse.parse(res.body);
    expect(body.accounts.map((a) => a.id)).toEqual([kid.user.id]);
    expect(body.accounts[0]).toMatchObject({ role: "student", locked: false, muted: false });
    const page = accountsResponse.parse((await admin.http.get(`/api/admin/accounts?q=kid&limit=1`)).body);
    expect(page.accounts).toHaveLength(1);
    expect(page.truncated).toBe(true);
    expect((await admin.http.get(`/api/admin/accounts?limit=500`)).status).toBe(400);
  });

  it("the export covers every table with a user column and never holds the password hash", async () => {
    const kid = await student();
    await kid.http.post("/api/snakes/", {});
    const res = await admin.http.get(`/api/admin/accounts/${kid.user.id}/export`);
    expect(res.status, res.text).toBe(200);
    const doc = exportResponse.parse(res.body);
    expect((doc.tables.users as { username: string }).username).toBe(kid.user.username);
    expect(res.text).not.toMatch(/scrypt\$|password_?hash/i);
    expect((doc.tables.game_progress as unknown[]).length).toBe(1);
    expect((doc.tables.class_members as unknown[]).length).toBe(1);
    // Every table tied to users (by a foreign key, directly or through another such table, or by a
    // column naming an account) is read by the export: a new one fails here until it is.
    const tied = await t.prisma.$queryRaw<{ table_name: string }[]>`
      WITH RECURSIVE refs(child, parent) AS (
        SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
        WHERE c.contype = 'f' AND c.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
      ), tied(name) AS (
        SELECT 'users'::text UNION SELECT r.child FROM refs r JOIN tied ON r.parent = tied.name
      )
      SELECT name AS table_name FROM tied
      UNION SELECT table_name::text FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name NOT LIKE 'workspace%'
        AND (column_name ~ '(^|_)user_id$' OR column_name IN ('actor_id', 'target_id', 'teacher_id'))`;
    const names = tied.map((r) => r.table_name.replace(/"/g, "")).sort();
    expect(names.filter((n) => !(n in EXPORTED_TABLES)), "tables about an account the export does not read").toEqual([]);
    expect(Object.keys(doc.tables).sort()).toEqual(Object.keys(EXPORTED_TABLES).sort());
  });

  it("erasure deletes everything about the account, keeps an erasure record and the audit entries by id only", async () => {
    const kid = await student();
    const rival = await t.account(undefined, PASSWORD);
    await kid.http.post("/api/snakes/", {});
    await t.prisma.pvpResult.create({
      data: { matchId: `m${kid.user.id}`, userId: rival.user.id, roomId: "r", playerNumber: 1, outcome: "win", reason: "knockout", shots: 1, hits: 1, livesLeft: 5, opponentName: kid.user.username, opponentUserId: kid.user.id, durationMs: 1, endedAt: new Date() },
    });
    await teacher.http.post(`/api/students/${kid.user.id}/mute`);
    const lobby = await joined(t.sdk(kid.cookie).joinOrCreate("boss_lobby", {}));
    const left = closed(lobby.room);
    expect((await admin.http.delete(`/api/admin/accounts/${admin.user.id}`)).body.error.code).toBe("own_account");
    const res = await admin.http.delete(`/api/admin/accounts/${kid.user.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.erased.id).toBe(kid.user.id);
    expect((await left).code).toBe(SESSION_ENDED);
    expect(await t.prisma.user.findUnique({ where: { id: kid.user.id } })).toBeNull();
    expect(await t.prisma.gameProgress.count({ where: { userId: kid.user.id } })).toBe(0);
    expect(await t.prisma.classMember.count({ where: { userId: kid.user.id } })).toBe(0);
    const erasure = await t.prisma.erasure.findUniqueOrThrow({ where: { userId: kid.user.id } });
    expect(Object.keys(erasure).sort()).toEqual(["erasedAt", "userCreatedAt", "userId"]);
    const entries = await t.prisma.auditEntry.findMany({ where: { targetId: kid.user.id } });
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(["student.mute", "account.erase"]));
    expect(entries.every((e) => e.targetName === null)).toBe(true);
    const rivalRow = await t.prisma.pvpResult.findFirstOrThrow({ where: { userId: rival.user.id } });
    expect(rivalRow).toMatchObject({ opponentUserId: null, opponentName: "(erased account)" });
    expect((await login(kid.user.username, PASSWORD)).status).toBe(401);
    expect((await admin.http.delete(`/api/admin/accounts/${kid.user.id}`)).status).toBe(404);
  });

  it("the audit log: filters by actor, target, action and time, pages newest first", async () => {
    const kid = await student();
    for (const action of ["mute", "unmute", "mute"]) expect((await teacher.http.post(`/api/students/${kid.user.id}/${action}`)).status).toBe(200);
    const all = auditResponse.parse((await admin.http.get(`/api/admin/audit?target=${kid.user.id}`)).body);
    expect(all.entries.map((e) => e.action)).toEqual(["student.mute", "student.unmute", "student.mute"]);
    expect(all.entries[0]).toMatchObject({ actor: { id: teacher.user.id, name: teacher.user.username, role: "teacher" }, target: { id: kid.user.id, name: kid.user.username }, result: "ok" });
    const first = auditResponse.parse((await admin.http.get(`/api/admin/audit?target=${kid.user.id}&limit=2`)).body);
    expect(first.entries).toHaveLength(2);
    const rest = auditResponse.parse((await admin.http.get(`/api/admin/audit?target=${kid.user.id}&limit=2&before=${first.next_before}`)).body);
    expect(rest.entries.map((e) => e.id)).toEqual([all.entries[2].id]);
    expect(rest.next_before).toBeNull();
    const unmutes = auditResponse.parse((await admin.http.get(`/api/admin/audit?target=${kid.user.id}&action=student.unmute&actor=${teacher.user.id}`)).body);
    expect(unmutes.entries).toHaveLength(1);
    const future = auditResponse.parse((await admin.http.get(`/api/admin/audit?target=${kid.user.id}&since=2100-01-01T00:00:00Z`)).body);
    expect(future.entries).toEqual([]);
    const bad = await admin.http.get(`/api/admin/audit?since=yesterday`);
    expect(bad.status).toBe(400);
    expect((await teacher.http.get(`/api/admin/audit`)).status).toBe(403);
  });
});
