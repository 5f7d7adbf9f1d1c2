// Roles (issue 42): a game account is a student (the default), a teacher or an admin. The role is
// read from the database on every request of a route that needs one (no cache), so `admin set-role`
// takes effect at the next request. A teacher acts on the students of its own classes only; an
// admin on every account. docs/teachers-api.md lists what each role may do.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Prisma, PrismaClient } from "../db/generated/client.js";
import { AppError } from "../errors.js";
import { isStudentOfTeacher } from "../stores/classes.js";
import { currentUser } from "./middleware.js";

export const ROLES = ["student", "teacher", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as readonly string[]).includes(value);

/** A stored role; anything unknown reads as the least privileged one. */
export const roleOf = (stored: string): Role => (isRole(stored) ? stored : "student");

/** The signed-in account behind a request, with its role as stored now. */
export interface Actor {
  id: number;
  username: string;
  role: Role;
}

declare module "express-serve-static-core" {
  interface Request {
    actor?: Actor;
  }
}

type Db = PrismaClient | Prisma.TransactionClient;

/** The account with its role, or null when it no longer exists. */
export async function loadActor(db: Db, userId: number): Promise<Actor | null> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, username: true, role: true } });
  return user ? { id: user.id, username: user.username, role: roleOf(user.role) } : null;
}

/**
 * Mount after requireAuth: loads the caller's account and role into `req.actor` and refuses (403
 * `forbidden`) an account whose role is not one of `roles`. With no roles given any signed-in account passes.
 */
export function requireRole(ctx: { prisma: PrismaClient }, ...roles: Role[]): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const actor = await loadActor(ctx.prisma, currentUser(req).id);
    if (!actor) return next(new AppError(401, "invalid_token", "Invalid authentication token: unknown user"));
    if (roles.length > 0 && !roles.includes(actor.role)) {
      return next(new AppError(403, "forbidden", `This needs the role ${roles.join(" or ")}; this account is a ${actor.role}`));
    }
    req.actor = actor;
    next();
  };
}

/** The actor of a route behind requireRole. */
export function currentActor(req: Request): Actor {
  if (!req.actor) throw new Error("currentActor used on a route without requireRole");
  return req.actor;
}

/**
 * Whether `actor` may act on (read the figures of, reset, lock, mute, log out) account `studentId`:
 * an admin on any account that exists; a teacher on a *student* in one of its own classes (never on
 * another teacher or an admin who joined its class with the code); a student on nobody.
 */
export async function canActOnStudent(db: Db, actor: Actor, studentId: number): Promise<boolean> {
  if (actor.role === "admin") return (await db.user.count({ where: { id: studentId } })) > 0;
  if (actor.role === "teacher") return isStudentOfTeacher(db, actor.id, studentId);
  return false;
}

/**
 * canActOnStudent as a route's guard: a teacher or student is refused 403 whether or not the
 * account exists (no probing of ids); an admin gets 404 for an account that does not exist.
 */
export async function assertCanActOnStudent(db: Db, actor: Actor, studentId: number): Promise<void> {
  if (await canActOnStudent(db, actor, studentId)) return;
  if (actor.role === "admin") throw new AppError(404, "not_found", `No account has id ${studentId}`);
  throw new AppError(403, "forbidden", `Account ${studentId} is not a student of one of your classes`);
}
