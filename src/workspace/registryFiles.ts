// Reading registry entries from disk: one workspace.json, a folder holding workspace.json files at any
// depth (a registry's workspaces/<Name>/workspace.json layout), or a published list.json.
import { readdir, readFile, stat, access } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { validateEntry, type EntryProblem, type RegistryEntry } from "./registry.js";

export interface LoadedEntry {
  /** File (and, for list.json, the index inside it). */
  source: string;
  entry?: RegistryEntry;
  problems: EntryProblem[];
  warnings: EntryProblem[];
}

const ENTRY_FILE = "workspace.json";
const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);

/** Every workspace.json below the folder, in a stable order. */
export async function findEntryFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const items = await readdir(dir, { withFileTypes: true });
    for (const item of items.sort((a, b) => a.name.localeCompare(b.name, "en"))) {
      if (item.isDirectory() && !SKIPPED_FOLDERS.has(item.name)) await walk(join(dir, item.name));
      else if (item.isFile() && item.name === ENTRY_FILE) found.push(join(dir, item.name));
    }
  };
  await walk(folder);
  return found;
}

/** Loads and validates every entry under the path (a file or a folder). Never throws for bad entries. */
export async function loadEntries(path: string): Promise<LoadedEntry[]> {
  const target = resolve(path);
  const info = await stat(target);
  const files = info.isDirectory() ? await findEntryFiles(target) : [target];
  const results: LoadedEntry[] = [];
  for (const file of files) results.push(...(await loadFile(file, relative(process.cwd(), file) || basename(file))));
  // One image name, one entry: a second file claiming a name is an error, not a silent overwrite.
  const firstSource = new Map<string, string>();
  for (const r of results) {
    if (!r.entry) continue;
    const first = firstSource.get(r.entry.name);
    if (first === undefined) firstSource.set(r.entry.name, r.source);
    else {
      r.problems.push({ field: "name", reason: `duplicates the entry "${r.entry.name}" already read from ${first}` });
      r.entry = undefined;
    }
  }
  return results;
}

async function loadFile(file: string, shown: string): Promise<LoadedEntry[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    const reason = err instanceof SyntaxError ? `is not valid JSON (${err.message})` : `cannot be read (${(err as Error).message})`;
    return [{ source: shown, problems: [{ field: "(file)", reason }], warnings: [] }];
  }
  // A published list.json: { name, …, workspaces: [entries] }.
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && Array.isArray((parsed as { workspaces?: unknown }).workspaces)) {
    return (parsed as { workspaces: unknown[] }).workspaces.map((value, i) => checked(value, `${shown} workspaces[${i}]`));
  }
  const loaded = checked(parsed, shown);
  // Registries keep the icon next to workspace.json; a missing one is worth a warning.
  if (loaded.entry && basename(file) === ENTRY_FILE) {
    const icon = join(dirname(file), loaded.entry.image_src);
    if (!(await access(icon).then(() => true, () => false))) {
      loaded.warnings.push({ field: "image_src", reason: `icon file ${loaded.entry.image_src} not found next to ${ENTRY_FILE}` });
    }
  }
  return [loaded];
}

function checked(value: unknown, source: string): LoadedEntry {
  const result = validateEntry(value);
  return result.ok
    ? { source, entry: result.entry, problems: [], warnings: result.warnings }
    : { source, problems: result.problems, warnings: result.warnings };
}
