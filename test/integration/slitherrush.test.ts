// The SlitherRush room over real WebSocket clients (Colyseus SDK) against the real server and
// database: matchmaking and full arenas, parties, snapshot and leaderboard rates, interest
// management, persistence of accounts' results, and bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { rate, serverArena, slitherPlayer, untilCount } from "../helpers/slitherrush.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

describe("joining an arena", () => {
  it("answers slitherrush_joined and sends 15 snapshots and ~2.2 leaderboards a second", async () => {
    const p = await slitherPlayer(t.sdk().joinOrCreate("slitherrush", { username: "solo" }));
    expect(p.joined).toMatchObject({ arena_id: p.room.roomId, player_id: p.sid, role: "player", tick_rate: 30, snapshot_rate: 15 });
    await untilCount(p, () => p.snapshotTimes.length, 36);
    expect(rate(p.snapshotTimes, 5, 35)).toBeGreaterThan(14.5);
    expect(rate(p.snapshotTimes, 5, 35)).toBeLessThan(15.5);
    expect(p.decodeErrors).toEqual([]);
    expect(p.world.self.slot).toBe(p.joined.slot);
    expect([...p.world.snakes.values()].map((s) => s.id)).toEqual([p.sid]);
    await p.room.leave();
  });
});
