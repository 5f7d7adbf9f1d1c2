// Layers point one way (docs/room-kit.md): each rule below names a layer of src/ and the modules
// it must never import. Read from the import statements themselves (type-only imports included:
// a type import is still a dependency a reader has to follow).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : modules(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The src/-relative paths a module imports (relative specifiers only), without extension. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)|(?:^|\n)\s*import\s+"(\.[^"]+)"/g)];
  return specs.map((m) => relative(SRC, resolve(dirname(file), m[1] ?? m[2] ?? m[3])).replace(/\.js$/, ""));
}

const RULES: Array<{ layer: string; never: string[]; why: string }> = [
  { layer: "game/", never: ["*"], why: "the rules are pure: nothing outside src/game" },
  { layer: "protocol/", never: ["auth/", "context", "db/", "http/", "rooms/", "shared/", "stores/"], why: "the protocol is importable by clients: game constants and types only" },
  { layer: "auth/", never: ["context", "app", "server", "http/", "rooms/"], why: "the context is built from auth/, so auth/ names only what it uses" },
  { layer: "stores/", never: ["context", "app", "server", "http/", "rooms/", "auth/"], why: "stores write tables; callers hand them a client" },
  { layer: "rooms/kit/", never: ["rooms/boss/", "rooms/pvp/", "rooms/slitherrush/", "rooms/modes/"], why: "the kit serves every room and knows none" },
];

describe("layers point one way", () => {
  const files = modules(SRC).map((f) => ({ path: relative(SRC, f), imports: importsOf(f) }));

  it("finds the modules and their imports", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.find((f) => f.path === "context.ts")?.imports).toContain("auth/tokens");
  });

  it.each(RULES)("$layer: $why", ({ layer, never }) => {
    const offending = files
      .filter((f) => f.path.startsWith(layer))
      .flatMap((f) =>
        f.imports
          .filter((target) => (never[0] === "*" ? !target.startsWith(layer) : never.some((n) => (n.endsWith("/") ? target.startsWith(n) : target === n))))
          .map((target) => `${f.path} → ${target}`),
      );
    expect(offending).toEqual([]);
  });
});
