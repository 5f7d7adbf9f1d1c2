// The erasures table: one row per erased game account, holding no personal data (its id and when it
// was created), so that `admin restore` of an older backup erases it again (src/accounts/erasure.ts).
// This module is its only writer; rows are never deleted.
import type { Prisma, PrismaClient } from "../db/generated/client.js";

export interface ErasureRecord {
  userId: number;
  userCreatedAt: Date;
}

export async function recordErasure(db: PrismaClient | Prisma.TransactionClient, erasure: ErasureRecord): Promise<Date> {
  const row = await db.erasure.upsert({ where: { userId: erasure.userId }, create: erasure, update: {} });
  return row.erasedAt;
}
