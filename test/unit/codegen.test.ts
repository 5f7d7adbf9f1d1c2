// The classes a game client generates from the state definitions (docs/clients.md): @colyseus/schema's
// own `schema-codegen` for C# (Unity), Lua (Defold), Haxe and TypeScript. Every generated class must
// refer only to classes the output defines, the TypeScript must compile, and, compiled, describe the
// same wire types as the server's classes (the handshake a client's decoder checks). The C# is compiled
// with Mono's mcs when it is installed. Decoding live frames with them: test/integration/codegenFrames.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { Encoder, Reflection } from "@colyseus/schema";
import { BossLobbyState, BossRoomState } from "../../src/protocol/bossState.js";
import { PvpRoomState } from "../../src/protocol/pvpState.js";
import { SlitherRushState } from "../../src/protocol/slitherrushState.js";
import { NAMESPACE, compileCsharp, compileTs, danglingReferences, findMcs, generate, loadCompiled, scratch, type Language } from "../helpers/codegen.js";

const CLASSES = [
  "BossBoundsState",
  "BossFigureState",
  "BossLobbyMemberState",
  "BossLobbyState",
  "BossPlayerState",
  "BossPowerupState",
  "BossProjectileState",
  "BossRoomState",
  "PvpArenaState",
  "PvpBulletState",
  "PvpPlayerState",
  "PvpRoomState",
  "SlitherRushState",
];
const EXTENSION: Record<Language, string> = { csharp: "cs", lua: "lua", haxe: "hx", ts: "ts" };
// As docs/clients.md runs them: C# and Haxe in a namespace (package), Lua and TypeScript beside the game's code.
const NAMESPACED: Record<Language, boolean> = { csharp: true, haxe: true, lua: false, ts: false };

let work: Awaited<ReturnType<typeof scratch>>;
const outputs = {} as Record<Language, { dir: string; files: string[] }>;
beforeAll(async () => {
  work = await scratch();
  // The four runs at once: each is a Node process parsing the same three files.
  await Promise.all(
    (Object.keys(EXTENSION) as Language[]).map(async (language) => {
      const dir = join(work.dir, language);
      const files = await generate(language, dir, { namespace: NAMESPACED[language] ? NAMESPACE : undefined });
      outputs[language] = { dir, files };
    }),
  );
}, 60_000);
afterAll(() => work?.remove());

describe("schema-codegen over src/protocol/*State.ts", () => {
  it.each(Object.keys(EXTENSION) as Language[])("%s: one file per schema type, no reference to a type it does not define", async (language) => {
    const { dir, files } = outputs[language];
    expect(files).toEqual(CLASSES.map((c) => `${c}.${EXTENSION[language]}`).sort());
    expect(await danglingReferences(language, dir)).toEqual([]);
  });

  it("TypeScript: compiles with tsc and its classes describe the server's wire types exactly", async () => {
    const out = join(work.dir, "ts-build");
    await compileTs(outputs.ts.dir, out);
    const { classes, schema } = loadCompiled(out);
    for (const [name, ServerClass] of Object.entries({ BossRoomState, BossLobbyState, PvpRoomState, SlitherRushState })) {
      // The reflection is what the server sends in the join handshake: field names, types and ids.
      const generated = schema.Reflection.encode(new schema.Encoder(new classes[name]()));
      const server = Reflection.encode(new Encoder(new (ServerClass as new () => any)()));
      expect(Buffer.from(generated).toString("hex"), name).toBe(Buffer.from(server).toString("hex"));
    }
  }, 60_000);

  const mcs = findMcs();
  it.skipIf(!mcs)(
    `C#: compiles with Mono's mcs against a stand-in of the SDK's attribute API${mcs ? "" : " — SKIPPED: mcs is not installed (Debian: apt-get install -y mono-mcs)"}`,
    async () => {
      await compileCsharp(mcs!, outputs.csharp.dir);
    },
    60_000,
  );
});
