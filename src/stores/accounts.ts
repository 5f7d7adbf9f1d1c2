// The users table (game accounts): the only module that writes it. Usernames are unique in any
// letter case, as workspace usernames are: writers of one lower-cased name are serialised by a
// transaction-scoped advisory lock, and the name is refused when another account holds it in any
// case. Usernames are ASCII (the register schema), so SQL lower() agrees on every database locale.
import type { Prisma, PrismaClient, User } from "../db/generated/client.js";

/** Advisory lock class of game usernames (workspace usernames use 22355). */
const USERNAME_LOCK_CLASS = 22356;
/** PGlite runs one transaction at a time, so waiting for a turn may take longer than Prisma's 2 s default. */
const INTERACTIVE_TX = { maxWait: 10_000, timeout: 10_000 } as const;

export class UsernameTakenError extends Error {
  constructor(readonly username: string) {
    super(`Username "${username}" is already taken`);
    this.name = "UsernameTakenError";
  }
}

/** Creates an account; throws UsernameTakenError when the name exists in any letter case. */
export async function createAccount(prisma: PrismaClient, username: string, passwordHash: string): Promise<User> {
  try {
    return await prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(${USERNAME_LOCK_CLASS}::int, hashtext(lower(${username})))::text AS locked`;
      if (await holderOf(tx, username)) throw new UsernameTakenError(username);
      return tx.user.create({ data: { username, passwordHash } });
    }, INTERACTIVE_TX);
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") throw new UsernameTakenError(username);
    throw err;
  }
}

/**
 * The account a username names, in any letter case. The exact spelling is tried first (it uses the
 * unique index); accounts created before names were case-insensitive may differ only in case, and
 * then the exact one wins.
 */
export async function findAccountByUsername(db: PrismaClient | Prisma.TransactionClient, username: string): Promise<User | null> {
  const exact = await db.user.findUnique({ where: { username } });
  if (exact) return exact;
  const id = await holderOf(db, username);
  return id === undefined ? null : db.user.findUnique({ where: { id } });
}

async function holderOf(db: PrismaClient | Prisma.TransactionClient, username: string): Promise<number | undefined> {
  const rows = await db.$queryRaw<{ id: number }[]>`SELECT id FROM users WHERE lower(username) = lower(${username}) ORDER BY id LIMIT 1`;
  return rows[0]?.id;
}

/** Ends every session of the account (its tokens carry an older epoch); returns the new epoch. */
export async function bumpSessionEpoch(prisma: PrismaClient, userId: number): Promise<number | undefined> {
  const rows = await prisma.$queryRaw<{ session_epoch: number }[]>`
    UPDATE users SET session_epoch = session_epoch + 1, updated_at = now() WHERE id = ${userId} RETURNING session_epoch`;
  return rows[0]?.session_epoch;
}

/**
 * A new password the account chose itself, which also ends every session of the account and makes
 * an issued (one-time) password the account's own: password_issued_at is cleared. Returns the new epoch.
 */
export async function changePassword(prisma: PrismaClient, userId: number, passwordHash: string): Promise<number | undefined> {
  const rows = await prisma.$queryRaw<{ session_epoch: number }[]>`
    UPDATE users SET password_hash = ${passwordHash}, password_issued_at = NULL, session_epoch = session_epoch + 1, updated_at = now()
    WHERE id = ${userId} RETURNING session_epoch`;
  return rows[0]?.session_epoch;
}

export class UsernamesTakenError extends Error {
  constructor(readonly usernames: readonly string[]) {
    super(`Username(s) already taken: ${usernames.join(", ")}`);
    this.name = "UsernamesTakenError";
  }
}

/** An account a teacher, an admin or the operator makes, with a password it hands out (issued now). */
export interface IssuedAccountInput {
  username: string;
  passwordHash: string;
  displayName?: string | null;
  role?: "student" | "teacher" | "admin";
}

/**
 * Creates accounts inside the caller's transaction (a roster import with its memberships, all or
 * nothing). Every name is locked first (in one order, so two imports never deadlock) and checked;
 * when any is taken in any letter case, UsernamesTakenError lists them all and nothing is written.
 */
export async function createIssuedAccounts(tx: Prisma.TransactionClient, accounts: readonly IssuedAccountInput[]): Promise<User[]> {
  const order = [...accounts].sort((a, b) => (a.username.toLowerCase() < b.username.toLowerCase() ? -1 : 1));
  for (const a of order) await tx.$queryRaw`SELECT pg_advisory_xact_lock(${USERNAME_LOCK_CLASS}::int, hashtext(lower(${a.username})))::text AS locked`;
  const lowered = accounts.map((a) => a.username.toLowerCase());
  const held = await tx.$queryRaw<{ username: string }[]>`SELECT username FROM users WHERE lower(username) = ANY(${lowered}::text[])`;
  if (held.length) {
    const taken = new Set(held.map((h) => h.username.toLowerCase()));
    throw new UsernamesTakenError(accounts.filter((a) => taken.has(a.username.toLowerCase())).map((a) => a.username));
  }
  const issuedAt = new Date();
  const created: User[] = [];
  for (const a of accounts) {
    created.push(
      await tx.user.create({
        data: { username: a.username, passwordHash: a.passwordHash, displayName: a.displayName ?? null, role: a.role ?? "student", passwordIssuedAt: issuedAt },
      }),
    );
  }
  return created;
}

/** One issued account in a transaction of its own (the operator's create-account). */
export async function createIssuedAccount(prisma: PrismaClient, account: IssuedAccountInput): Promise<User> {
  try {
    const [user] = await prisma.$transaction((tx) => createIssuedAccounts(tx, [account]), INTERACTIVE_TX);
    return user;
  } catch (err) {
    if (err instanceof UsernamesTakenError || (err as { code?: string }).code === "P2002") throw new UsernameTakenError(account.username);
    throw err;
  }
}

/** Sets an account's role; the account as it is now, or null when there is none. */
export async function setAccountRole(prisma: PrismaClient, userId: number, role: "student" | "teacher" | "admin"): Promise<User | null> {
  const rows = await prisma.user.updateMany({ where: { id: userId }, data: { role } });
  return rows.count ? prisma.user.findUnique({ where: { id: userId } }) : null;
}

/**
 * A password set by a teacher or admin (a reset): one-time (passwordIssuedAt), and every session of
 * the account ends with it. Returns the new epoch, or undefined when there is no such account.
 */
export async function issuePassword(prisma: PrismaClient, userId: number, passwordHash: string): Promise<number | undefined> {
  const rows = await prisma.$queryRaw<{ session_epoch: number }[]>`
    UPDATE users SET password_hash = ${passwordHash}, password_issued_at = now(), session_epoch = session_epoch + 1, updated_at = now()
    WHERE id = ${userId} RETURNING session_epoch`;
  return rows[0]?.session_epoch;
}

/**
 * Locks (sets locked_at, keeping an earlier lock's time, and ends every session: an unlock never
 * brings an old session back) or unlocks the account. False when there is no such account.
 */
export async function setLocked(prisma: PrismaClient, userId: number, locked: boolean): Promise<boolean> {
  const rows = locked
    ? await prisma.$queryRaw<{ id: number }[]>`
        UPDATE users SET locked_at = COALESCE(locked_at, now()), session_epoch = session_epoch + 1, updated_at = now() WHERE id = ${userId} RETURNING id`
    : await prisma.$queryRaw<{ id: number }[]>`UPDATE users SET locked_at = NULL, updated_at = now() WHERE id = ${userId} RETURNING id`;
  return rows.length > 0;
}

/** Mutes (keeping an earlier mute's time) or unmutes the account's chat. False when there is no such account. */
export async function setMuted(prisma: PrismaClient, userId: number, muted: boolean): Promise<boolean> {
  const rows = muted
    ? await prisma.$queryRaw<{ id: number }[]>`UPDATE users SET muted_at = COALESCE(muted_at, now()), updated_at = now() WHERE id = ${userId} RETURNING id`
    : await prisma.$queryRaw<{ id: number }[]>`UPDATE users SET muted_at = NULL, updated_at = now() WHERE id = ${userId} RETURNING id`;
  return rows.length > 0;
}

/** Deletes the account; its rows in every table with a user column go with it (ON DELETE CASCADE). */
export async function deleteAccount(db: PrismaClient | Prisma.TransactionClient, userId: number): Promise<void> {
  await db.user.deleteMany({ where: { id: userId } });
}

/** Deletes the accounts whose id and creation time match an erasure (a restore re-applying erasures); returns how many. */
export async function deleteErasedAccounts(db: PrismaClient | Prisma.TransactionClient, erased: ReadonlyArray<{ userId: number; userCreatedAt: Date }>): Promise<number> {
  let count = 0;
  for (const e of erased) count += (await db.user.deleteMany({ where: { id: e.userId, createdAt: e.userCreatedAt } })).count;
  return count;
}

/** Marks the accounts seen now (users.last_seen_at only: updated_at is for changes of the account). */
export async function recordLastSeen(db: PrismaClient | Prisma.TransactionClient, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.$executeRaw`UPDATE users SET last_seen_at = now() WHERE id = ANY(${[...userIds]}::int[])`;
}
