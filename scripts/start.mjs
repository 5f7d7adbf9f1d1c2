// `npm start`: compiles src/ to plain JavaScript in .run/ (esbuild, well under a second) and runs it.
// Running the TypeScript through tsx instead would keep a second V8 isolate (its loader thread) and
// its caches alive for the life of the server, some 25 MB; `npm run dev` keeps tsx for its watch
// mode. The Node flags that matter for memory are in package.json's "start" script.
import { readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildSync } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, ".run");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [relative(root, path)] : [];
  });
}

rmSync(out, { recursive: true, force: true });
// One file in, one file out, same layout as src/ (paths relative to the sources keep working).
buildSync({
  absWorkingDir: root,
  entryPoints: sources(join(root, "src")),
  outdir: out,
  outbase: "src",
  format: "esm",
  platform: "node",
  target: "node22",
  logLevel: "warning",
});
await import(pathToFileURL(join(out, "index.js")).href);
