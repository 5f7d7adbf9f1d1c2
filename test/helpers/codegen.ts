// What a game client's developer does first (docs/clients.md): run @colyseus/schema's
// `schema-codegen` over the state definitions for their engine, then build the output. This runs
// the package's own bin, finds references to types the output does not define (what breaks the
// C# build, the Lua `require`s and the Haxe/TS imports), compiles the TypeScript output with tsc
// and loads it, and compiles the C# output with Mono's mcs against a stand-in of the attribute API.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const run = promisify(execFile);
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(REPO, "package.json"));

/** The files that define the rooms' synchronized state. */
export const STATE_FILES = ["src/protocol/bossState.ts", "src/protocol/pvpState.ts", "src/protocol/slitherrushState.ts"];
/** The namespace docs/clients.md's command gives the generated classes. */
export const NAMESPACE = "SnakesGame.Schema";
export type Language = "csharp" | "lua" | "haxe" | "ts";

/** `schema-codegen`'s bin, as the package declares it. */
export function codegenBin(): string {
  // The package exports no ./package.json: it is found beside its entry point.
  const entry = require.resolve("@colyseus/schema");
  let pkgPath = dirname(entry);
  while (!existsSync(join(pkgPath, "package.json"))) pkgPath = dirname(pkgPath);
  pkgPath = join(pkgPath, "package.json");
  const pkg = JSON.parse(require("node:fs").readFileSync(pkgPath, "utf8")) as { bin: Record<string, string> };
  return join(dirname(pkgPath), pkg.bin["schema-codegen"]);
}

/** A scratch folder whose node_modules is the project's (the generated code imports @colyseus/schema). */
export async function scratch(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "schema-codegen-"));
  await symlink(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `schema-codegen --<language>` over `files` into `output`; returns the generated files (relative paths). */
export async function generate(language: Language, output: string, options: { files?: string[]; namespace?: string; cwd?: string } = {}) {
  const args = [codegenBin(), ...(options.files ?? STATE_FILES), `--${language}`, "--output", output];
  if (options.namespace) args.push("--namespace", options.namespace);
  await run(process.execPath, args, { cwd: options.cwd ?? REPO });
  return (await listFiles(output)).map((f) => relative(output, f)).sort();
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}

export interface Dangling {
  file: string;
  name: string;
}

// Names each language's output may use without defining them: its own types and the SDK's.
const BUILTINS: Record<Language, Set<string>> = {
  csharp: new Set(["string", "double", "float", "byte", "sbyte", "ushort", "short", "uint", "int", "ulong", "long", "bool", "object"]),
  haxe: new Set(["String", "Int", "Float", "Bool", "Dynamic", "Schema", "MapSchema", "ArraySchema", "SetSchema", "CollectionSchema"]),
  ts: new Set(["string", "number", "boolean", "bigint", "Schema", "MapSchema", "ArraySchema", "SetSchema", "CollectionSchema", "DataChange"]),
  lua: new Set(),
};

/** Every reference in the generated output to a type it neither defines nor gets from the SDK. */
export async function danglingReferences(language: Language, output: string): Promise<Dangling[]> {
  const files = await listFiles(output);
  const sources = new Map<string, string>();
  for (const f of files) sources.set(relative(output, f), await readFile(f, "utf8"));
  const dangling: Dangling[] = [];
  if (language === "lua") {
    // Each `require 'a.b.C'` must be a generated file (a/b/C.lua, from where the program runs: the
    // output folder) or the SDK's; each type a definition uses must be one of the file's requires.
    const modules = new Set([...sources.keys()].filter((f) => f.endsWith(".lua")).map((f) => f.slice(0, -4).split("/").join(".")));
    for (const [file, text] of sources) {
      const locals = new Set<string>();
      for (const m of text.matchAll(/^local (\w+) = require '([^']+)'/gm)) {
        if (m[2].startsWith("colyseus.")) continue;
        if (modules.has(m[2])) locals.add(m[1]);
        else dangling.push({ file, name: m[2] });
      }
      const definition = text.slice(text.indexOf("schema.define("));
      for (const m of definition.matchAll(/= (?:\{ (?:map|array|set|collection) = )?([A-Za-z_]\w*)/g)) {
        if (!locals.has(m[1])) dangling.push({ file, name: m[1] });
      }
    }
    return dangling;
  }
  const defined = new Set<string>();
  for (const text of sources.values()) for (const m of text.matchAll(/\bclass (\w+)/g)) defined.add(m[1]);
  const known = (name: string) => defined.has(name) || BUILTINS[language].has(name);
  for (const [file, text] of sources) {
    const refs: string[] = [];
    if (language === "csharp") {
      // Types are written bare (this namespace) or fully qualified (global::Colyseus.Schema.*: the SDK's).
      const bare = /(?<![\w.:])([A-Za-z_]\w*)(?=[>)\s])/g;
      for (const m of text.matchAll(/typeof\(([^)]*)\)|<([^<>]+)>|public (?!partial)(\S+) \w+ =/g)) {
        const inner = (m[1] ?? m[2] ?? m[3]).replace(/global::[\w.]+/g, "");
        for (const r of `${inner} `.matchAll(bare)) refs.push(r[1]);
      }
    } else if (language === "haxe") {
      for (const m of text.matchAll(/@:type\("\w+", (\w+)\)|: (\w+)(?:<(\w+)>)? =|new (\w+)(?:<(\w+)>)?\(/g)) {
        for (const r of m.slice(1)) if (r) refs.push(r);
      }
    } else {
      const imported = new Set<string>();
      for (const m of text.matchAll(/^import \{([^}]+)\} from '([^']+)'/gm)) {
        const names = m[1].split(",").map((s) => s.trim());
        // An import of a file that was not generated imports nothing.
        if (m[2].startsWith(".") && !sources.has(join(dirname(file), `${m[2]}.ts`))) {
          dangling.push({ file, name: m[2] });
          continue;
        }
        for (const n of names) imported.add(n);
      }
      for (const m of text.matchAll(/@type\(\s*(?:\{ \w+: )?(\w+)|: (\w+)(?:<(\w+)>)? =|new (\w+)(?:<(\w+)>)?\(/g)) {
        // A class is usable in a file that defines or imports it.
        for (const r of m.slice(1)) if (r && /^[A-Z]/.test(r) && !imported.has(r) && !text.includes(`class ${r} `)) refs.push(r);
      }
    }
    for (const name of refs) if (language === "ts" ? !BUILTINS.ts.has(name) : !known(name)) dangling.push({ file, name });
  }
  return dangling;
}

/** Compiles the generated TypeScript with tsc (CommonJS, legacy decorators, as the SDK's docs set it up). */
export async function compileTs(output: string, outDir: string): Promise<void> {
  const tsconfig = join(output, "tsconfig.json");
  await writeFile(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ES2020",
        module: "commonjs",
        moduleResolution: "node10",
        experimentalDecorators: true,
        useDefineForClassFields: false,
        strict: true,
        skipLibCheck: true,
        outDir,
        rootDir: output,
        types: [],
        lib: ["ES2020"],
      },
      include: ["./**/*.ts"],
    }),
  );
  try {
    await run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", tsconfig], { cwd: output });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc failed on the generated TypeScript:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/**
 * The compiled generated classes, loaded with require() from `outDir`, and the CommonJS
 * @colyseus/schema they extend (its Decoder must be the same copy as the classes' Schema).
 */
export function loadCompiled(outDir: string): { classes: Record<string, new () => any>; schema: typeof import("@colyseus/schema") } {
  const req = createRequire(join(outDir, "index.js"));
  const classes: Record<string, new () => any> = {};
  for (const f of require("node:fs").readdirSync(outDir) as string[]) {
    if (!f.endsWith(".js")) continue;
    const name = basename(f, ".js");
    classes[name] = req(join(outDir, f))[name];
  }
  return { classes, schema: req("@colyseus/schema") };
}

/** Where Mono's C# compiler is, if installed (Debian: `apt-get install -y mono-mcs`). */
export function findMcs(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const path = join(dir, "mcs");
    if (dir && existsSync(path)) return path;
  }
  return undefined;
}

// The part of the Colyseus C# SDK's attribute API that generated classes use, written here from the
// generated code's own calls (no SDK code): enough for the compiler to check every name and type.
const CSHARP_STAND_IN = `
namespace Colyseus.Schema {
  public class Schema {}
  public class MapSchema<T> {}
  public class ArraySchema<T> {}
  [System.AttributeUsage(System.AttributeTargets.Field)]
  public class TypeAttribute : System.Attribute {
    public TypeAttribute(int index, string type, System.Type childType = null, string childPrimitiveType = null) {}
  }
}
`;

/** Compiles the generated C# (a library) with mcs against the stand-in; returns the compiler's output. */
export async function compileCsharp(mcs: string, output: string): Promise<string> {
  const work = join(output, "..", "csharp-build");
  await mkdir(work, { recursive: true });
  const standIn = join(work, "ColyseusSchemaStandIn.cs");
  await writeFile(standIn, CSHARP_STAND_IN);
  const sources = (await listFiles(output)).filter((f) => f.endsWith(".cs"));
  try {
    const { stdout, stderr } = await run(mcs, ["-target:library", "-warnaserror+", `-out:${join(work, "Generated.dll")}`, standIn, ...sources]);
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`mcs failed on the generated C#:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}
