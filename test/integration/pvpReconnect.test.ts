// PvP and dropped connections, with a 3 s reconnection window (a subclass of the room, so the test
// does not wait the production 20 s): a battle waits for a dropped player, continues when it comes
// back, and is a forfeit when it does not.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defineRoom } from "@colyseus/core";
import { patchedUntil } from "../helpers/waits.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually } from "../helpers/boss.js";
import { leaveAll, nextMessage, pair, quickPlay, startBattle } from "../helpers/pvp.js";
import { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";

const WINDOW_SECONDS = 3;

class QuickReconnectPvpRoom extends PvpRoom {
  protected reconnectSeconds = WINDOW_SECONDS;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { rooms: { pvp: defineRoom(QuickReconnectPvpRoom).sortBy({ createdAt: 1 }) } });
});
afterEach(() => leaveAll());
afterAll(() => t?.stop());

describe("a dropped connection during a battle", () => {
  it("pauses the battle; coming back within the window resumes it where it stood", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    b.room.reconnection.minUptime = 0;
    // The SDK retries after 100 ms by default: on a busy machine it was back before the pause was
    // checked. 1.5 s stays well inside the 3 s window.
    b.room.reconnection.minDelay = 1_500;
    const dropped = nextMessage(a, "pvp_opponent_disconnected");
    const back = new Promise<void>((resolve) => b.room.onReconnect(() => resolve()));
    a.room.send("pvp_shoot", { dx: 1, dy: 0 });
    await eventually(() => server.arena.bullets.length === 1, "a bullet in flight");
    // A network drop: the server side of the socket dies without a close frame (the client sees 1006).
    (server.clients.getById(b.sid)!.ref as unknown as { terminate(): void }).terminate();
    expect(await dropped).toEqual({ sid: b.sid, username: expect.any(String), reconnect_seconds: WINDOW_SECONDS });
    expect(server.arena.paused()).toBe(true);
    const frozenAt = server.arena.bullets[0]?.x;
    a.room.send("pvp_shoot", { dx: 1, dy: 0 });
    expect(await nextMessage(a, "error")).toMatchObject({ code: "battle_paused" });
    await patchedUntil(a.room, () => a.room.state.players.get(b.sid)?.connected === false, "disconnected in the state");
    expect(server.arena.bullets[0]?.x).toBe(frozenAt);

    const returned = nextMessage(a, "pvp_opponent_reconnected");
    await back;
    expect(await returned).toMatchObject({ sid: b.sid });
    expect(b.room.sessionId).toBe(b.sid);
    expect((await b.log.waitFor("pvp_room_state", (s) => s.phase === "battle")).self).toMatchObject({ sid: b.sid, lives: 5 });
    // The frozen bullet flies on and lands.
    expect(await nextMessage(a, "pvp_player_hit")).toEqual({ target: b.sid, lives: 4, shooter: a.sid });
    expect(a.log.all("pvp_battle_end")).toEqual([]);
  });

  it("is a forfeit when the connection does not come back within the window; the account's loss is stored", async () => {
    const stayer = await accountWithBullets(t, 20);
    const dropper = await accountWithBullets(t, 20);
    const { a, b, server } = await pair(t, [stayer.cookie, dropper.cookie], [{}, {}]);
    const { matchId } = await startBattle(a, b);
    b.room.reconnection.enabled = false;
    const [dropped, end, left] = [nextMessage(a, "pvp_opponent_disconnected"), nextMessage(a, "pvp_battle_end", 15_000), nextMessage(a, "pvp_opponent_left", 15_000)];
    await b.room.leave(false); // closes without the consented code: the server holds the seat
    await dropped;
    // While the seat waits, the account cannot sit anywhere else.
    const elsewhere = await t.sdk(dropper.cookie).create("pvp", {}).catch((e) => e);
    expect(elsewhere.code).toBe(409);
    expect(await end).toMatchObject({ winner: a.sid, loser: b.sid, reason: "forfeit" });
    expect(await left).toMatchObject({ sid: b.sid, reason: "disconnected", forfeit: true });
    expect(server.arena.players.size).toBe(1);
    const row = await eventually(() => t.prisma.pvpResult.findUnique({ where: { matchId_userId: { matchId, userId: dropper.user.id } } }), "the dropper's row");
    expect(row).toMatchObject({ outcome: "loss", reason: "forfeit" });
    expect((await t.http({ cookie: dropper.cookie }).get("/api/pvp/stats")).body).toMatchObject({ forfeits: 1 });
  });

  it("after a forfeit by drop, a player waiting in a newer room is sent to the winner", async () => {
    const { a, b } = await pair(t);
    const waiting = await quickPlay(t);
    expect(waiting.room.roomId).not.toBe(a.room.roomId);
    await startBattle(a, b);
    b.room.reconnection.enabled = false;
    const [end, requeue] = [nextMessage(a, "pvp_battle_end", 15_000), nextMessage(waiting, "pvp_requeue", 15_000)];
    await b.room.leave(false);
    expect(await end).toMatchObject({ winner: a.sid, reason: "forfeit" });
    await requeue;
    await eventually(() => waiting.moves === 1 && waiting.room.connection.isOpen, "the waiting player followed pvp_requeue");
    expect(waiting.room.roomId).toBe(a.room.roomId);
  });
});
