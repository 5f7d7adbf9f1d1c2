import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildRegistryList,
  canonicalJson,
  entrySha,
  filterEntries,
  imageReferenceProblem,
  isCompatible,
  parsePlatformVersion,
  validateEntry,
  versionMatches,
  type RegistryEntry,
} from "../../../src/workspace/registry.js";

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/registry/${name}/workspace.json`, import.meta.url), "utf8"));
const nighthawk = () => fixture("workspaces/Nighthawk");
const chromium = () => fixture("workspaces/Chromium");

function problems(value: unknown) {
  const result = validateEntry(value);
  return result.ok ? [] : result.problems;
}

describe("validateEntry with real-looking entries", () => {
  it("accepts the Nighthawk Coders entry and Kasm's Chromium template entry unchanged", () => {
    for (const entry of [nighthawk(), chromium()]) {
      const result = validateEntry(entry);
      expect(result).toEqual({ ok: true, entry, warnings: [] });
    }
  });

  it("keeps the spec's key order, whatever the file's order", () => {
    const shuffled = Object.fromEntries(Object.entries(chromium()).reverse());
    const result = validateEntry(shuffled);
    expect(result.ok && Object.keys(result.entry)).toEqual(Object.keys(chromium()));
  });

  it("accepts and ignores unknown keys and a published sha, warning about the unknown ones", () => {
    const result = validateEntry({ ...chromium(), notes: "beta", sha: "365ce0f48ab56c008eb362a1b40e2af8aae793c1" });
    expect(result.ok).toBe(true);
    expect(result.ok && "notes" in result.entry).toBe(false);
    expect(result.warnings).toEqual([{ field: "notes", reason: "unknown field, ignored" }]);
  });

  it("keeps extra docker options inside run_config and exec_config", () => {
    const entry = { ...chromium(), run_config: { hostname: "kasm", shm_size: "512m" } };
    const result = validateEntry(entry);
    expect(result.ok && result.entry.run_config).toEqual({ hostname: "kasm", shm_size: "512m" });
  });

  it("warns when an exec command never receives $KASM_URL", () => {
    const entry = chromium();
    entry.exec_config.assign.cmd = "bash -c '/dockerstartup/custom_startup.sh --assign'";
    const result = validateEntry(entry);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ field: "exec_config.assign.cmd", reason: expect.stringContaining("$KASM_URL") }]);
  });

  it("reports every problem of the invalid fixture with its exact field", () => {
    expect(problems(fixture("invalid/BadTypes"))).toEqual([
      { field: "description", reason: "must be a non-empty string" },
      { field: "docker_registry", reason: "must be an http(s) URL, e.g. https://index.docker.io/v1/" },
      { field: "image_src", reason: "must be an image file name such as chromium.png (no folders)" },
      { field: "run_config.hostname", reason: "must be a string" },
      { field: "exec_config.assign", reason: "is required" },
      { field: "categories", reason: "must be an array of strings" },
      { field: "architecture[1]", reason: "must be one of amd64, arm64" },
      { field: "compatibility[0]", reason: "must be a platform version pattern major.minor.x, e.g. 1.14.x" },
      { field: "uncompressed_size_mb", reason: "must be a positive integer (megabytes)" },
    ]);
  });

  it("names every missing field", () => {
    expect(problems({}).map((p) => `${p.field} ${p.reason}`)).toEqual([
      "description is required",
      "friendly_name is required",
      "docker_registry is required",
      "image_src is required",
      "name is required",
      "run_config is required",
      "exec_config is required",
      "categories is required",
      "architecture is required",
      "compatibility is required",
      "uncompressed_size_mb is required",
    ]);
  });

  it("refuses values that are not an object", () => {
    for (const value of [null, [], "workspace", 3]) {
      expect(problems(value)).toEqual([{ field: "(entry)", reason: "must be a JSON object" }]);
    }
  });

  const invalid: [string, (e: Record<string, any>) => void, string, RegExp][] = [
    ["description of spaces", (e) => (e.description = "   "), "description", /non-empty string/],
    ["description as a number", (e) => (e.description = 5), "description", /non-empty string/],
    ["description too long", (e) => (e.description = "x".repeat(2001)), "description", /at most 2000/],
    ["friendly_name empty", (e) => (e.friendly_name = ""), "friendly_name", /non-empty string/],
    ["docker_registry ftp", (e) => (e.docker_registry = "ftp://index.docker.io/v1/"), "docker_registry", /http\(s\) URL/],
    ["docker_registry not a URL", (e) => (e.docker_registry = "docker hub"), "docker_registry", /http\(s\) URL/],
    ["image_src with a folder", (e) => (e.image_src = "../secret.png"), "image_src", /no folders/],
    ["image_src not an image", (e) => (e.image_src = "chromium.exe"), "image_src", /image file name/],
    ["image_src empty", (e) => (e.image_src = ""), "image_src", /non-empty string/],
    ["name without tag", (e) => (e.name = "kasmweb/chromium"), "name", /must include a tag/],
    ["name with a port but no tag", (e) => (e.name = "localhost:5000/chromium"), "name", /must include a tag/],
    ["name with an empty tag", (e) => (e.name = "kasmweb/chromium:"), "name", /invalid tag/],
    ["name uppercase repository", (e) => (e.name = "KasmWeb/Chromium:1.14.0"), "name", /image reference/],
    ["name with spaces", (e) => (e.name = "kasm web/chromium:1.14.0"), "name", /image reference/],
    ["name as an array", (e) => (e.name = ["kasmweb/chromium:1.14.0"]), "name", /non-empty string/],
    ["run_config as a string", (e) => (e.run_config = "kasm"), "run_config", /must be an object/],
    ["run_config without hostname", (e) => (e.run_config = {}), "run_config.hostname", /is required/],
    ["hostname with spaces", (e) => (e.run_config = { hostname: "my host" }), "run_config.hostname", /host name/],
    ["exec_config as an array", (e) => (e.exec_config = []), "exec_config", /must be an object/],
    ["exec_config.go as a string", (e) => (e.exec_config.go = "bash"), "exec_config.go", /object with a cmd/],
    ["exec_config.go without cmd", (e) => (e.exec_config.go = {}), "exec_config.go.cmd", /is required/],
    ["exec_config.assign.cmd a number", (e) => (e.exec_config.assign.cmd = 1), "exec_config.assign.cmd", /non-empty string/],
    ["categories with an empty string", (e) => (e.categories = ["Desktop", ""]), "categories[1]", /non-empty string/],
    ["categories with a number", (e) => (e.categories = [1]), "categories[0]", /must be a string/],
    ["categories duplicated", (e) => (e.categories = ["Desktop", "Desktop"]), "categories[1]", /duplicates/],
    ["architecture empty", (e) => (e.architecture = []), "architecture", /at least one/],
    ["architecture x86_64", (e) => (e.architecture = ["x86_64"]), "architecture[0]", /amd64, arm64/],
    ["architecture as a string", (e) => (e.architecture = "amd64"), "architecture", /array of strings/],
    ["compatibility exact version", (e) => (e.compatibility = ["1.14.2"]), "compatibility[0]", /major\.minor\.x/],
    ["compatibility wildcard", (e) => (e.compatibility = ["1.x"]), "compatibility[0]", /major\.minor\.x/],
    ["compatibility empty", (e) => (e.compatibility = []), "compatibility", /at least one/],
    ["size zero", (e) => (e.uncompressed_size_mb = 0), "uncompressed_size_mb", /positive integer/],
    ["size negative", (e) => (e.uncompressed_size_mb = -5), "uncompressed_size_mb", /positive integer/],
    ["size fractional", (e) => (e.uncompressed_size_mb = 2170.5), "uncompressed_size_mb", /positive integer/],
    ["size as a string", (e) => (e.uncompressed_size_mb = "2170"), "uncompressed_size_mb", /positive integer/],
  ];
  it.each(invalid)("rejects %s, naming %s", (_name, change, field, reason) => {
    const entry = chromium();
    change(entry);
    const found = problems(entry);
    expect(found).toHaveLength(1);
    expect(found[0].field).toBe(field);
    expect(found[0].reason).toMatch(reason);
  });
});

describe("image references", () => {
  it.each(["kasmweb/chromium:1.14.0", "nighthawkcoders/kasm_workspaces:latest", "ghcr.io/owner/desk-top:v2_rc.1", "localhost:5000/chromium:dev", "ubuntu:22.04", "registry.example.com:8443/a/b/c:x"])(
    "accepts %s",
    (ref) => expect(imageReferenceProblem(ref)).toBeUndefined(),
  );
});

describe("platform versions", () => {
  it("parses versions and patterns", () => {
    expect(parsePlatformVersion("1.14.2")).toEqual({ major: 1, minor: 14, patch: 2 });
    expect(parsePlatformVersion("1.14")).toEqual({ major: 1, minor: 14, patch: undefined });
    expect(parsePlatformVersion("1.14.x")).toEqual({ major: 1, minor: 14, patch: undefined });
    for (const bad of ["", "1", "v1.14.2", "1.14.2.1", "1.x", "one.two"]) expect(parsePlatformVersion(bad)).toBeUndefined();
  });

  it.each([
    ["1.14.x", "1.14.2", true],
    ["1.14.x", "1.14.0", true],
    ["1.14.x", "1.14", true],
    ["1.14.x", "1.14.x", true],
    ["1.14.x", "1.13.2", false],
    ["1.14.x", "1.15.0", false],
    ["1.14.x", "2.14.2", false],
    ["1.1.x", "1.14.2", false],
    ["1.14.x", "1.140.0", false],
    ["1.14.2", "1.14.2", false],
    ["1.14.x", "garbage", false],
  ])("%s covers %s: %s", (pattern, version, expected) => {
    expect(versionMatches(pattern, version)).toBe(expected);
  });

  it("filters entries by architecture and platform version", () => {
    const entries = [nighthawk(), chromium()] as RegistryEntry[];
    const names = (list: RegistryEntry[]) => list.map((e) => e.friendly_name);
    expect(names(filterEntries(entries, {}))).toEqual(["CSSE Ubuntu Jammy", "Chromium"]);
    expect(names(filterEntries(entries, { architecture: "arm64" }))).toEqual(["Chromium"]);
    expect(names(filterEntries(entries, { version: "1.14.2" }))).toEqual(["Chromium"]);
    expect(names(filterEntries(entries, { version: "1.13.5" }))).toEqual(["CSSE Ubuntu Jammy", "Chromium"]);
    expect(names(filterEntries(entries, { architecture: "amd64", version: "1.15.0" }))).toEqual([]);
    expect(isCompatible(chromium(), "1.14.2")).toBe(true);
  });
});

describe("list.json", () => {
  it("hashes canonical JSON, independent of key order", () => {
    const entry = chromium();
    const reordered = Object.fromEntries(Object.entries(entry).reverse()) as unknown as RegistryEntry;
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    expect(entrySha(reordered)).toBe(entrySha(entry));
    expect(entrySha(entry)).toMatch(/^[0-9a-f]{40}$/);
    expect(entrySha({ ...entry, uncompressed_size_mb: 2171 })).not.toBe(entrySha(entry));
  });

  it("builds the registry document public registries publish", () => {
    const list = buildRegistryList([nighthawk(), chromium()], { name: "Nighthawk Coders", list_url: "https://registry.example.com/" }, 1744121155600);
    expect(Object.keys(list)).toEqual(["name", "workspacecount", "icon", "description", "list_url", "contact_url", "modified", "workspaces"]);
    expect(list).toMatchObject({ name: "Nighthawk Coders", workspacecount: 2, list_url: "https://registry.example.com/", modified: 1744121155600 });
    expect(list.workspaces.map((w) => w.friendly_name)).toEqual(["Chromium", "CSSE Ubuntu Jammy"]);
    expect(list.workspaces[0]).toEqual({ ...chromium(), sha: entrySha(chromium()) });
    expect(Object.keys(list.workspaces[0]).at(-1)).toBe("sha");
  });
});
