// Builds the client protocol (src/protocol/index.ts) into dist/protocol, for
// `import … from "snakes-game-backend/protocol"` (package.json "exports"):
//   dist/protocol/index.js   one ES module: the protocol and the game constants and decoders it uses
//                            at run time; zod and @colyseus/schema stay imports (dependencies)
//   dist/protocol/types/…    declarations (tsc), no Node or DOM types needed
//   dist/protocol/slitherrush-snapshot-vectors.json   the snapshot test vectors (npm run vectors:slitherrush)
// A client gets nothing server-only: the bundle fails the build if the protocol reaches outside
// src/protocol and src/game, and at run time it pulls in no simulation, only constants and codecs.
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "dist/protocol");
const RUNTIME_PACKAGES = ["zod", "@colyseus/schema"];

rmSync(out, { recursive: true, force: true });
const result = buildSync({
  absWorkingDir: root,
  entryPoints: ["src/protocol/index.ts"],
  outfile: join(out, "index.js"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: RUNTIME_PACKAGES,
  metafile: true,
  logLevel: "warning",
});
const outside = Object.keys(result.metafile.inputs).filter((file) => !/^src\/(protocol|game)\//.test(file));
if (outside.length) {
  console.error(`build-protocol: the client protocol must not import ${outside.join(", ")}`);
  process.exit(1);
}
// The SlitherRush snapshot test vectors, for client authors (docs/slitherrush.md, "Test vectors").
copyFileSync(join(root, "src/protocol/slitherrush-snapshot-vectors.json"), join(out, "slitherrush-snapshot-vectors.json"));
const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.protocol.json"], { cwd: root, stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
console.log(`build-protocol: ${relative(root, out)} (${Object.keys(result.metafile.inputs).length} modules bundled)`);
