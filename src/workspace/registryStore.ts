// Registry entries in the database: upsert by image name, list and filter, map rows back to the
// registry's JSON shape.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../db/client.js";
import type { Prisma, WorkspaceRegistryEntry } from "../db/generated/client.js";
import { entrySha, filterEntries, sortEntries, type EntryFilter, type RegistryEntry } from "./registry.js";

export function entryFromRow(row: WorkspaceRegistryEntry): RegistryEntry {
  return {
    description: row.description,
    docker_registry: row.dockerRegistry,
    image_src: row.imageSrc,
    name: row.name,
    run_config: row.runConfig as RegistryEntry["run_config"],
    exec_config: row.execConfig as RegistryEntry["exec_config"],
    categories: row.categories,
    friendly_name: row.friendlyName,
    architecture: row.architecture as RegistryEntry["architecture"],
    compatibility: row.compatibility,
    uncompressed_size_mb: row.uncompressedSizeMb,
  };
}

function columns(entry: RegistryEntry) {
  return {
    friendlyName: entry.friendly_name,
    description: entry.description,
    dockerRegistry: entry.docker_registry,
    imageSrc: entry.image_src,
    // Validated JSON (parsed from a file), so it is JSON-serialisable.
    runConfig: entry.run_config as Prisma.InputJsonObject,
    execConfig: entry.exec_config as Prisma.InputJsonObject,
    categories: entry.categories,
    architecture: entry.architecture,
    compatibility: entry.compatibility,
    uncompressedSizeMb: entry.uncompressed_size_mb,
    sha: entrySha(entry),
  };
}

export type UpsertOutcome = "created" | "updated" | "unchanged";

/** Inserts the entry, or replaces the stored one with the same image name. */
export async function upsertEntry(prisma: PrismaClient, entry: RegistryEntry): Promise<UpsertOutcome> {
  const data = columns(entry);
  const existing = await prisma.workspaceRegistryEntry.findUnique({ where: { name: entry.name }, select: { sha: true } });
  if (existing?.sha === data.sha) return "unchanged";
  await prisma.workspaceRegistryEntry.upsert({
    where: { name: entry.name },
    create: { id: randomBytes(16).toString("hex"), name: entry.name, ...data },
    update: data,
  });
  return existing ? "updated" : "created";
}

/** Every stored entry matching the filter, by friendly name. */
export async function listEntries(prisma: PrismaClient, filter: EntryFilter = {}): Promise<RegistryEntry[]> {
  const rows = await prisma.workspaceRegistryEntry.findMany();
  return sortEntries(filterEntries(rows.map(entryFromRow), filter));
}
