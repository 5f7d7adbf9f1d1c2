// SlitherRush parties when their arena's process stops (server_draining): every member of a moving
// party joins again with its code at the same instant, as the client of docs/messages.md does, and
// the party meets again in one arena (one member opens it, the others join it). One process, its
// memory presence; the same race across two processes on Redis is in scaleout.test.ts. Also: the
// arena writes its party codes again when Redis comes back (empty).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchMaker } from "@colyseus/core";
import type { Client } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually } from "../helpers/boss.js";
import { retryLikeTheDocs, serverArena, slitherPlayer, type SlitherPlayer } from "../helpers/slitherrush.js";
import { PARTY_MOVING, partyKey } from "../../src/rooms/slitherrush/matchmaking.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());


const join = (sdk: Client, options: Record<string, unknown>) => slitherPlayer(retryLikeTheDocs(() => sdk.joinOrCreate("slitherrush", options)));

/** `parties` parties of `size` in one arena: their members, party by party (leader first). */
async function partiesInOneArena(parties: number, size: number): Promise<{ code: string; members: SlitherPlayer[] }[]> {
  const made = [];
  for (let p = 0; p < parties; p++) {
    const leader = await join(t.sdk(), { username: `lead${p}`, party: "create" });
    const code: string = leader.joined.party_code;
    const members = [leader];
    for (let m = 1; m < size; m++) members.push(await join(t.sdk(), { username: `p${p}m${m}`, party: code }));
    made.push({ code, members });
  }
  return made;
}

describe("a moving party", () => {
  it("four parties of three on a stopping arena all meet again, each in one arena, joining all at once", { timeout: 60_000 }, async () => {
    const parties = await partiesInOneArena(4, 3);
    const arenaId = parties[0].members[0].room.roomId;
    expect(parties.flatMap((p) => p.members).every((m) => m.room.roomId === arenaId)).toBe(true);

    // The process stops: Colyseus takes the arena out of matchmaking, then its onBeforeShutdown runs.
    const stopping = serverArena(arenaId);
    await stopping.lock();
    void stopping.onBeforeShutdown();
    const everyone = parties.flatMap((p) => p.members);
    await Promise.all(everyone.map((m) => m.log.waitFor("server_draining")));
    for (const { code } of parties) expect(await matchMaker.presence.get(partyKey(code))).toBe(PARTY_MOVING);

    // Every member of every party joins again at the same instant, with its party's code.
    const moved = await Promise.all(parties.map(({ code }) => Promise.all([0, 1, 2].map((m) => join(t.sdk(), { username: `again${m}`, party: code })))));
    for (const [i, { code }] of parties.entries()) {
      const members = moved[i];
      expect(new Set(members.map((m) => m.room.roomId)).size).toBe(1);
      expect(members[0].room.roomId).not.toBe(arenaId);
      expect(members.map((m) => m.joined.party.code)).toEqual([code, code, code]);
      // One member opened it again and leads it; the code names its new arena.
      expect(members.filter((m) => m.joined.party.leader)).toHaveLength(1);
      expect(await matchMaker.presence.get(partyKey(code))).toBe(members[0].room.roomId);
      expect(serverArena(members[0].room.roomId).arena.players.size).toBeGreaterThanOrEqual(3);
    }
    await Promise.all(moved.flat().map((m) => m.room.leave()));
    await eventually(async () => (await matchMaker.query({ name: "slitherrush" })).length === 0, "every arena to close", 10_000);
  });

  it("writes its party codes again when Redis comes back (empty)", async () => {
    const [{ code, members }] = await partiesInOneArena(1, 1);
    const arenaId = members[0].room.roomId;
    expect(await matchMaker.presence.get(partyKey(code))).toBe(arenaId);
    // Redis goes down and comes back without its data.
    t.app.ctx.dependencies.failed("redis", new Error("connect ECONNREFUSED"));
    await matchMaker.presence.del(partyKey(code));
    t.app.ctx.dependencies.ok("redis");
    await eventually(async () => (await matchMaker.presence.get(partyKey(code))) === arenaId, "the party code written again");
    const friend = await join(t.sdk(), { party: code });
    expect(friend.room.roomId).toBe(arenaId);
    await Promise.all([members[0].room.leave(), friend.room.leave()]);
  });
});
