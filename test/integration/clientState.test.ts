// What a game client decodes, checked against the server (issue 43, docs/clients.md): live state
// frames of every room with state (boss, boss lobby, PvP, SlitherRush; the mode-select room has
// none) decoded three ways — the JS SDK's reflection, the server's own classes, and the classes
// schema-codegen generates (compiled with tsc) — must agree on every field of every frame; and a boss
// room whose maps of players, powerups and projectiles churn by hundreds of additions and removals
// must give a late joiner and a reconnected client exactly the server's state after every patch.
// (The schema-level property over random event sequences, StateView included: test/unit/stateSync.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Room as ServerRoom } from "@colyseus/core";
import { matchMaker } from "@colyseus/core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { compileTs, generate, loadCompiled, scratch } from "../helpers/codegen.js";
import {
  RecordingClient,
  applyFrame,
  asSent,
  countValues,
  generatedDecoder,
  serverDecoder,
  serverPatchLog,
  type RecordingRoom,
  type StateFrame,
} from "../helpers/stateFrames.js";
import { BossLobbyState, BossRoomState } from "../../src/protocol/bossState.js";
import { PvpRoomState } from "../../src/protocol/pvpState.js";
import { SlitherRushState } from "../../src/protocol/slitherrushState.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import { seededRng } from "../../src/game/rng.js";
import { MatchMakeError } from "@colyseus/sdk";
import { versionResponseSchema } from "../../src/protocol/version.js";

let t: TestApp;
let work: Awaited<ReturnType<typeof scratch>>;
let generated: ReturnType<typeof loadCompiled>;
beforeAll(async () => {
  work = await scratch();
  const [app] = await Promise.all([
    startTestApp(),
    (async () => {
      await generate("ts", join(work.dir, "ts"));
      await compileTs(join(work.dir, "ts"), join(work.dir, "out"));
    })(),
  ]);
  t = app;
  generated = loadCompiled(join(work.dir, "out"));
}, 90_000);
afterAll(async () => {
  await t?.stop();
  await work?.remove();
});

const ROOTS = { BossRoomState, BossLobbyState, PvpRoomState, SlitherRushState } as Record<string, new () => unknown>;
const totals = { frames: 0, values: 0 };

/**
 * Decodes a client's frames with the server's classes and the generated ones; after each frame the
 * two and the SDK's state must be equal, and after each patch also the server's state at that patch.
 */
function checkFrames(rootName: string, frames: StateFrame[], serverLog?: Map<number, unknown>) {
  const ours = serverDecoder(ROOTS[rootName]);
  const theirs = generatedDecoder(generated.schema, generated.classes[rootName]);
  let compared = 0;
  for (const [i, frame] of frames.entries()) {
    applyFrame(ours, frame);
    applyFrame(theirs, frame);
    const decoded = ours.state.toJSON();
    expect(theirs.state.toJSON(), `${rootName} frame ${i}: generated classes`).toEqual(decoded);
    expect(frame.sdkState, `${rootName} frame ${i}: SDK`).toEqual(decoded);
    if (serverLog && !frame.full && frame.sNow !== undefined) {
      expect(serverLog.has(frame.sNow), `${rootName} frame ${i}: a patch the server logged`).toBe(true);
      expect(decoded, `${rootName} frame ${i}: the server's state at that patch`).toEqual(asSent(serverLog.get(frame.sNow)));
    }
    compared += countValues(decoded);
  }
  totals.frames += frames.length;
  totals.values += compared;
  return compared;
}

const recorder = (cookie?: string) => new RecordingClient(t.wsUrl, cookie ? { headers: { cookie } } : undefined);
const serverRoom = <R extends ServerRoom>(roomId: string) => matchMaker.getLocalRoomById(roomId) as R;

describe("generated TypeScript classes decode live frames as the server's classes do", () => {
  it("boss battle: players moving and shooting, the boss attacking", async () => {
    const created = await t.colyseus.createRoom("boss", {});
    const log = serverPatchLog(serverRoom(created.roomId));
    const a = (await recorder().joinById(created.roomId, { bullets: 20 })) as unknown as RecordingRoom;
    const b = (await recorder().joinById(created.roomId, { bullets: 20 })) as unknown as RecordingRoom;
    for (let i = 0; i < 10; i++) {
      a.send("boss_player_move", { x: 300 + i * 5, y: 500 });
      b.send("boss_player_shoot", { dx: 1, dy: -1 });
      await b.framesUntil(b.frames.length + 3);
    }
    await Promise.all([a.leave(), b.leave()]);
    expect(checkFrames("BossRoomState", a.frames, log)).toBeGreaterThan(0);
    checkFrames("BossRoomState", b.frames, log);
  });

  it("boss lobby: members joining and leaving", async () => {
    const a = (await recorder().joinOrCreate("boss_lobby", { username: "Ann" })) as unknown as RecordingRoom;
    const b = (await recorder().joinById(a.roomId, { username: "Ben" })) as unknown as RecordingRoom;
    const c = (await recorder().joinById(a.roomId, { username: "Cy" })) as unknown as RecordingRoom;
    const members = () => Object.keys((a.frames.at(-1)?.sdkState as { members?: object } | undefined)?.members ?? {}).length;
    await a.until(() => members() === 3, "three members");
    await c.leave();
    await a.until(() => members() === 2, "two members");
    await Promise.all([a.leave(), b.leave()]);
    expect(checkFrames("BossLobbyState", a.frames)).toBeGreaterThan(0);
    checkFrames("BossLobbyState", b.frames);
  });

  it("PvP: two duelists readying, moving and shooting", async () => {
    const a = (await recorder().joinOrCreate("pvp", { bullets: 30 })) as unknown as RecordingRoom;
    const log = serverPatchLog(serverRoom(a.roomId));
    const b = (await recorder().joinById(a.roomId, { bullets: 30 })) as unknown as RecordingRoom;
    a.send("pvp_ready", {});
    b.send("pvp_ready", {});
    for (let i = 0; i < 10; i++) {
      a.send("pvp_move", { x: 120 + i * 4, y: 300 });
      a.send("pvp_shoot", { dx: 1, dy: 0 });
      b.send("pvp_move", { x: 680 - i * 4, y: 310 });
      await b.framesUntil(b.frames.length + 3);
    }
    await Promise.all([a.leave(), b.leave()]);
    expect(checkFrames("PvpRoomState", a.frames, log)).toBeGreaterThan(0);
    checkFrames("PvpRoomState", b.frames, log);
  });

  it("SlitherRush: the arena's own state as players join and leave", async () => {
    const a = (await recorder().joinOrCreate("slitherrush", { username: "Sam" })) as unknown as RecordingRoom;
    const b = (await recorder().joinById(a.roomId, { username: "Sue" })) as unknown as RecordingRoom;
    await a.framesUntil(2);
    const before = a.frames.length;
    await b.leave();
    await a.framesUntil(before + 1); // player_count
    await a.leave();
    expect(checkFrames("SlitherRushState", a.frames)).toBeGreaterThan(0);
    checkFrames("SlitherRushState", b.frames);
  });
});

describe("state sync under churn (boss room)", () => {
  it("a late joiner and a reconnected client hold the server's state after every patch", async () => {
    const created = await t.colyseus.createRoom("boss", {});
    const server = serverRoom<BossRoom>(created.roomId);
    const log = serverPatchLog(server);
    const early = (await recorder().joinById(created.roomId, { bullets: 20 })) as unknown as RecordingRoom;
    const rng = seededRng(43);
    const battle = server.battle;
    let next = 1_000_000;
    const churned = { added: 0, removed: 0 };
    const ghosts: string[] = [];
    /** One tick's worth of churn in all three maps. */
    const churn = async (round: number) => {
      for (let i = 0; i < 4; i++) battle.placePowerup();
      for (const id of [...battle.powerups.keys()].slice(0, 3)) battle.powerups.delete(id);
      for (let i = 0; i < 5; i++) {
        battle.projectiles.push({ id: next++, x: 200 + rng() * 700, y: 260 + rng() * 400, vx: rng() * 50, vy: rng() * 50, expiresAt: battle.now + 60_000 });
      }
      const gone = battle.projectiles.splice(0, 4).length;
      const ghost = `ghost-${round}`;
      battle.addPlayer(ghost, { username: `Ghost ${round}`, character: "archer", bullets: 5 });
      ghosts.push(ghost);
      if (ghosts.length > 2) battle.removePlayer(ghosts.shift()!);
      churned.added += 4 + 5 + 1;
      churned.removed += 3 + gone + (round > 1 ? 1 : 0);
      await server.waitForNextSimulationTick();
    };
    for (let round = 0; round < 30; round++) await churn(round);
    const late = (await recorder().joinById(created.roomId, { bullets: 20 })) as unknown as RecordingRoom;
    for (let round = 30; round < 45; round++) await churn(round);
    // A network drop of the early client; it reconnects into its seat while the maps keep churning.
    early.reconnection.minUptime = 0;
    const back = new Promise<void>((resolve) => early.onReconnect(() => resolve()));
    (server.clients.getById(early.sessionId)!.ref as unknown as { terminate(): void }).terminate();
    for (let round = 45; round < 55; round++) await churn(round);
    await back;
    for (let round = 55; round < 70; round++) await churn(round);
    await Promise.all([early.framesUntil(early.frames.length + 2), late.framesUntil(late.frames.length + 2)]);
    await Promise.all([early.leave(), late.leave()]);

    expect(churned.added + churned.removed).toBeGreaterThan(500);
    expect(early.frames.filter((f) => f.full).length, "the early client got the whole state twice: join and rejoin").toBe(2);
    checkFrames("BossRoomState", early.frames, log);
    checkFrames("BossRoomState", late.frames, log);
    console.info(`clientState: ${churned.added} map additions and ${churned.removed} removals; ${totals.frames} frames, ${totals.values} values compared in this file`);
  });
});

describe("SDK versions (docs/clients.md)", () => {
  it("GET /api/version says the protocol, the wire packages and the SDKs that speak it", async () => {
    const res = await t.http().get("/api/version");
    expect(res.status).toBe(200);
    const doc = versionResponseSchema.parse(res.body);
    expect(doc.protocol).toEqual({ colyseus: "0.18", schema: "5.0", slitherrush_snapshot: 1 });
    expect(doc.packages["@colyseus/schema"]).toBe("5.0.34");
    expect(doc.packages["@colyseus/sdk"]).toBe("0.18.4");
    expect(doc.packages["@colyseus/core"]).toMatch(/^0\.18\./);
    expect(doc.sdks.find((s) => s.engine.startsWith("Unity"))).toMatchObject({ sdk: "NuGet Colyseus", versions: "0.18.x" });
    expect(doc.sdks.find((s) => s.engine === "Haxe")).toMatchObject({ versions: "none" });
  });

  const refusal = async (options: Record<string, unknown>) => {
    const err = await recorder()
      .joinOrCreate("boss_lobby", options)
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(MatchMakeError);
    return err as MatchMakeError;
  };

  it("a client declaring an older or newer SDK is refused before it is seated, with the versions that work", async () => {
    const old = await refusal({ username: "Old", sdk_version: "0.17.3" });
    expect(old.code).toBe(400);
    expect(old.message).toContain("SDK 0.17.3 is older than this server's Colyseus protocol 0.18");
    expect(old.message).toContain("Unity / C#: NuGet Colyseus 0.18.x");
    expect(old.message).toContain("@colyseus/sdk 0.18.x");
    const newer = await refusal({ username: "New", sdk_version: "0.19.0-beta.1" });
    expect(newer.message).toContain("SDK 0.19.0-beta.1 is newer than this server's Colyseus protocol 0.18");
    const bad = await refusal({ username: "Bad", sdk_version: 18 });
    expect(bad.message).toContain("sdk_version must be the SDK's version");
    expect((await matchMaker.query({ name: "boss_lobby" })).reduce((n, r) => n + r.clients, 0)).toBe(0);
  });

  it("a client declaring a 0.18 SDK plays in every room", async () => {
    const options = { sdk_version: "0.18.4", username: "Now", bullets: 20 };
    for (const room of ["boss_lobby", "pvp", "slitherrush"]) {
      const joined = await recorder().joinOrCreate(room, options);
      await joined.leave();
    }
    const boss = await t.colyseus.createRoom("boss", {});
    await (await recorder().joinById(boss.roomId, options)).leave();
  });
});
