// `npm start`: compiles src/ to plain JavaScript in .run/ (esbuild, well under a second) and runs it.
// Running the TypeScript through tsx instead would keep a second V8 isolate (its loader thread) and
// its caches alive for the life of the server, some 25 MB; `npm run dev` keeps tsx for its watch
// mode. The Node flags that matter for memory are in package.json's "start" script.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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

// One file in, one file out, same layout as src/ (paths relative to the sources keep working).
const { outputFiles } = buildSync({
  absWorkingDir: root,
  entryPoints: sources(join(root, "src")),
  outdir: out,
  outbase: "src",
  format: "esm",
  platform: "node",
  target: "node22",
  logLevel: "warning",
  write: false,
});
// Several starts may share this checkout at once (two processes of a scale-out on one machine, the
// test suites' servers): nothing is deleted or rewritten under one that is loading. A file is
// written only when its content changed, through a temporary file renamed into place; the output of
// sources that no longer exist goes.
const built = new Set();
for (const file of outputFiles) {
  built.add(file.path);
  let unchanged = false;
  try {
    unchanged = readFileSync(file.path).equals(file.contents);
  } catch {
    // not built yet
  }
  if (unchanged) continue;
  mkdirSync(dirname(file.path), { recursive: true });
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents);
  renameSync(tmp, file.path);
}
const outputs = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? outputs(join(dir, entry.name)) : [join(dir, entry.name)]));
for (const path of outputs(out)) if (!built.has(path) && !path.endsWith(".tmp")) rmSync(path, { force: true });
await import(pathToFileURL(join(out, "index.js")).href);
