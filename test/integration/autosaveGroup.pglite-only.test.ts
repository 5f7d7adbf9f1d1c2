// Group commit of autosaves (src/stores/progress.ts): saves that arrive together are written by one
// statement, so one commit, and each is acknowledged with its own record once it committed; an
// account's saves stay in order; a save the section guard refuses, or one for an account without a
// record yet, leaves the others of its group saved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/app.js";
import type { Database } from "../../src/db/client.js";
import * as store from "../../src/stores/progress.js";

let db: Database;
let drop: () => Promise<void>;
/** The statements PGlite ran that write (each one its own transaction and commit). */
const writes: string[] = [];

beforeAll(async () => {
  ({ db, drop } = await freshDatabase());
  const pglite = db.pglite as unknown as { query: (sql: string, ...a: unknown[]) => Promise<unknown> };
  const query = pglite.query.bind(pglite);
  pglite.query = (sql: string, ...a: unknown[]) => {
    if (!/^\s*(SELECT|BEGIN|COMMIT|ROLLBACK)\b/i.test(sql)) writes.push(sql);
    return query(sql, ...a);
  };
});
afterAll(async () => {
  await db?.prisma.$disconnect();
  await drop?.();
});

async function account(name: string, withRecord = true) {
  const user = await db.prisma.user.create({ data: { username: `${name}_${Math.random().toString(36).slice(2, 8)}`, passwordHash: "x" } });
  if (withRecord) await store.ensureProgress(db.prisma, user.id);
  return user.id;
}

async function counting<T>(fn: () => Promise<T>): Promise<{ value: T; writes: number }> {
  const before = writes.length;
  const value = await fn();
  return { value, writes: writes.length - before };
}

describe("autosave group commit", () => {
  it("writes ten accounts' concurrent autosaves in one statement, each answered with its own record", async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => account(`g${i}`)));
    const { value: saved, writes: n } = await counting(() =>
      Promise.all(ids.map((id, i) => store.saveClientState(db.prisma, id, { currentSquare: 1 + (i % 6), lives: 1 + (i % 3), timePlayed: 100 + i }))),
    );
    expect(n).toBe(1);
    saved.forEach((s, i) => {
      expect(s.ok).toBe(true);
      if (s.ok) expect(s.progress).toMatchObject({ userId: ids[i], currentSquare: 1 + (i % 6), lives: 1 + (i % 3), timePlayed: 100 + i });
    });
    for (const [i, id] of ids.entries()) expect(await store.readProgress(db.prisma, id)).toMatchObject({ lives: 1 + (i % 3), timePlayed: 100 + i });
  });

  it("keeps one account's saves in order (the later one in the next statement) and play time never goes back", async () => {
    const a = await account("order");
    const [first, second, third] = await Promise.all([
      store.saveClientState(db.prisma, a, { lives: 3, timePlayed: 50 }),
      store.saveClientState(db.prisma, a, { lives: 2, timePlayed: 40 }),
      store.saveClientState(db.prisma, a, { lives: 1 }),
    ]);
    expect([first, second, third].map((s) => s.ok && [s.progress.lives, s.progress.timePlayed])).toEqual([
      [3, 50],
      [2, 50],
      [1, 50],
    ]);
  });

  it("a refused save and a first save without a record leave the rest of the group saved", async () => {
    const ok = await account("ok");
    const locked = await account("locked");
    const fresh = await account("fresh", false);
    const [a, b, c] = await Promise.all([
      store.saveClientState(db.prisma, ok, { lives: 2 }),
      store.saveClientState(db.prisma, locked, { currentSquare: 90 }),
      store.saveClientState(db.prisma, fresh, { timePlayed: 7 }),
    ]);
    expect(a).toMatchObject({ ok: true, progress: { lives: 2 } });
    expect(b).toMatchObject({ ok: false, reason: "section_locked" });
    expect(c).toMatchObject({ ok: true, progress: { userId: fresh, timePlayed: 7 } });
    expect((await store.readProgress(db.prisma, locked)).currentSquare).not.toBe(90);
  });
});
