// Workspace registry entries (workspace.json): validation, platform-version matching and the
// list.json a public workspace registry publishes. Pure: no I/O.
//
// Upstream registries only JSON.parse their entries; we check every field of the spec's shape and
// report each problem as { field, reason }. Unknown top-level keys are accepted (registries carry
// extra ones) but are not stored; they come back as warnings, like a command that never receives
// the session URL.
import { createHash } from "node:crypto";

export const ARCHITECTURES = ["amd64", "arm64"] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

export interface ExecCommand {
  cmd: string;
  [key: string]: unknown;
}

/** One registry entry, in the registry's own JSON shape (snake_case keys, this order). */
export interface RegistryEntry {
  description: string;
  docker_registry: string;
  image_src: string;
  name: string;
  run_config: { hostname: string; [key: string]: unknown };
  exec_config: { go: ExecCommand; assign: ExecCommand; [key: string]: unknown };
  categories: string[];
  friendly_name: string;
  architecture: Architecture[];
  compatibility: string[];
  uncompressed_size_mb: number;
}

export type PublishedEntry = RegistryEntry & { sha: string };

export interface EntryProblem {
  field: string;
  reason: string;
}

export type EntryValidation =
  | { ok: true; entry: RegistryEntry; warnings: EntryProblem[] }
  | { ok: false; problems: EntryProblem[]; warnings: EntryProblem[] };

export const ENTRY_FIELDS = [
  "description",
  "docker_registry",
  "image_src",
  "name",
  "run_config",
  "exec_config",
  "categories",
  "friendly_name",
  "architecture",
  "compatibility",
  "uncompressed_size_mb",
] as const;

/** Present in published list.json files; accepted on import and recomputed. */
const DERIVED_FIELDS = new Set(["sha"]);

const MAX_TEXT = 2000;
const MAX_NAME = 255;
const COMPATIBILITY_PATTERN = /^\d+\.\d+\.x$/;
const IMAGE_FILE = /^[^/\\]+\.(png|svg|jpe?g|gif|webp|ico)$/i;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
// Docker's reference grammar: an optional registry host[:port], then lowercase path components.
const REGISTRY_HOST = /^(?:localhost|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)(?::\d{1,5})?$|^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?:\d{1,5}$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const SESSION_URL_VARIABLE = "$KASM_URL";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why an image reference is not "repository:tag", or undefined when it is one. */
export function imageReferenceProblem(ref: string): string | undefined {
  if (ref.length > MAX_NAME) return `must have at most ${MAX_NAME} characters`;
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon <= slash) return "must include a tag, e.g. kasmweb/chromium:1.14.0";
  const repository = ref.slice(0, colon);
  const tag = ref.slice(colon + 1);
  if (!TAG.test(tag)) return `has an invalid tag "${tag}" (letters, digits, '_', '.', '-'; at most 128)`;
  const parts = repository.split("/");
  const host = parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === "localhost") ? parts.shift()! : undefined;
  if (host !== undefined && !REGISTRY_HOST.test(host)) return `has an invalid registry host "${host}"`;
  if (parts.length === 0 || !parts.every((p) => PATH_COMPONENT.test(p))) {
    return "must be an image reference like owner/image:tag (lowercase letters, digits and separators)";
  }
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** Validates one parsed workspace.json value. Every problem is reported, not only the first. */
export function validateEntry(value: unknown): EntryValidation {
  const problems: EntryProblem[] = [];
  const warnings: EntryProblem[] = [];
  const fail = (field: string, reason: string) => problems.push({ field, reason });
  if (!isObject(value)) return { ok: false, problems: [{ field: "(entry)", reason: "must be a JSON object" }], warnings };

  for (const key of Object.keys(value)) {
    if (!(ENTRY_FIELDS as readonly string[]).includes(key) && !DERIVED_FIELDS.has(key)) {
      warnings.push({ field: key, reason: "unknown field, ignored" });
    }
  }

  const text = (field: "description" | "friendly_name", max: number) => {
    const v = value[field];
    if (v === undefined) fail(field, "is required");
    else if (typeof v !== "string" || v.trim() === "") fail(field, "must be a non-empty string");
    else if (v.length > max) fail(field, `must have at most ${max} characters`);
  };
  text("description", MAX_TEXT);
  text("friendly_name", MAX_NAME);

  const registry = value.docker_registry;
  if (registry === undefined) fail("docker_registry", "is required");
  else if (typeof registry !== "string" || !isHttpUrl(registry)) fail("docker_registry", "must be an http(s) URL, e.g. https://index.docker.io/v1/");

  const imageSrc = value.image_src;
  if (imageSrc === undefined) fail("image_src", "is required");
  else if (typeof imageSrc !== "string" || imageSrc.trim() === "") fail("image_src", "must be a non-empty string");
  else if (!IMAGE_FILE.test(imageSrc) || imageSrc.length > MAX_NAME) fail("image_src", "must be an image file name such as chromium.png (no folders)");

  const name = value.name;
  if (name === undefined) fail("name", "is required");
  else if (typeof name !== "string" || name === "") fail("name", "must be a non-empty string");
  else {
    const problem = imageReferenceProblem(name);
    if (problem) fail("name", problem);
  }

  const run = value.run_config;
  if (run === undefined) fail("run_config", "is required");
  else if (!isObject(run)) fail("run_config", "must be an object");
  else if (run.hostname === undefined) fail("run_config.hostname", "is required");
  else if (typeof run.hostname !== "string") fail("run_config.hostname", "must be a string");
  else if (!HOSTNAME.test(run.hostname)) fail("run_config.hostname", "must be a host name (letters, digits, '-' and '.')");

  const exec = value.exec_config;
  if (exec === undefined) fail("exec_config", "is required");
  else if (!isObject(exec)) fail("exec_config", "must be an object");
  else {
    for (const key of ["go", "assign"] as const) {
      const command = exec[key];
      const field = `exec_config.${key}`;
      if (command === undefined) fail(field, "is required");
      else if (!isObject(command)) fail(field, "must be an object with a cmd string");
      else if (command.cmd === undefined) fail(`${field}.cmd`, "is required");
      else if (typeof command.cmd !== "string" || command.cmd.trim() === "") fail(`${field}.cmd`, "must be a non-empty string");
      else if (!command.cmd.includes(SESSION_URL_VARIABLE)) {
        warnings.push({ field: `${field}.cmd`, reason: `does not use ${SESSION_URL_VARIABLE}, so the command never receives the session URL` });
      }
    }
  }

  stringList(value, "categories", fail, { allowEmpty: true, check: (s) => (s.trim() === "" ? "must be a non-empty string" : s.length > MAX_NAME ? `must have at most ${MAX_NAME} characters` : undefined) });
  stringList(value, "architecture", fail, {
    allowEmpty: false,
    check: (s) => ((ARCHITECTURES as readonly string[]).includes(s) ? undefined : `must be one of ${ARCHITECTURES.join(", ")}`),
  });
  stringList(value, "compatibility", fail, {
    allowEmpty: false,
    check: (s) => (COMPATIBILITY_PATTERN.test(s) ? undefined : "must be a platform version pattern major.minor.x, e.g. 1.14.x"),
  });

  const size = value.uncompressed_size_mb;
  if (size === undefined) fail("uncompressed_size_mb", "is required");
  else if (typeof size !== "number" || !Number.isSafeInteger(size) || size <= 0) fail("uncompressed_size_mb", "must be a positive integer (megabytes)");

  if (problems.length) return { ok: false, problems, warnings };
  const v = value as unknown as RegistryEntry;
  const entry: RegistryEntry = {
    description: v.description,
    docker_registry: v.docker_registry,
    image_src: v.image_src,
    name: v.name,
    run_config: v.run_config,
    exec_config: v.exec_config,
    categories: v.categories,
    friendly_name: v.friendly_name,
    architecture: v.architecture,
    compatibility: v.compatibility,
    uncompressed_size_mb: v.uncompressed_size_mb,
  };
  return { ok: true, entry, warnings };
}

function stringList(
  value: Record<string, unknown>,
  field: "categories" | "architecture" | "compatibility",
  fail: (field: string, reason: string) => void,
  options: { allowEmpty: boolean; check: (item: string) => string | undefined },
): void {
  const list = value[field];
  if (list === undefined) return fail(field, "is required");
  if (!Array.isArray(list)) return fail(field, "must be an array of strings");
  if (!options.allowEmpty && list.length === 0) return fail(field, "must list at least one value");
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const at = `${field}[${i}]`;
    if (typeof item !== "string") return fail(at, "must be a string");
    const problem = options.check(item);
    if (problem) return fail(at, problem);
    if (seen.has(item)) return fail(at, `duplicates "${item}"`);
    seen.add(item);
  });
}

// ---------------------------------------------------------------------------------------------
// Platform versions: an entry lists patterns like "1.14.x"; a platform runs e.g. "1.14.2".
// ---------------------------------------------------------------------------------------------

export interface PlatformVersion {
  major: number;
  minor: number;
  /** undefined for "1.14" and "1.14.x": any patch. */
  patch?: number;
}

/** "1.14.2", "1.14" or "1.14.x" → the version; anything else → undefined. */
export function parsePlatformVersion(text: string): PlatformVersion | undefined {
  const m = /^(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}|x))?$/.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined || m[3] === "x" ? undefined : Number(m[3]) };
}

/** True when the pattern ("1.14.x") covers the version ("1.14.2", "1.14", "1.14.x"). */
export function versionMatches(pattern: string, version: string): boolean {
  const p = parsePlatformVersion(pattern);
  const v = parsePlatformVersion(version);
  if (!p || !v || !COMPATIBILITY_PATTERN.test(pattern.trim())) return false;
  return p.major === v.major && p.minor === v.minor;
}

export function isCompatible(entry: Pick<RegistryEntry, "compatibility">, version: string): boolean {
  return entry.compatibility.some((pattern) => versionMatches(pattern, version));
}

export interface EntryFilter {
  architecture?: string;
  /** A platform version such as 1.14.2. */
  version?: string;
}

export function filterEntries<E extends Pick<RegistryEntry, "architecture" | "compatibility">>(entries: E[], filter: EntryFilter): E[] {
  return entries.filter(
    (e) =>
      (filter.architecture === undefined || (e.architecture as string[]).includes(filter.architecture)) &&
      (filter.version === undefined || isCompatible(e, filter.version)),
  );
}

// ---------------------------------------------------------------------------------------------
// Publishing: sha per entry and the registry's list.json.
// ---------------------------------------------------------------------------------------------

/** JSON with object keys sorted at every level, so equal entries hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** sha1 hex of the entry's canonical JSON (upstream hashes the entry's folder; we hash its content). */
export function entrySha(entry: RegistryEntry): string {
  return createHash("sha1").update(canonicalJson(entry)).digest("hex");
}

export interface RegistryListMeta {
  name: string;
  icon: string;
  description: string;
  list_url: string;
  contact_url: string;
}

export const DEFAULT_LIST_META: RegistryListMeta = {
  name: "Workspace Registry",
  icon: "/img/logo.svg",
  description: "Workspaces published by this server.",
  list_url: "http://localhost:8500/",
  contact_url: "http://localhost:8500/",
};

export interface RegistryList extends RegistryListMeta {
  workspacecount: number;
  /** Milliseconds since the epoch, as upstream's Date.now(). */
  modified: number;
  workspaces: PublishedEntry[];
}

/** By friendly name, then image name, the same on every database (no collation dependence). */
export function sortEntries<E extends Pick<RegistryEntry, "friendly_name" | "name">>(entries: E[]): E[] {
  return [...entries].sort((a, b) => a.friendly_name.localeCompare(b.friendly_name, "en") || a.name.localeCompare(b.name, "en"));
}

/** The list.json document: entries sorted by friendly name, each with its sha. */
export function buildRegistryList(entries: RegistryEntry[], meta: Partial<RegistryListMeta> = {}, modified = Date.now()): RegistryList {
  const workspaces = sortEntries(entries).map((e) => ({ ...e, sha: entrySha(e) }));
  const m = { ...DEFAULT_LIST_META, ...meta };
  return {
    name: m.name,
    workspacecount: workspaces.length,
    icon: m.icon,
    description: m.description,
    list_url: m.list_url,
    contact_url: m.contact_url,
    modified,
    workspaces,
  };
}
