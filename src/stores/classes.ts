// The classes and class_members tables: the only module that writes them. A teacher's class has a
// unique join code (src/classes/codes.ts); a student joins with it, or a roster import creates the
// students' accounts and their memberships in one transaction. Removing a student from a class
// deletes its membership only, nothing of the student's.
import type { Prisma, PrismaClient, SchoolClass, User } from "../db/generated/client.js";
import { generateClassCode } from "../classes/codes.js";
import { createIssuedAccounts, type IssuedAccountInput } from "./accounts.js";

type Db = PrismaClient | Prisma.TransactionClient;
/** PGlite runs one transaction at a time, so waiting for a turn may take longer than Prisma's 2 s default. */
const INTERACTIVE_TX = { maxWait: 10_000, timeout: 20_000 } as const;
/** A fresh code collides with an existing one about never (2.75·10^10 codes); retrying a few times is plenty. */
const CODE_ATTEMPTS = 8;

export interface ClassSummary {
  id: number;
  name: string;
  code: string;
  teacherId: number;
  createdAt: Date;
  students: number;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

/** Runs `write` with fresh codes until one is not taken. */
async function withFreshCode<T>(write: (code: string) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(generateClassCode());
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= CODE_ATTEMPTS) throw err;
    }
  }
}

export function createClass(prisma: PrismaClient, teacherId: number, name: string): Promise<SchoolClass> {
  return withFreshCode((code) => prisma.schoolClass.create({ data: { teacherId, name, code } }));
}

/** A new code for the class (the old one stops working at once); null when there is no such class. */
export async function rotateClassCode(prisma: PrismaClient, classId: number): Promise<SchoolClass | null> {
  return withFreshCode(async (code) => {
    const rows = await prisma.schoolClass.updateMany({ where: { id: classId }, data: { code } });
    return rows.count ? prisma.schoolClass.findUnique({ where: { id: classId } }) : null;
  });
}

export function findClass(db: Db, classId: number): Promise<SchoolClass | null> {
  return db.schoolClass.findUnique({ where: { id: classId } });
}

export function findClassByCode(db: Db, code: string): Promise<SchoolClass | null> {
  return db.schoolClass.findUnique({ where: { code } });
}

/** A teacher's classes (or every class, for an admin: teacherId undefined), oldest first, with their sizes. */
export async function listClasses(db: Db, teacherId: number | undefined): Promise<ClassSummary[]> {
  const rows = await db.schoolClass.findMany({
    where: teacherId === undefined ? {} : { teacherId },
    orderBy: { id: "asc" },
    include: { _count: { select: { members: true } } },
  });
  return rows.map((c) => ({ id: c.id, name: c.name, code: c.code, teacherId: c.teacherId, createdAt: c.createdAt, students: c._count.members }));
}

/** Puts the account in the class; joining again changes nothing. True when it was not in it before. */
export async function joinClass(db: Db, classId: number, userId: number): Promise<boolean> {
  const { count } = await db.classMember.createMany({ data: [{ classId, userId }], skipDuplicates: true });
  return count > 0;
}

/** Takes the account out of the class (nothing else of it changes); true when it was in it. */
export async function removeFromClass(db: Db, classId: number, userId: number): Promise<boolean> {
  const { count } = await db.classMember.deleteMany({ where: { classId, userId } });
  return count > 0;
}

export async function isMember(db: Db, classId: number, userId: number): Promise<boolean> {
  return (await db.classMember.count({ where: { classId, userId } })) > 0;
}

/** The ids of a class's members, in the order they joined. */
export async function memberIds(db: Db, classId: number): Promise<number[]> {
  const rows = await db.classMember.findMany({ where: { classId }, orderBy: [{ joinedAt: "asc" }, { userId: "asc" }], select: { userId: true } });
  return rows.map((r) => r.userId);
}

/** Whether `studentId` is a student (role) in one of the classes `teacherId` teaches. */
export async function isStudentOfTeacher(db: Db, teacherId: number, studentId: number): Promise<boolean> {
  const count = await db.classMember.count({ where: { userId: studentId, schoolClass: { teacherId }, user: { role: "student" } } });
  return count > 0;
}

/**
 * A roster import: creates every account and puts it in the class, all or nothing (a taken name
 * fails the whole import with UsernamesTakenError). `onWritten` runs inside the same transaction
 * (the audit entry), so the import and its record commit together.
 */
export async function importRoster(
  prisma: PrismaClient,
  classId: number,
  accounts: readonly IssuedAccountInput[],
  onWritten?: (tx: Prisma.TransactionClient, users: User[]) => Promise<void>,
): Promise<User[]> {
  return prisma.$transaction(async (tx) => {
    const users = await createIssuedAccounts(tx, accounts.map((a) => ({ ...a, role: "student" as const })));
    await tx.classMember.createMany({ data: users.map((u) => ({ classId, userId: u.id })), skipDuplicates: true });
    await onWritten?.(tx, users);
    return users;
  }, INTERACTIVE_TX);
}
