// Workspace platform groups: the default "All Users" group, membership, and each group's
// "allowed workspaces" (the registry entries its members may open).
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../db/client.js";
import type { Prisma } from "../db/generated/client.js";
import { badRequest, conflict } from "../errors.js";
import { groupNotFound, userNotFound } from "./errors.js";
import { entryFromRow } from "./registryStore.js";
import { sortEntries, type RegistryEntry } from "./registry.js";

export const DEFAULT_GROUP_NAME = "All Users";

export interface GroupJson {
  group_id: string;
  name: string;
  description: string;
  is_default: boolean;
  member_count: number;
  /** Names (image references) of the registry entries members may open. */
  workspaces: string[];
  created: string;
}

const groupDetails = {
  allowedWorkspaces: { include: { entry: { select: { name: true } } } },
  _count: { select: { members: true } },
} as const;
type GroupRow = Prisma.WorkspaceGroupGetPayload<{ include: typeof groupDetails }>;

function groupJson(g: GroupRow): GroupJson {
  return {
    group_id: g.id,
    name: g.name,
    description: g.description,
    is_default: g.isDefault,
    member_count: g._count.members,
    workspaces: g.allowedWorkspaces.map((w) => w.entry.name).sort(),
    created: g.createdAt.toISOString(),
  };
}

const newId = () => randomBytes(16).toString("hex");
const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === "P2002";

/** The "All Users" group, created on first use. Every new user joins it. */
export async function ensureDefaultGroup(prisma: PrismaClient): Promise<{ id: string; name: string }> {
  const existing = await prisma.workspaceGroup.findFirst({ where: { isDefault: true }, select: { id: true, name: true } });
  if (existing) return existing;
  try {
    return await prisma.workspaceGroup.create({
      data: { id: newId(), name: DEFAULT_GROUP_NAME, description: "Every user is a member of this group.", isDefault: true },
      select: { id: true, name: true },
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Another request created it first.
    return prisma.workspaceGroup.update({ where: { name: DEFAULT_GROUP_NAME }, data: { isDefault: true }, select: { id: true, name: true } });
  }
}

export async function listGroups(prisma: PrismaClient): Promise<GroupJson[]> {
  await ensureDefaultGroup(prisma);
  const rows = await prisma.workspaceGroup.findMany({ include: groupDetails });
  // The default group first, then by name (in JS: the same order on every database collation).
  rows.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name, "en"));
  return rows.map(groupJson);
}

export async function getGroup(prisma: PrismaClient, groupId: string): Promise<GroupJson> {
  const row = await prisma.workspaceGroup.findUnique({ where: { id: groupId }, include: groupDetails });
  if (!row) throw groupNotFound();
  return groupJson(row);
}

/** Group names are unique regardless of letter case (compared in JS, so for every script). */
export async function createGroup(prisma: PrismaClient, name: string, description = ""): Promise<GroupJson> {
  await ensureDefaultGroup(prisma);
  const taken = () => conflict(`A group named "${name}" already exists`);
  try {
    return await prisma.$transaction(async (tx) => {
      // One lock for every group-name write: groups are few and rarely created.
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(22356)::text AS locked`;
      const names = await tx.workspaceGroup.findMany({ select: { name: true } });
      const folded = name.toLowerCase();
      if (names.some((g) => g.name.toLowerCase() === folded)) throw taken();
      const row = await tx.workspaceGroup.create({ data: { id: newId(), name, description }, include: groupDetails });
      return groupJson(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

export async function deleteGroup(prisma: PrismaClient, groupId: string): Promise<void> {
  const group = await prisma.workspaceGroup.findUnique({ where: { id: groupId }, select: { isDefault: true } });
  if (!group) throw groupNotFound();
  if (group.isDefault) throw conflict(`The default group "${DEFAULT_GROUP_NAME}" cannot be deleted`);
  await prisma.workspaceGroup.deleteMany({ where: { id: groupId } });
}

async function requireUserAndGroup(prisma: PrismaClient, userId: string, groupId: string) {
  const [user, group] = await Promise.all([
    prisma.workspaceUser.findUnique({ where: { id: userId }, select: { id: true } }),
    prisma.workspaceGroup.findUnique({ where: { id: groupId }, select: { id: true, isDefault: true } }),
  ]);
  if (!user) throw userNotFound();
  if (!group) throw groupNotFound();
  return group;
}

/** Idempotent: adding a member again changes nothing. */
export async function addUserToGroup(prisma: PrismaClient, userId: string, groupId: string): Promise<void> {
  await requireUserAndGroup(prisma, userId, groupId);
  await prisma.workspaceGroupMember.createMany({ data: [{ userId, groupId }], skipDuplicates: true });
}

/** Idempotent, except that nobody leaves the default group. */
export async function removeUserFromGroup(prisma: PrismaClient, userId: string, groupId: string): Promise<void> {
  const group = await requireUserAndGroup(prisma, userId, groupId);
  if (group.isDefault) throw conflict(`Users cannot be removed from the default group "${DEFAULT_GROUP_NAME}"`);
  await prisma.workspaceGroupMember.deleteMany({ where: { userId, groupId } });
}

/** Replaces the group's allowed workspaces; unknown entry names → 400 naming them, nothing changed. */
export async function setGroupWorkspaces(prisma: PrismaClient, groupId: string, names: string[]): Promise<GroupJson> {
  const wanted = [...new Set(names)];
  const entries = await prisma.workspaceRegistryEntry.findMany({ where: { name: { in: wanted } }, select: { id: true, name: true } });
  const known = new Set(entries.map((e) => e.name));
  const unknown = wanted.filter((n) => !known.has(n));
  return prisma.$transaction(async (tx) => {
    const group = await tx.workspaceGroup.findUnique({ where: { id: groupId }, select: { id: true } });
    if (!group) throw groupNotFound();
    if (unknown.length) throw badRequest(`Unknown workspaces (no registry entry with that name): ${unknown.join(", ")}`);
    await tx.workspaceGroupImage.deleteMany({ where: { groupId } });
    if (entries.length) await tx.workspaceGroupImage.createMany({ data: entries.map((e) => ({ groupId, entryId: e.id })) });
    const row = await tx.workspaceGroup.findUniqueOrThrow({ where: { id: groupId }, include: groupDetails });
    return groupJson(row);
  });
}

/** The registry entries the user's groups allow; none while the user is locked or disabled. */
export async function workspacesForUser(prisma: PrismaClient, userId: string): Promise<RegistryEntry[]> {
  const user = await prisma.workspaceUser.findUnique({ where: { id: userId }, select: { locked: true, disabled: true } });
  if (!user) throw userNotFound();
  if (user.locked || user.disabled) return [];
  const rows = await prisma.workspaceRegistryEntry.findMany({
    where: { groups: { some: { group: { members: { some: { userId } } } } } },
  });
  return sortEntries(rows.map(entryFromRow));
}
