// A moving party's opener election (src/rooms/slitherrush/matchmaking.ts, followMovingParty) on
// Colyseus' memory presence: of members racing with the code, exactly one opens the party and the
// others follow it to its arena; an opener that never arrives gives way to another in the next round.
import { describe, expect, it } from "vitest";
import { LocalPresence } from "@colyseus/core";
import { followMovingParty, PARTY_MOVING, partyKey } from "../../../src/rooms/slitherrush/matchmaking.js";

const CODE = "ABCDEFGHJK";

describe("followMovingParty", () => {
  it("elects one opener of many racing members; the others land where it opened the party", async () => {
    const presence = new LocalPresence();
    presence.setex(partyKey(CODE), PARTY_MOVING, 60);
    const members = Array.from({ length: 5 }, () => followMovingParty(presence, CODE, 2000));
    // The opener's join reaches an arena, which publishes the code there.
    await new Promise((r) => setTimeout(r, 20));
    presence.setex(partyKey(CODE), "ARENA2", 60);
    const routes = await Promise.all(members);
    expect(routes.filter((r) => r === PARTY_MOVING)).toHaveLength(1);
    expect(routes.filter((r) => r === "ARENA2")).toHaveLength(4);
  });

  it("elects another opener when the first names no arena in time, and only one", async () => {
    const presence = new LocalPresence();
    presence.setex(partyKey(CODE), PARTY_MOVING, 60);
    expect(await followMovingParty(presence, CODE, 100)).toBe(PARTY_MOVING); // its client never comes
    const waiting = [followMovingParty(presence, CODE, 100), followMovingParty(presence, CODE, 100)];
    // The next round's opener is told first; it opens the party, the other member follows it.
    expect(await Promise.race(waiting)).toBe(PARTY_MOVING);
    presence.setex(partyKey(CODE), "ARENA3", 60);
    expect((await Promise.all(waiting)).sort()).toEqual(["ARENA3", PARTY_MOVING]);
  });

  it("answers 503 when no opener names an arena in three rounds, and null for a party that ended", async () => {
    const presence = new LocalPresence();
    presence.setex(partyKey(CODE), PARTY_MOVING, 60);
    for (let round = 0; round < 3; round++) await followMovingParty(presence, CODE, 50); // three openers that vanish
    await expect(followMovingParty(presence, CODE, 50)).rejects.toMatchObject({ code: 503 });
    const ended = new LocalPresence();
    ended.setex(partyKey(CODE), PARTY_MOVING, 60);
    await followMovingParty(ended, CODE, 1000);
    const follower = followMovingParty(ended, CODE, 1000);
    ended.del(partyKey(CODE));
    expect(await follower).toBeNull();
  });
});
