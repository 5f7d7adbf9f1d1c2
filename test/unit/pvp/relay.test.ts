// The duel's relay (src/rooms/pvp/relay.ts): the arena's events as messages in order, a finished
// duel recorded for its accounts only, and the listing's phase set once per change, never while
// the room closes. A real arena; the room's parts are fakes.
import { describe, expect, it } from "vitest";
import { seededRng } from "../../../src/game/rng.js";
import { PvpArena } from "../../../src/game/pvp/simulation.js";
import { DuelRelay, type DuelRoom } from "../../../src/rooms/pvp/relay.js";

const init = (username: string) => ({ username, character: "knight", bullets: 30 });

function duel(accounts: Record<string, number> = {}) {
  const arena = new PvpArena({ rng: seededRng(7) });
  const sent: Array<[string, unknown]> = [];
  const listed: string[] = [];
  const records: unknown[] = [];
  const warnings: string[] = [];
  let closing = false;
  let listingFails = false;
  const room: DuelRoom = {
    roomId: "D1",
    arena,
    seats: {
      get: (sid: string) => ({ identity: { userId: accounts[sid] ?? null, guest: !(sid in accounts) }, data: { tabAway: false } }),
      record: async (r: unknown) => void records.push(r),
    } as unknown as DuelRoom["seats"],
    factsOf: (sid) => ({ guest: !(sid in accounts), away: false }),
    log: { info: () => {}, warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as DuelRoom["log"],
    client: () => undefined,
    broadcast: (type, payload) => void sent.push([type, payload]),
    list: async ({ phase }) => {
      if (listingFails) throw new Error("driver down");
      listed.push(phase);
    },
    closing: () => closing,
  };
  const relay = new DuelRelay(room);
  return { arena, relay, sent, listed, records, warnings, close: () => (closing = true), failListing: () => (listingFails = true) };
}

describe("DuelRelay", () => {
  it("relays the arena's events in order and lists each new phase once", () => {
    const { arena, relay, sent, listed } = duel();
    arena.join("a", init("alice"));
    const joined = arena.join("b", init("bob"));
    if (!joined.ok) throw new Error(joined.error);
    relay.events(joined.events);
    expect(sent).toEqual([["pvp_match_ready", expect.objectContaining({ playerCount: 2, player1: expect.objectContaining({ username: "alice" }) })]]);
    expect(listed).toEqual(["ready_check"]);
    arena.ready("a");
    const started = arena.ready("b");
    if (!started.ok) throw new Error(started.error);
    relay.events(started.events);
    relay.listPhase();
    expect(sent.map(([type]) => type)).toEqual(["pvp_match_ready", "pvp_battle_start"]);
    expect(sent[1][1]).toMatchObject({ message: "Battle starting!", player1: { username: "alice" }, player2: { username: "bob" } });
    expect(listed).toEqual(["ready_check", "battle"]);
  });

  it("tells both players a duel ended and records it for its accounts only", async () => {
    const { arena, relay, sent, records } = duel({ a: 11 });
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    arena.ready("a");
    arena.ready("b");
    relay.events(arena.leave("b"));
    expect(sent.map(([type]) => type)).toEqual(["pvp_battle_end"]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ roomId: "D1", accounts: [{ userId: 11, outcome: "win", opponentName: "bob", opponentUserId: null }] });
  });

  it("writes nothing for a duel of guests, and leaves the listing alone once the room closes", async () => {
    const { arena, relay, records, listed, close } = duel();
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    close();
    arena.ready("a");
    const started = arena.ready("b");
    if (!started.ok) throw new Error(started.error);
    relay.events(started.events);
    relay.listPhase();
    relay.events(arena.leave("b"));
    expect(records).toEqual([]);
    expect(listed).toEqual([]);
  });

  it("logs a listing it could not update instead of failing", async () => {
    const { arena, relay, warnings, failListing } = duel();
    failListing();
    arena.join("a", init("alice"));
    arena.join("b", init("bob"));
    relay.listPhase();
    await new Promise((resolve) => setImmediate(resolve)); // the failed update's catch runs
    expect(warnings).toEqual(["could not update the room listing"]);
  });
});
