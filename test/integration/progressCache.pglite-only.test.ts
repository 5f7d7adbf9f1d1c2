// The embedded database's in-memory progress records (src/stores/progress.ts): a record read once
// is served from memory until a write touches it. A write of the progress store forgets only its
// account; any other write to the records or users (a battle's bullets, a direct write) forgets
// them all, so no read ever returns what the database no longer holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/app.js";
import type { Database } from "../../src/db/client.js";
import * as store from "../../src/stores/progress.js";

let db: Database;
let drop: () => Promise<void>;
let queries = 0;

beforeAll(async () => {
  ({ db, drop } = await freshDatabase());
  const pglite = db.pglite as unknown as { query: (...a: unknown[]) => Promise<unknown> };
  const query = pglite.query.bind(pglite);
  pglite.query = (...a: unknown[]) => {
    queries++;
    return query(...a);
  };
});
afterAll(async () => {
  await db?.prisma.$disconnect();
  await drop?.();
});

async function account(name: string) {
  const user = await db.prisma.user.create({ data: { username: `${name}_${Math.random().toString(36).slice(2, 8)}`, passwordHash: "x" } });
  await store.ensureProgress(db.prisma, user.id);
  return user.id;
}

/** How many database queries `fn` made. */
async function counting<T>(fn: () => Promise<T>): Promise<{ value: T; queries: number }> {
  const before = queries;
  const value = await fn();
  return { value, queries: queries - before };
}

describe("progress records kept in memory (embedded database)", () => {
  it("serves a record read once without a query, and as a frozen object", async () => {
    const a = await account("a");
    await store.findProgress(db.prisma, a);
    const again = await counting(() => store.findProgress(db.prisma, a));
    expect(again.queries).toBe(0);
    expect(again.value?.userId).toBe(a);
    expect(Object.isFrozen(again.value)).toBe(true);
    expect(() => (again.value!.visitedSquares as number[]).push(1)).toThrow();
  });

  it("a store write forgets its own account's record, and only that one", async () => {
    const a = await account("a");
    const b = await account("b");
    await store.findProgress(db.prisma, a);
    await store.findProgress(db.prisma, b);
    const saved = await store.saveClientState(db.prisma, a, { currentSquare: 4, lives: 2, timePlayed: 9 });
    expect(saved.ok).toBe(true);
    const readA = await counting(() => store.findProgress(db.prisma, a));
    expect(readA.queries).toBe(1);
    expect(readA.value).toMatchObject({ currentSquare: 4, lives: 2, timePlayed: 9 });
    expect((await counting(() => store.findProgress(db.prisma, b))).queries).toBe(0);
  });

  it("a write elsewhere (a direct update, a battle's bullets in a transaction) forgets every record", async () => {
    const a = await account("a");
    const b = await account("b");
    await store.findProgress(db.prisma, a);
    await store.findProgress(db.prisma, b);
    await db.prisma.gameProgress.update({ where: { userId: a }, data: { totalBullets: 40 } });
    expect((await store.findProgress(db.prisma, a))?.totalBullets).toBe(40);
    expect((await counting(() => store.findProgress(db.prisma, b))).queries).toBe(1);

    await db.prisma.$transaction([store.spendBattleBullets(db.prisma, a, 15)]);
    expect((await store.findProgress(db.prisma, a))?.totalBullets).toBe(25);
  });

  it("a read that overlapped a write does not keep what it read", async () => {
    const a = await account("a");
    const read = store.findProgress(db.prisma, a); // in flight while the write below is queued
    const write = store.saveClientState(db.prisma, a, { lives: 1 });
    await Promise.all([read, write]);
    expect((await store.findProgress(db.prisma, a))?.lives).toBe(1);
  });
});
