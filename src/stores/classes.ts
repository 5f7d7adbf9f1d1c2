// The classes and class_members tables. (Branch teachers-classes owns this module; this copy holds
// only what src/auth/roles.ts needs until that branch is merged in.)
import type { Prisma, PrismaClient } from "../db/generated/client.js";

type Db = PrismaClient | Prisma.TransactionClient;

/** Whether `studentId` is a student (role) in one of the classes `teacherId` teaches. */
export async function isStudentOfTeacher(db: Db, teacherId: number, studentId: number): Promise<boolean> {
  const count = await db.classMember.count({ where: { userId: studentId, schoolClass: { teacherId }, user: { role: "student" } } });
  return count > 0;
}
