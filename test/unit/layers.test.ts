// Layers point one way (docs/architecture.md, docs/room-kit.md). The import graph of src/ is read
// from the import statements themselves, by TypeScript's own scanner (comments and template strings
// are not imports), type-only imports and `import("…")` types included: a type import is still a
// dependency a reader has to follow. Two checks: no import cycle, between modules or between layers
// (a layer = a folder of src/, or a file at its top), and each rule below: a layer and the modules
// it must never import.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : modules(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The src/-relative paths (without extension) of the modules a file imports: relative specifiers only. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const targets = importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => {
      const path = resolve(dirname(file), spec).replace(/\.js$/, "");
      return relative(SRC, existsSync(`${path}.ts`) || !existsSync(join(path, "index.ts")) ? path : join(path, "index"));
    });
  return [...new Set(targets)];
}

/** A module's layer: its folder under src/ ("auth/"), or its own name for a file at the top ("context"). */
const layerOf = (module: string): string => (module.includes("/") ? `${module.split("/")[0]}/` : module);

type Graph = Map<string, Map<string, string[]>>; // node → node it imports → the module imports that make that arrow

/** Tarjan's strongly connected components with more than one node: each holds at least one cycle. */
function tangles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v)!.keys()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component = stack.splice(stack.indexOf(v));
      if (component.length > 1) found.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One shortest cycle through `start` inside its component, as the nodes in import order. */
function cycleThrough(graph: Graph, start: string, component: Set<string>): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  for (const v of queue) {
    for (const w of graph.get(v)!.keys()) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0])!);
        return path;
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`${start} is in a component without a cycle through it`);
}

/** Every tangle as one line: a cycle "a → b → a" and, after it, the module imports that draw each arrow. */
function describeCycles(graph: Graph): string[] {
  return tangles(graph).map((component) => {
    const nodes = [...component].sort();
    const cycle = cycleThrough(graph, nodes[0], new Set(component));
    const arrows = cycle.map((v, i) => graph.get(v)!.get(cycle[(i + 1) % cycle.length])!.join(", "));
    const others = nodes.length > cycle.length ? ` (tangled with it: ${nodes.filter((n) => !cycle.includes(n)).join(", ")})` : "";
    return `${[...cycle, cycle[0]].join(" → ")}: ${arrows.join("; ")}${others}`;
  });
}

const RULES: Array<{ layer: string; never: string[]; why: string }> = [
  { layer: "game/", never: ["*"], why: "the rules are pure: nothing outside src/game" },
  { layer: "protocol/", never: ["auth/", "context", "db/", "http/", "rooms/", "shared/", "stores/"], why: "the protocol is importable by clients: game constants and types only" },
  { layer: "auth/", never: ["context", "app", "server", "http/", "rooms/"], why: "the context is built from auth/, so auth/ names only what it uses" },
  {
    layer: "auth/",
    never: ["workspace/"],
    why: "workspace/ builds on auth/ (its password hashing); auth/ serves game accounts and workspace users alike, so the writer that ends a workspace user's sessions (workspace/users.ts) is called by the workspace route, which then tells the session registry",
  },
  {
    layer: "workspace/",
    never: ["context", "app", "server", "http/", "rooms/", "admin/"],
    why: "the workspace platform's rules and writers: its routes and the admin command call it, never the other way",
  },
  { layer: "stores/", never: ["context", "app", "server", "http/", "rooms/", "auth/"], why: "stores write tables; callers hand them a client" },
  {
    layer: "http/",
    never: ["rooms/"],
    why: "routes and rooms are siblings that server.ts composes: routes reach live rooms through shared/roomCalls.ts and the matchmaker, and the room names GET / lists are handed in by server.ts",
  },
  {
    layer: "backup/",
    never: ["context", "app", "server", "http/", "rooms/", "admin/", "stores/"],
    why: "backups copy whole databases through a database handle; the admin command (and a running server through it) calls them, never the other way",
  },
  { layer: "rooms/", never: ["http/"], why: "rooms and routes are siblings that server.ts composes; what both need lives below them (auth/, stores/, shared/)" },
  { layer: "rooms/kit/", never: ["rooms/boss/", "rooms/pvp/", "rooms/slitherrush/", "rooms/modes/"], why: "the kit serves every room and knows none" },
];

describe("layers point one way", () => {
  const files = modules(SRC).map((f) => ({ path: relative(SRC, f), imports: importsOf(f) }));
  const moduleGraph: Graph = new Map(files.map((f) => [f.path.replace(/\.ts$/, ""), new Map<string, string[]>()]));
  const layerGraph: Graph = new Map([...moduleGraph.keys()].map((m) => [layerOf(m), new Map<string, string[]>()]));
  for (const f of files) {
    const from = f.path.replace(/\.ts$/, "");
    for (const to of f.imports.filter((target) => moduleGraph.has(target))) {
      moduleGraph.get(from)!.set(to, [`${f.path} → ${to}.ts`]);
      if (layerOf(from) === layerOf(to)) continue;
      const arrows = layerGraph.get(layerOf(from))!;
      arrows.set(layerOf(to), [...(arrows.get(layerOf(to)) ?? []), `${f.path} → ${to}.ts`]);
    }
  }

  it("finds the modules and their imports", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.find((f) => f.path === "context.ts")?.imports).toContain("auth/tokens");
    expect(files.find((f) => f.path === "admin/commands.ts")?.imports).toContain("auth/sessions"); // `import type`
  });

  it("finds a cycle, and names the imports that make it", () => {
    const graph: Graph = new Map([
      ["a", new Map([["b", ["a.ts → b.ts"]]])],
      ["b", new Map([["c", ["b.ts → c.ts"]], ["a", ["b.ts → a.ts"]]])],
      ["c", new Map([["a", ["c.ts → a.ts"]]])],
      ["d", new Map([["a", ["d.ts → a.ts"]]])],
    ]);
    expect(describeCycles(graph)).toEqual(["a → b → a: a.ts → b.ts; b.ts → a.ts (tangled with it: c)"]);
    graph.get("b")!.delete("a");
    graph.get("c")!.delete("a");
    expect(describeCycles(graph)).toEqual([]);
  });

  it("no module imports itself back through others", () => {
    expect(describeCycles(moduleGraph), "import cycles between modules of src/").toEqual([]);
  });

  it("no layer imports itself back through others (each arrow: the imports that draw it)", () => {
    expect(describeCycles(layerGraph), "import cycles between layers of src/").toEqual([]);
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
