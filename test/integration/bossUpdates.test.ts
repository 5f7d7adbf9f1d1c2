// The boss room's `updates` join option: a client reads the spec's messages, the synchronized
// state, or (saying nothing) both. What a client opted out of never reaches it; the rest is as
// for everyone. Ordering on one connection is what makes "never" checkable: a message sent after
// the frame in question arrives after it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MatchMakeError } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually, joined, serverBossRoom } from "../helpers/boss.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const quietly = (roomId: string) => Object.assign(serverBossRoom(roomId).battle.tuning, { bossMoves: false, bossAttacks: false, powerupSpawns: false });

async function room() {
  const mover = await joined(t.joinNewRoom("boss", { bullets: 20 }));
  quietly(mover.room.roomId);
  const join = (options: Record<string, unknown>) => joined(t.sdk().joinById(mover.room.roomId, { bullets: 20, ...options }));
  return { mover, join };
}

/** Puts a player at (x, y) on the server, so the moves below are short and accepted as sent. */
function place(roomId: string, sid: string, x: number, y: number) {
  const p = serverBossRoom(roomId).battle.players.get(sid)!;
  p.x = x;
  p.y = y;
}

const xOf = (r: { room: { state: any } }, sid: string): number | undefined => r.room.state?.players?.get(sid)?.x;

describe("boss join option `updates`", () => {
  it('"messages": positions as boss_player_position, no state patches', async () => {
    const { mover, join } = await room();
    const both = await join({});
    const messages = await join({ updates: "messages" });
    const sid = mover.room.sessionId;
    await eventually(() => xOf(messages, sid) !== undefined, "the full state at join");
    const spawnX = xOf(messages, sid);
    // Far apart, so no move is pushed aside by another player (they keep 70 px apart).
    place(mover.room.roomId, sid, 290, 420);
    place(mover.room.roomId, both.room.sessionId, 100, 550);
    place(mover.room.roomId, messages.room.sessionId, 1000, 550);

    mover.room.send("boss_player_move", { x: 300, y: 420 });
    expect(await messages.log.waitFor("boss_player_position")).toEqual({ sid, x: 300, y: 420 });
    await eventually(() => xOf(both, sid) === 300, "the patch at the client reading both");
    // A later message to the same connection arrives after any patch sent to it before.
    mover.room.send("boss_player_move", { x: 320, y: 420 });
    await messages.log.waitFor("boss_player_position", (p) => p.x === 320);
    expect(xOf(messages, sid)).toBe(spawnX); // what the full state at join said
    expect(await both.log.waitFor("boss_player_position", (p) => p.x === 320)).toEqual({ sid, x: 320, y: 420 });
    await Promise.all([mover, both, messages].map((c) => c.room.leave()));
  });

  it('"state": positions in the state, no boss_player_position or boss_self_position', async () => {
    const { mover, join } = await room();
    const state = await join({ updates: "state" });
    const both = await join({});
    const sid = mover.room.sessionId;
    place(mover.room.roomId, sid, 290, 420);
    place(mover.room.roomId, state.room.sessionId, 690, 500);
    place(mover.room.roomId, both.room.sessionId, 100, 550);

    mover.room.send("boss_player_move", { x: 300, y: 420 });
    expect(await both.log.waitFor("boss_player_position")).toEqual({ sid, x: 300, y: 420 });
    await eventually(() => xOf(state, sid) === 300, "the patch at the state reader");
    expect(state.log.all("boss_player_position")).toEqual([]);

    // Its own moves: the state shows them, no boss_self_position comes back.
    state.room.send("boss_player_move", { x: 700, y: 500 });
    expect(await mover.log.waitFor("boss_player_position", (p) => p.sid === state.room.sessionId)).toEqual({ sid: state.room.sessionId, x: 700, y: 500 });
    await eventually(() => xOf(state, state.room.sessionId) === 700, "its own position in the state");
    expect(state.log.all("boss_self_position")).toEqual([]);
    expect(mover.log.all("boss_self_position")).toEqual([{ x: 300, y: 420 }]); // the default still gets it
    await Promise.all([mover, both, state].map((c) => c.room.leave()));
  });

  it("refuses an unknown channel at join", async () => {
    const refused = await t.joinNewRoom("boss", { bullets: 20, updates: "telepathy" }).catch((e) => e);
    expect(refused).toBeInstanceOf(MatchMakeError);
    expect(refused.code).toBe(400);
    expect(refused.message).toMatch(/updates/);
  });
});
