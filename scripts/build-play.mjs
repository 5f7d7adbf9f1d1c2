// Builds the /play reference web client (web/play) with esbuild into web/play/dist.
// Runs on `npm install` (postinstall), `npm run build`, `npm run build:web`, and from the server at
// start-up when the bundle is missing or older than its sources (src/http/playClient.ts).
// Files are written under temporary names and renamed, so a server reading the folder while a
// parallel build runs never serves half a file.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const PLAY_SOURCE_DIR = join(root, "web/play");
export const PLAY_OUT_DIR = join(root, "web/play/dist");
/** Everything the bundle is made of: the client, and the protocol and game constants it imports. */
const SOURCE_DIRS = [PLAY_SOURCE_DIR, join(root, "src/protocol"), join(root, "src/game")];
const STATIC_FILES = ["index.html", "style.css"];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "dist" || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when the bundle is missing or a source file changed after it was built. */
export function playClientIsStale() {
  let built;
  try {
    built = statSync(join(PLAY_OUT_DIR, "app.js")).mtimeMs;
    for (const f of STATIC_FILES) built = Math.min(built, statSync(join(PLAY_OUT_DIR, f)).mtimeMs);
  } catch {
    return true;
  }
  return SOURCE_DIRS.some((d) => newestMtime(d) > built);
}

function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/**
 * The protocol modules hold the server's zod schemas beside the message names; the client needs
 * only the names and types, so zod (~440 KB) is replaced by an inert stand-in (web/play/src/zodStandIn.ts).
 */
const zodStandIn = {
  name: "zod-stand-in",
  setup(build) {
    build.onResolve({ filter: /^zod(\/.*)?$/ }, () => ({ path: join(PLAY_SOURCE_DIR, "src/zodStandIn.ts") }));
  },
};

/**
 * The bundle in memory (app.js and its source map), without writing it: the build below, and the
 * test that checks the size docs/play-client.md gives (test/unit/docFigures.test.ts). `standIn:
 * false` keeps the real zod, to measure what the stand-in saves.
 */
export async function bundlePlayClient({ minify = true, standIn = true } = {}) {
  const esbuild = await import("esbuild");
  return esbuild.build({
    entryPoints: [join(PLAY_SOURCE_DIR, "src/main.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    minify,
    sourcemap: "linked",
    outfile: join(PLAY_OUT_DIR, "app.js"),
    write: false,
    logLevel: "silent",
    legalComments: "none",
    plugins: standIn ? [zodStandIn] : [],
  });
}

/** Bundles web/play/src/main.ts (+ source map) and copies the static files. */
export async function buildPlayClient({ minify = true } = {}) {
  const result = await bundlePlayClient({ minify });
  for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
  for (const f of STATIC_FILES) writeAtomically(join(PLAY_OUT_DIR, f), readFileSync(join(PLAY_SOURCE_DIR, f)));
  return { outDir: PLAY_OUT_DIR, bytes: result.outputFiles.find((f) => f.path.endsWith(".js"))?.contents.length ?? 0 };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  buildPlayClient().then(
    ({ outDir, bytes }) => console.log(`built the /play client into ${outDir} (${Math.round(bytes / 1024)} KiB, ${Math.round(performance.now() - started)} ms)`),
    (err) => {
      console.error(`could not build the /play client: ${err.message}`);
      process.exit(1);
    },
  );
}
