// Issue 10: the client protocol is importable from outside this repository. `npm run build:protocol`
// builds src/protocol into dist/protocol (JavaScript + .d.ts), exposed as
// `snakes-game-backend/protocol` through package.json "exports". A consumer in another folder (the
// package linked into its node_modules, as `npm install` would put it) imports it from plain Node,
// and a small client type-checks against its declarations with no server code and no Node types.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { projectRoot } from "../helpers/process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let consumer: string;
const run = (args: string[], cwd: string) => spawnSync(process.execPath, args, { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" } });

beforeAll(() => {
  const built = run(["scripts/build-protocol.mjs"], projectRoot);
  expect(built.status, built.stderr + built.stdout).toBe(0);
  // Another project: the package in its node_modules (a link, as npm link / a workspace would do).
  consumer = mkdtempSync(join(tmpdir(), "snakes-protocol-consumer-"));
  mkdirSync(join(consumer, "node_modules/@colyseus"), { recursive: true });
  symlinkSync(projectRoot, join(consumer, "node_modules/snakes-game-backend"), "dir");
  symlinkSync(join(projectRoot, "node_modules/@colyseus/sdk"), join(consumer, "node_modules/@colyseus/sdk"), "dir");
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "a-game-client", private: true, type: "module" }));
});

describe("snakes-game-backend/protocol", () => {
  it("is one ES module whose only imports are zod and @colyseus/schema", () => {
    const js = readFileSync(join(projectRoot, "dist/protocol/index.js"), "utf8");
    const imports = [...js.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(new Set(imports)).toEqual(new Set(["zod", "@colyseus/schema"]));
    expect(js).not.toMatch(/prisma|express|@colyseus\/core|node:/);
  });

  it("imports from plain Node in another project: names, schemas, state classes, the snapshot decoder", () => {
    writeFileSync(
      join(consumer, "check.mjs"),
      `import * as protocol from "snakes-game-backend/protocol";
const { BOSS_ROOM, PVP_ROOM, SLITHERRUSH_ROOM, bossInbound, ErrorCodes, BossRoomState } = protocol;
const move = bossInbound.boss_player_move.safeParse({ x: 10, y: 20 });
const bad = bossInbound.boss_player_move.safeParse({ x: "10" });
console.log(JSON.stringify({
  rooms: [BOSS_ROOM, PVP_ROOM, SLITHERRUSH_ROOM],
  move: move.success, bad: bad.success,
  rateLimited: ErrorCodes.rateLimited,
  state: typeof new BossRoomState(),
  exports: Object.keys(protocol).length,
}));`,
    );
    const res = run(["check.mjs"], consumer);
    expect(res.status, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ rooms: ["boss", "pvp", "slitherrush"], move: true, bad: false, rateLimited: "rate_limited", state: "object" });
    expect(out.exports).toBeGreaterThan(40);
  });

  it("ships the SlitherRush snapshot test vectors, and the shipped decoder passes them", () => {
    writeFileSync(
      join(consumer, "vectors.mjs"),
      `import { createRequire } from "node:module";
import { SlitherRushWorld } from "snakes-game-backend/protocol";
const file = createRequire(import.meta.url)("snakes-game-backend/protocol/slitherrush-snapshot-vectors.json");
let frames = 0;
for (const v of file.vectors) {
  const world = new SlitherRushWorld();
  for (const f of v.frames) {
    const snap = world.apply(Uint8Array.from(Buffer.from(f.hex, "hex")));
    if (JSON.stringify(snap.tick) !== JSON.stringify(f.decoded.tick)) throw new Error(v.name);
    frames++;
  }
}
console.log(JSON.stringify({ version: file.snapshot_version, frames, malformed: file.malformed.length }));`,
    );
    const res = run(["vectors.mjs"], consumer);
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ version: 1, malformed: 7 });
    expect(JSON.parse(res.stdout).frames).toBeGreaterThan(20);
  });

  it("type-checks a small client against its declarations, and catches a misspelt message or payload", () => {
    writeFileSync(
      join(consumer, "client.ts"),
      `import { Client } from "@colyseus/sdk";
import { BOSS_ROOM, type BossRoomType, type BossOutbound, type PvpRoomType, type SlitherRushOutbound } from "snakes-game-backend/protocol";

export async function play(client: Client): Promise<void> {
  const room = await client.joinOrCreate<BossRoomType>(BOSS_ROOM, { character: "wizard" });
  room.send("boss_player_move", { x: 100, y: 300 });
  room.onMessage("boss_player_position", (p: BossOutbound["boss_player_position"]) => console.log(p.sid, p.x.toFixed(0), p.y));
  room.onMessage("boss_health_update", (h) => console.log(h.bossHealth / h.maxBossHealth));
  const health: number = room.state.boss_health;
  // @ts-expect-error: no such message
  room.send("boss_player_teleport", { x: 1, y: 1 });
  // @ts-expect-error: x must be a number
  room.send("boss_player_move", { x: "100", y: 300 });
  const duel = await client.joinOrCreate<PvpRoomType>("pvp");
  duel.onMessage("error", (e) => console.log(e.code, e.message, health));
  // A stopping server: matchmake again after retry_after_ms (every room's protocol has the message).
  duel.onMessage("server_draining", (d) => setTimeout(() => void client.joinOrCreate<PvpRoomType>("pvp"), d.retry_after_ms));
}

export const leaderboard = (u: SlitherRushOutbound["slitherrush_leaderboard_update"]) => u;
`,
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, lib: ["ES2022", "DOM"], types: [] }, files: ["client.ts"] }),
    );
    const tsc = run([join(projectRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], consumer);
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  });

  it("every TypeScript sample in the docs that imports the package type-checks against it, as a client outside the checkout would compile it", () => {
    // A sample's free names (what the text around it supplies) are declared; nothing else is.
    const preamble = "declare const username: string;\ndeclare const password: string;\ndeclare function draw(...args: unknown[]): void;\n";
    const docs = ["README.md", ...readdirSync(join(projectRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const files: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(projectRoot, doc), "utf8");
      for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
        if (!m[1].includes('from "snakes-game-backend/protocol"')) continue;
        const line = text.slice(0, m.index).split("\n").length;
        const file = `sample-${doc.replace(/[/.]/g, "_")}-${line}.ts`;
        writeFileSync(join(consumer, file), `${preamble}${m[1]}\nexport {};\n`);
        files.push(file);
      }
    }
    // docs/messages.md (3), pvp.md, slitherrush.md, play-client.md at least.
    expect(files.length).toBeGreaterThanOrEqual(6);
    writeFileSync(
      join(consumer, "tsconfig.samples.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, lib: ["ES2022", "DOM"], types: [] }, files }),
    );
    const tsc = run([join(projectRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.samples.json"], consumer);
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  });
});
