// Helping a student (issue 42): a teacher for the students of its classes, an admin for any account,
// the operator (npm run admin) for any account. Each action is one write to the users table
// (src/stores/accounts.ts), then the account's sessions are told everywhere (src/auth/sessions.ts),
// which ends its room connections within a second or two (src/rooms/kit/sessionSeats.ts), and one
// audit entry records it, refusals included. The routes (src/http/studentRoutes.ts) and the admin
// commands (src/admin/commands.ts) are shells over this.
import type { PrismaClient } from "../db/generated/client.js";
import { AppError } from "../errors.js";
import { hashPassword } from "../auth/passwords.js";
import { generateIssuedPassword } from "../auth/issuedPasswords.js";
import { assertCanActOnStudent, type Actor } from "../auth/roles.js";
import type { SessionRegistry } from "../auth/sessions.js";
import { issuePassword, setLocked, setMuted } from "../stores/accounts.js";
import { appendAudit, type AuditActorRole } from "../stores/audit.js";

export const HELP_ACTIONS = ["password-reset", "lock", "unlock", "mute", "unmute", "logout"] as const;
export type HelpAction = (typeof HELP_ACTIONS)[number];

/** The audit log's name of each action. */
export const AUDIT_ACTION: Record<HelpAction, string> = {
  "password-reset": "student.password_reset",
  lock: "student.lock",
  unlock: "student.unlock",
  mute: "student.mute",
  unmute: "student.unmute",
  logout: "student.logout",
};

/** Who acts: a signed-in teacher or admin (checked against the target), or the operator's command. */
export type Helper = { kind: "account"; actor: Actor; address: string | null } | { kind: "operator" };

export interface StudentStatus {
  id: number;
  username: string;
  locked: boolean;
  muted: boolean;
}

export interface HelpResult {
  student: StudentStatus;
  /** password-reset: the new one-time password, shown once, never stored in clear. */
  password?: string;
}

export interface HelpDeps {
  prisma: PrismaClient;
  sessions: Pick<SessionRegistry, "invalidate" | "endAllSessions">;
}

export function auditActorOf(helper: Helper): { actor: { id: number | null; name: string | null; role: AuditActorRole }; address: string | null } {
  if (helper.kind === "operator") return { actor: { id: null, name: null, role: "operator" }, address: null };
  // requireRole lets only teachers and admins through; a student never reaches an action.
  return { actor: { id: helper.actor.id, name: helper.actor.username, role: helper.actor.role === "admin" ? "admin" : "teacher" }, address: helper.address };
}

/** Runs `action` on account `studentId` for `helper`; refusals are AppErrors (403, 404, 400), audited too. */
export async function helpStudent({ prisma, sessions }: HelpDeps, helper: Helper, action: HelpAction, studentId: number): Promise<HelpResult> {
  const { actor, address } = auditActorOf(helper);
  const target = await prisma.user.findUnique({ where: { id: studentId }, select: { id: true, username: true } });
  const audit = (result: string) =>
    appendAudit(prisma, { actor, action: AUDIT_ACTION[action], target: { id: studentId, name: target?.username ?? null }, address, result });
  try {
    if (helper.kind === "account") {
      await assertCanActOnStudent(prisma, helper.actor, studentId);
      if (helper.actor.id === studentId) throw new AppError(400, "own_account", "This acts on a student's account, not your own: use /api/auth/password or /api/auth/logout for yours");
    }
    if (!target) throw new AppError(404, "not_found", `No account has id ${studentId}`);
    const subject = { kind: "account", id: studentId } as const;
    let password: string | undefined;
    let found: boolean;
    switch (action) {
      case "password-reset":
        password = generateIssuedPassword();
        found = (await issuePassword(prisma, studentId, await hashPassword(password))) !== undefined;
        break;
      case "lock":
      case "unlock":
        found = await setLocked(prisma, studentId, action === "lock");
        break;
      case "mute":
      case "unmute":
        found = await setMuted(prisma, studentId, action === "mute");
        break;
      case "logout":
        found = await sessions.endAllSessions(subject);
        break;
    }
    if (!found) throw new AppError(404, "not_found", `No account has id ${studentId}`); // erased meanwhile
    if (action !== "logout") sessions.invalidate(subject);
    await audit("ok");
    return { student: await statusOf(prisma, studentId), ...(password === undefined ? {} : { password }) };
  } catch (err) {
    if (err instanceof AppError) await audit(err.code);
    throw err;
  }
}

async function statusOf(prisma: PrismaClient, id: number): Promise<StudentStatus> {
  const u = await prisma.user.findUniqueOrThrow({ where: { id }, select: { id: true, username: true, lockedAt: true, mutedAt: true } });
  return { id: u.id, username: u.username, locked: u.lockedAt !== null, muted: u.mutedAt !== null };
}
