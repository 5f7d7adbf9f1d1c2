import { describe, expect, it } from "vitest";
import { SessionRegistry } from "../../src/auth/sessions.js";
import { LocalSessionEvents } from "../../src/shared/sessionEvents.js";
import type { PrismaClient } from "../../src/db/client.js";

/** A database with one account, counting what the registry reads. */
function fakeDatabase() {
  const db = { reads: 0, epoch: 0, revoked: [] as string[], exists: true, lockedAt: null as Date | null, mutedAt: null as Date | null, generation: "" };
  const prisma = {
    user: {
      findUnique: async () => {
        db.reads++;
        return db.exists ? { username: "ada", sessionEpoch: db.epoch, lockedAt: db.lockedAt, mutedAt: db.mutedAt } : null;
      },
    },
    revokedSession: { findMany: async () => db.revoked.map((sid) => ({ sid })) },
    authGeneration: { findUnique: async () => (db.generation ? { generation: db.generation } : null) },
  } as unknown as PrismaClient;
  return { db, prisma };
}

const ada = { kind: "account" as const, id: 1 };
const session = (sid: string, epoch = 0) => ({ sid, epoch, expiresAt: new Date(Date.now() + 60_000) });

describe("session registry", () => {
  it("reads an account once per cache period, not once per request", async () => {
    const { db, prisma } = fakeDatabase();
    let now = 0;
    const sessions = new SessionRegistry(prisma, new LocalSessionEvents(), 5000, () => now);
    const checks = await Promise.all(Array.from({ length: 50 }, () => sessions.check(ada, session("aaaaaaaa"))));
    expect(checks.every((c) => c.ok)).toBe(true);
    expect(db.reads).toBe(1);
    now = 4999;
    await sessions.check(ada, session("aaaaaaaa"));
    expect(db.reads).toBe(1);
    now = 5000;
    await sessions.check(ada, session("aaaaaaaa"));
    expect(db.reads).toBe(2);
  });

  it("sees a change at once after invalidate, and refuses old epochs, revoked sids and unknown accounts", async () => {
    const { db, prisma } = fakeDatabase();
    const sessions = new SessionRegistry(prisma, new LocalSessionEvents(), 60_000);
    expect((await sessions.check(ada, session("aaaaaaaa"))).ok).toBe(true);
    db.revoked = ["aaaaaaaa"];
    sessions.invalidate(ada);
    expect(await sessions.check(ada, session("aaaaaaaa"))).toEqual({ ok: false, reason: "ended" });
    expect((await sessions.check(ada, session("bbbbbbbb"))).ok).toBe(true);
    db.epoch = 1;
    sessions.invalidate(ada);
    expect(await sessions.check(ada, session("bbbbbbbb"))).toEqual({ ok: false, reason: "ended" });
    expect((await sessions.check(ada, session("cccccccc", 1))).ok).toBe(true);
    db.exists = false;
    sessions.invalidate(ada);
    expect(await sessions.check(ada, session("cccccccc", 1))).toEqual({ ok: false, reason: "unknown_subject" });
  });

  it("ends every session of another authentication generation (a restore's), within the cache period", async () => {
    const { db, prisma } = fakeDatabase();
    let now = 0;
    const sessions = new SessionRegistry(prisma, new LocalSessionEvents(), 5000, () => now);
    expect((await sessions.check(ada, session("aaaaaaaa"))).ok).toBe(true);
    expect(await sessions.generation()).toBe("");
    db.generation = "restored-1";
    now += 5000;
    expect(await sessions.check(ada, session("aaaaaaaa"))).toEqual({ ok: false, reason: "ended" });
    expect(await sessions.generation()).toBe("restored-1");
    expect((await sessions.check(ada, { ...session("bbbbbbbb"), generation: "restored-1" })).ok).toBe(true);
    // A token of the generation before: ended, even for an id the restored database knows.
    expect(await sessions.check({ kind: "account", id: 99 }, { ...session("cccccccc"), generation: "restored-0" })).toEqual({ ok: false, reason: "ended" });
  });

  it("does not cache a read that raced an invalidation", async () => {
    const { db, prisma } = fakeDatabase();
    const sessions = new SessionRegistry(prisma, new LocalSessionEvents(), 60_000);
    const racing = sessions.check(ada, session("aaaaaaaa")); // reads epoch 0
    db.epoch = 1;
    sessions.invalidate(ada);
    await racing;
    expect(await sessions.check(ada, session("aaaaaaaa"))).toEqual({ ok: false, reason: "ended" });
  });

  it("a locked account's sessions are refused as locked (issue 42), a muted one's stay live and read as muted", async () => {
    const { db, prisma } = fakeDatabase();
    const sessions = new SessionRegistry(prisma, new LocalSessionEvents());
    expect(await sessions.isMuted(1)).toBe(false);
    db.mutedAt = new Date();
    sessions.invalidate(ada);
    expect(await sessions.isMuted(1)).toBe(true);
    expect((await sessions.check(ada, session("aaaaaaaa"))).ok).toBe(true);
    db.lockedAt = new Date();
    sessions.invalidate(ada);
    expect(await sessions.check(ada, session("aaaaaaaa"))).toEqual({ ok: false, reason: "locked" });
    db.lockedAt = null;
    sessions.invalidate(ada);
    expect((await sessions.check(ada, session("aaaaaaaa"))).ok).toBe(true);
  });
});
