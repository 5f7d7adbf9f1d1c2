// Workspace platform users: create, read, update, delete, log out. Inputs arrive already shaped by
// the route's schemas; these functions enforce the rules that need the database (existence,
// case-insensitive username uniqueness) and the password rules, and never return a password hash.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../db/client.js";
import type { Prisma } from "../db/generated/client.js";
import { AppError, conflict } from "../errors.js";
import { hashPassword } from "../auth/passwords.js";
import { failedPasswordRules, passwordRulesMessage } from "./passwordRules.js";
import { ensureDefaultGroup } from "./groups.js";
import { userNotFound } from "./errors.js";

type Db = PrismaClient | Prisma.TransactionClient;

/** The editable fields, in the platform's names (create_user and update_user). */
export interface UserFields {
  username?: string;
  first_name?: string;
  last_name?: string;
  locked?: boolean;
  disabled?: boolean;
  organization?: string;
  phone?: string;
  password?: string;
}

export interface UserJson {
  user_id: string;
  username: string;
  first_name: string;
  last_name: string;
  organization: string;
  phone: string;
  realm: string;
  locked: boolean;
  disabled: boolean;
  groups: { group_id: string; name: string }[];
  created: string;
  last_session: string | null;
  notes: string | null;
}


const withGroups = { memberships: { include: { group: { select: { id: true, name: true } } } } } as const;
type UserRow = Prisma.WorkspaceUserGetPayload<{ include: typeof withGroups }>;

export function userJson(u: UserRow): UserJson {
  return {
    user_id: u.id,
    username: u.username,
    first_name: u.firstName,
    last_name: u.lastName,
    organization: u.organization,
    phone: u.phone,
    realm: u.realm,
    locked: u.locked,
    disabled: u.disabled,
    groups: u.memberships
      .map((m) => ({ group_id: m.group.id, name: m.group.name }))
      .sort((a, b) => a.name.localeCompare(b.name, "en") || a.group_id.localeCompare(b.group_id)),
    created: u.createdAt.toISOString(),
    last_session: u.lastSession?.toISOString() ?? null,
    notes: u.notes,
  };
}

export const newPlatformId = () => randomBytes(16).toString("hex");

/** Rejects with 400 naming every broken rule; otherwise the scrypt hash. Runs before any write. */
async function passwordHashFor(password: string): Promise<string> {
  const failed = failedPasswordRules(password);
  if (failed.length) throw new AppError(400, "password_rules", passwordRulesMessage(failed), { failed_rules: failed.map((r) => r.id) });
  return hashPassword(password);
}

/**
 * Serialises writers of one (lower-cased) username with a transaction-scoped advisory lock, then
 * refuses the name if another user holds it in any letter case. Usernames are ASCII (see the
 * route schema), so SQL lower() agrees on every database locale.
 */
async function claimUsername(tx: Prisma.TransactionClient, username: string, exceptUserId?: string): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(22355, hashtext(lower(${username})))::text AS locked`;
  const taken = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM workspace_users WHERE lower(username) = lower(${username}) AND id <> ${exceptUserId ?? ""} LIMIT 1`;
  if (taken.length) throw usernameTaken(username);
}

const usernameTaken = (username: string) => conflict(`Username "${username}" is already taken`);

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "P2002";
}

function columns(fields: UserFields, passwordHash: string | undefined): Prisma.WorkspaceUserUpdateInput {
  const data: Prisma.WorkspaceUserUpdateInput = {};
  if (fields.username !== undefined) data.username = fields.username;
  if (fields.first_name !== undefined) data.firstName = fields.first_name;
  if (fields.last_name !== undefined) data.lastName = fields.last_name;
  if (fields.organization !== undefined) data.organization = fields.organization;
  if (fields.phone !== undefined) data.phone = fields.phone;
  if (fields.locked !== undefined) data.locked = fields.locked;
  if (fields.disabled !== undefined) data.disabled = fields.disabled;
  if (passwordHash !== undefined) data.passwordHash = passwordHash;
  return data;
}

export async function createUser(prisma: PrismaClient, fields: UserFields & { username: string }): Promise<UserJson> {
  const passwordHash = fields.password === undefined ? undefined : await passwordHashFor(fields.password);
  const defaultGroup = await ensureDefaultGroup(prisma);
  try {
    return await prisma.$transaction(async (tx) => {
      await claimUsername(tx, fields.username);
      const data = columns(fields, passwordHash) as Prisma.WorkspaceUserCreateInput;
      const user = await tx.workspaceUser.create({
        data: { ...data, id: newPlatformId(), username: fields.username, memberships: { create: { groupId: defaultGroup.id } } },
        include: withGroups,
      });
      return userJson(user);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw usernameTaken(fields.username);
    throw err;
  }
}

export type UserSelector = { user_id: string; username?: undefined } | { username: string; user_id?: undefined };

export async function getUser(db: Db, selector: UserSelector): Promise<UserJson> {
  const user =
    selector.user_id !== undefined
      ? await db.workspaceUser.findUnique({ where: { id: selector.user_id }, include: withGroups })
      : await findByUsername(db, selector.username);
  if (!user) throw userNotFound();
  return userJson(user);
}

async function findByUsername(db: Db, username: string): Promise<UserRow | null> {
  const rows = await db.$queryRaw<{ id: string }[]>`SELECT id FROM workspace_users WHERE lower(username) = lower(${username}) LIMIT 1`;
  return rows.length ? db.workspaceUser.findUnique({ where: { id: rows[0].id }, include: withGroups }) : null;
}

export interface UserPage {
  users: UserJson[];
  total: number;
  page: number;
  page_size: number;
}

export async function getUsers(prisma: PrismaClient, page: number, pageSize: number): Promise<UserPage> {
  const [total, rows] = await prisma.$transaction([
    prisma.workspaceUser.count(),
    prisma.workspaceUser.findMany({
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
      include: withGroups,
    }),
  ]);
  return { users: rows.map(userJson), total, page, page_size: pageSize };
}

/**
 * Changes exactly the given fields in one transaction. Everything that can fail without the
 * database (types, password rules) is checked before the transaction starts; inside it, the user
 * must exist (404) and a new username must be free in any letter case (409). A failure writes nothing.
 */
export async function updateUser(prisma: PrismaClient, userId: string, fields: UserFields): Promise<UserJson> {
  const passwordHash = fields.password === undefined ? undefined : await passwordHashFor(fields.password);
  try {
    return await prisma.$transaction(async (tx) => {
      const current = await tx.workspaceUser.findUnique({ where: { id: userId }, select: { username: true } });
      if (!current) throw userNotFound();
      if (fields.username !== undefined && fields.username !== current.username) await claimUsername(tx, fields.username, userId);
      const data = columns(fields, passwordHash);
      // A new password, a lock or a disable ends the user's existing sessions.
      if (passwordHash !== undefined || fields.locked === true || fields.disabled === true) data.sessionEpoch = { increment: 1 };
      const user = await tx.workspaceUser.update({ where: { id: userId }, data, include: withGroups });
      return userJson(user);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw usernameTaken(fields.username ?? "");
    throw err;
  }
}

export async function deleteUser(prisma: PrismaClient, userId: string): Promise<void> {
  const { count } = await prisma.workspaceUser.deleteMany({ where: { id: userId } });
  if (count === 0) throw userNotFound();
}

/** Ends every session of the user: sessions carry the epoch they were issued under. */
export async function logoutUser(prisma: PrismaClient, userId: string): Promise<void> {
  const { count } = await prisma.workspaceUser.updateMany({ where: { id: userId }, data: { sessionEpoch: { increment: 1 } } });
  if (count === 0) throw userNotFound();
}

/** What signing in needs to know about a user, found by username in any letter case. */
export async function findSignInUser(db: Db, username: string) {
  const rows = await db.$queryRaw<{ id: string }[]>`SELECT id FROM workspace_users WHERE lower(username) = lower(${username}) LIMIT 1`;
  if (!rows.length) return null;
  return db.workspaceUser.findUnique({
    where: { id: rows[0].id },
    select: { id: true, passwordHash: true, locked: true, disabled: true, sessionEpoch: true },
  });
}

/** A session started: last_session is now. */
export async function recordSession(prisma: PrismaClient, userId: string): Promise<void> {
  await prisma.workspaceUser.updateMany({ where: { id: userId }, data: { lastSession: new Date() } });
}
