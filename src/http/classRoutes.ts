// /api/classes/*: a teacher's classes, their join codes, roster imports and the class's figures
// (docs/teachers-api.md). Every route needs a signed-in account; all but `join` a teacher's or an
// admin's. A teacher reaches its own classes only (403 for another's); an admin every class. Each
// change (and each refused one) is appended to the audit log. Limits count per account: a school's
// class shares one address.
import express, { Router, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { requireAuth } from "../auth/middleware.js";
import { currentActor, requireRole } from "../auth/roles.js";
import { generateIssuedPassword } from "../auth/issuedPasswords.js";
import { hashPassword } from "../auth/passwords.js";
import { normalizeClassCode } from "../classes/codes.js";
import { formatCsv } from "../classes/csv.js";
import { classQuestionFigures, rosterCsvRow, ROSTER_CSV_HEADER, studentFigures, type StudentFigures } from "../classes/figures.js";
import * as classes from "../stores/classes.js";
import { studentRecords } from "../stores/classFigures.js";
import { UsernamesTakenError } from "../stores/accounts.js";
import { appendAudit, type AuditEntryInput } from "../stores/audit.js";
import { onlineAccounts } from "../shared/online.js";
import { FixedWindowLimiter, rateLimit } from "./rateLimit.js";
import { parseWith } from "./validate.js";
import { MAX_ROSTER_BYTES, parseRoster } from "./rosterCsv.js";
import { classIdParams, classStudentParams, createClassBody, joinClassBody, rosterQuery } from "./classesWire.js";
import type { SchoolClass } from "../db/generated/client.js";

export interface ClassRouteLimits {
  /** Changes (create, rotate, remove, import) per teacher account and window. */
  writes: { limit: number; windowMs: number };
  /** Reads (the dashboard polls) per teacher account and window. */
  reads: { limit: number; windowMs: number };
  /** Join attempts per account and window: a code is guessed only here. */
  joins: { limit: number; windowMs: number };
}

export const CLASS_ROUTE_LIMITS: ClassRouteLimits = {
  writes: { limit: 60, windowMs: 60_000 },
  reads: { limit: 240, windowMs: 60_000 },
  joins: { limit: 10, windowMs: 5 * 60_000 },
};

const publicClass = (c: SchoolClass) => ({ id: c.id, name: c.name, code: c.code });

export function classRoutes(ctx: AppContext, limits: ClassRouteLimits = CLASS_ROUTE_LIMITS): Router {
  const router = Router();
  const { prisma } = ctx;
  const writes = new FixedWindowLimiter(ctx.counters, "class-writes", limits.writes.limit, limits.writes.windowMs);
  const reads = new FixedWindowLimiter(ctx.counters, "class-reads", limits.reads.limit, limits.reads.windowMs);
  const joins = new FixedWindowLimiter(ctx.counters, "class-joins", limits.joins.limit, limits.joins.windowMs);
  const byAccount = (req: Request) => (req.user ? `u:${req.user.id}` : undefined);
  const teacher = [requireAuth(ctx), requireRole(ctx, "teacher", "admin")];
  const teacherWrite = [...teacher, rateLimit(writes, byAccount)];
  const teacherRead = [...teacher, rateLimit(reads, byAccount)];

  const audit = (req: Request, entry: Omit<AuditEntryInput, "actor" | "address">, db: Parameters<typeof appendAudit>[0] = prisma) => {
    const actor = currentActor(req);
    return appendAudit(db, { ...entry, actor: { id: actor.id, name: actor.username, role: actor.role === "admin" ? "admin" : "teacher" }, address: req.ip ?? null });
  };

  /** The class of the path, when the actor may reach it: 404 when there is none, 403 when it is another teacher's. */
  const classOf = async (req: Request, action: string): Promise<SchoolClass> => {
    const { id } = parseWith(classIdParams, req.params, "path");
    const found = await classes.findClass(prisma, id);
    if (!found) throw new AppError(404, "class_not_found", `No class has id ${id}`);
    const actor = currentActor(req);
    if (actor.role !== "admin" && found.teacherId !== actor.id) {
      await audit(req, { action, classId: found.id, result: "forbidden" });
      throw new AppError(403, "forbidden", "This class is another teacher's");
    }
    return found;
  };

  router.post("/api/classes", ...teacherWrite, async (req: Request, res: Response) => {
    const body = parseWith(createClassBody, req.body);
    const created = await classes.createClass(prisma, currentActor(req).id, body.name);
    await audit(req, { action: "class.create", classId: created.id, result: "ok" });
    res.status(201).json({ class: publicClass(created) });
  });

  router.get("/api/classes", ...teacherRead, async (req: Request, res: Response) => {
    const actor = currentActor(req);
    const list = await classes.listClasses(prisma, actor.role === "admin" ? undefined : actor.id);
    const teacherIds = [...new Set(list.map((c) => c.teacherId))];
    const teachers = new Map((await prisma.user.findMany({ where: { id: { in: teacherIds } }, select: { id: true, username: true } })).map((t) => [t.id, t]));
    res.json({
      classes: list.map((c) => ({
        id: c.id,
        name: c.name,
        code: c.code,
        students: c.students,
        teacher: teachers.get(c.teacherId) ?? { id: c.teacherId, username: "" },
        createdAt: c.createdAt.toISOString(),
      })),
    });
  });

  // Any signed-in account joins with the code (a student; a teacher may try its own class's code).
  router.post("/api/classes/join", requireAuth(ctx), rateLimit(joins, byAccount), requireRole(ctx), async (req: Request, res: Response) => {
    const body = parseWith(joinClassBody, req.body);
    const code = normalizeClassCode(body.code);
    const found = code === undefined ? null : await classes.findClassByCode(prisma, code);
    if (!found) throw new AppError(404, "class_not_found", "No class has this code: check it with your teacher (letters and digits, e.g. 7KQ4RTX)");
    const joined = await classes.joinClass(prisma, found.id, currentActor(req).id);
    const actor = currentActor(req);
    if (actor.role !== "student") await audit(req, { action: "class.join", classId: found.id, result: "ok" });
    res.json({ class: { id: found.id, name: found.name }, joined });
  });

  router.post("/api/classes/:id/code", ...teacherWrite, async (req: Request, res: Response) => {
    const found = await classOf(req, "class.rotate_code");
    const rotated = await classes.rotateClassCode(prisma, found.id);
    if (!rotated) throw new AppError(404, "class_not_found", `No class has id ${found.id}`);
    await audit(req, { action: "class.rotate_code", classId: found.id, result: "ok" });
    res.json({ class: publicClass(rotated) });
  });

  router.delete("/api/classes/:id/students/:studentId", ...teacherWrite, async (req: Request, res: Response) => {
    const { studentId } = parseWith(classStudentParams, req.params, "path");
    const found = await classOf(req, "class.remove_student");
    const student = await prisma.user.findUnique({ where: { id: studentId }, select: { id: true, username: true } });
    const removed = student ? await classes.removeFromClass(prisma, found.id, studentId) : false;
    await audit(req, { action: "class.remove_student", classId: found.id, target: student ? { id: student.id, name: student.username } : undefined, result: removed ? "ok" : "not_a_member", detail: student ? undefined : { studentId } });
    res.json({ removed });
  });

  router.post("/api/classes/:id/roster",
    ...teacherWrite,
    express.text({ type: ["text/csv", "text/plain", "application/csv"], limit: MAX_ROSTER_BYTES }),
    async (req: Request, res: Response) => {
      const query = parseWith(rosterQuery, req.query, "query");
      const found = await classOf(req, "class.import_roster");
      if (typeof req.body !== "string") {
        throw new AppError(415, "unsupported_media_type", "Send the roster as Content-Type: text/csv, a header row username[,display_name] and one row per student");
      }
      const parsed = parseRoster(req.body);
      if (!parsed.ok) {
        await audit(req, { action: "class.import_roster", classId: found.id, result: "invalid_roster", detail: { problems: parsed.problems.length } });
        const lines = parsed.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.field}: ${p.message}`);
        throw new AppError(400, "invalid_roster", `The roster was not imported (nothing was created): ${lines.join("; ")}${parsed.problems.length > 5 ? `; and ${parsed.problems.length - 5} more` : ""}`, {
          problems: parsed.problems,
        });
      }
      // Hashed before the transaction: the import's transaction holds its names' locks only while writing.
      const issued = await Promise.all(
        parsed.rows.map(async (row) => {
          const password = generateIssuedPassword();
          return { row, password, hash: await hashPassword(password) };
        }),
      );
      let users;
      try {
        users = await classes.importRoster(
          prisma,
          found.id,
          issued.map((i) => ({ username: i.row.username, displayName: i.row.displayName, passwordHash: i.hash })),
          (tx, created) => audit(req, { action: "class.import_roster", classId: found.id, result: "ok", detail: { created: created.length } }, tx),
        );
      } catch (err) {
        if (!(err instanceof UsernamesTakenError)) throw err;
        const taken = new Set(err.usernames.map((u) => u.toLowerCase()));
        const problems = parsed.rows
          .filter((r) => taken.has(r.username.toLowerCase()))
          .map((r) => ({ line: r.line, field: "username", username: r.username, message: `the username "${r.username}" is taken by an existing account (any letter case)` }));
        await audit(req, { action: "class.import_roster", classId: found.id, result: "username_taken", detail: { taken: problems.length } });
        throw new AppError(409, "username_taken", `The roster was not imported (nothing was created): ${problems.map((p) => `line ${p.line}: ${p.username}`).join(", ")} ${problems.length === 1 ? "is" : "are"} taken`, { problems });
      }
      const passwordOf = new Map(issued.map((i) => [i.row.username, i.password]));
      const students = users.map((u) => ({ id: u.id, username: u.username, displayName: u.displayName, password: passwordOf.get(u.username)! }));
      res.set("Cache-Control", "no-store");
      if (wantsCsv(req, query.format)) {
        res.status(201).type("text/csv; charset=utf-8").attachment(`class-${found.id}-passwords.csv`);
        return void res.send(formatCsv([["username", "display_name", "password"], ...students.map((s) => [s.username, s.displayName, s.password])]));
      }
      res.status(201).json({ students });
    },
  );

  /** Every student's figures, as the roster shows them. */
  const figuresOf = async (found: SchoolClass): Promise<{ figures: StudentFigures[]; records: Awaited<ReturnType<typeof studentRecords>> }> => {
    const ids = await classes.memberIds(prisma, found.id);
    const students = (await prisma.user.findMany({ where: { id: { in: ids }, role: "student" }, select: { id: true } })).map((u) => u.id);
    const ordered = ids.filter((id) => students.includes(id));
    const [records, online] = await Promise.all([studentRecords(prisma, ordered), onlineAccounts(ordered)]);
    const now = new Date();
    return { records, figures: records.map((r) => studentFigures(r, online.get(r.id), now)) };
  };

  router.get("/api/classes/:id/students", ...teacherRead, async (req: Request, res: Response) => {
    const found = await classOf(req, "class.read_students");
    const { figures } = await figuresOf(found);
    res.set("Cache-Control", "no-store").json({ class: publicClass(found), students: figures });
  });

  router.get("/api/classes/:id/students.csv", ...teacherRead, async (req: Request, res: Response) => {
    const found = await classOf(req, "class.export_csv");
    const { figures } = await figuresOf(found);
    await audit(req, { action: "class.export_csv", classId: found.id, result: "ok", detail: { students: figures.length } });
    res.set("Cache-Control", "no-store").type("text/csv; charset=utf-8").attachment(`class-${found.id}-students.csv`);
    res.send(formatCsv([[...ROSTER_CSV_HEADER], ...figures.map(rosterCsvRow)]));
  });

  router.get("/api/classes/:id/questions", ...teacherRead, async (req: Request, res: Response) => {
    const found = await classOf(req, "class.read_questions");
    const { records } = await figuresOf(found);
    res.set("Cache-Control", "no-store").json({ class: publicClass(found), ...classQuestionFigures(records) });
  });

  return router;
}

/** The roster's passwords as a printable CSV: `Accept: text/csv` (before JSON) or `?format=csv`. */
function wantsCsv(req: Request, format: "json" | "csv" | undefined): boolean {
  if (format) return format === "csv";
  return req.accepts(["application/json", "text/csv"]) === "text/csv";
}
