import { describe, expect, it } from "vitest";
import { MatchSeats, MemoryLeaseStore, SEAT_CLAIM_RENEW_MS, SEAT_CLAIM_TTL_SECONDS, type SeatHolder } from "../../src/shared/matchSeats.js";
import { RECONNECT_SECONDS } from "../../src/rooms/boss/BossRoom.js";

/** A boss room as a lease holder. */
const h = (roomId: string, roomName = "boss"): SeatHolder => ({ roomName, roomId });

function fixture() {
  let now = 1_000_000;
  const claims = new MatchSeats(new MemoryLeaseStore(() => now));
  return { claims, advance: (ms: number) => (now += ms) };
}

function fixtureWithStore() {
  const store = new MemoryLeaseStore();
  return { claims: new MatchSeats(store), store };
}

describe("MatchSeats (in-process leases)", () => {
  it("gives an account's seat to the first room and names the holder to the others", async () => {
    const { claims } = fixture();
    expect(await claims.claim(7, h("roomA"))).toEqual({ ok: true });
    expect(await claims.claim(7, h("roomB"))).toEqual({ ok: false, holder: h("roomA") });
    expect(await claims.claim(7, h("roomA"))).toEqual({ ok: false, holder: h("roomA") });
    expect(await claims.claim(8, h("roomB"))).toEqual({ ok: true });
  });

  it("one live match per account across modes: a duel is refused while a boss seat is held", async () => {
    const { claims } = fixture();
    expect(await claims.claim(5, h("boss1"))).toEqual({ ok: true });
    expect(await claims.claim(5, h("duel1", "pvp"))).toEqual({ ok: false, holder: h("boss1") });
    expect(await claims.holderOf(5)).toEqual(h("boss1"));
    await claims.release(5, h("boss1"));
    expect(await claims.claim(5, h("duel1", "pvp"))).toEqual({ ok: true });
    expect(await claims.claim(5, h("arena1", "slitherrush"))).toEqual({ ok: false, holder: h("duel1", "pvp") });
  });

  it("two claims racing for one account: exactly one wins", async () => {
    const { claims } = fixture();
    const results = await Promise.all(["r1", "r2", "r3"].map((r) => claims.claim(9, h(r))));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("releaseRooms frees every seat the given rooms hold (a dead process's), and no other", async () => {
    const { claims } = fixture();
    await claims.claim(1, h("dead1"));
    await claims.claim(2, h("dead2", "pvp"));
    await claims.claim(3, h("alive"));
    expect(await claims.releaseRooms([h("dead1"), h("dead2", "pvp"), h("gone")])).toBe(2);
    expect(await claims.holderOf(1)).toBeNull();
    expect(await claims.holderOf(2)).toBeNull();
    expect(await claims.holderOf(3)).toEqual(h("alive"));
    expect(await claims.releaseRooms([])).toBe(0);
  });

  it("release frees the seat, but only for the room that holds it", async () => {
    const { claims } = fixture();
    await claims.claim(7, h("roomA"));
    await claims.release(7, h("roomB"));
    expect(await claims.claim(7, h("roomB"))).toEqual({ ok: false, holder: h("roomA") });
    await claims.release(7, h("roomA"));
    expect(await claims.claim(7, h("roomB"))).toEqual({ ok: true });
  });

  it("a lease no longer renewed (its process died) expires after the TTL; renewals keep it", async () => {
    const { claims, advance } = fixture();
    await claims.claim(1, h("alive"));
    await claims.claim(2, h("crashed"));
    for (let t = 0; t < 4 * SEAT_CLAIM_TTL_SECONDS * 1000; t += SEAT_CLAIM_RENEW_MS) {
      await claims.renew([1, 2], h("alive")); // "alive" does not hold account 2: no renewal for it
      advance(SEAT_CLAIM_RENEW_MS);
    }
    expect(await claims.claim(1, h("other"))).toEqual({ ok: false, holder: h("alive") });
    expect(await claims.claim(2, h("other"))).toEqual({ ok: true });
    // After the last renewal the lease lasts exactly one TTL, however often others try.
    advance(SEAT_CLAIM_TTL_SECONDS * 1000 - SEAT_CLAIM_RENEW_MS - 1);
    expect((await claims.claim(1, h("other"))).ok).toBe(false);
    advance(1);
    expect(await claims.claim(1, h("other"))).toEqual({ ok: true });
  });

  it("a room renewing after its lease expired and was retaken does not steal it back", async () => {
    const { claims, advance } = fixture();
    await claims.claim(3, h("stale"));
    advance(SEAT_CLAIM_TTL_SECONDS * 1000);
    expect(await claims.claim(3, h("fresh"))).toEqual({ ok: true });
    await claims.renew([3], h("stale"));
    await claims.release(3, h("stale"));
    expect(await claims.claim(3, h("third"))).toEqual({ ok: false, holder: h("fresh") });
  });

  it("Redis back with older data: the republish takes a lease back from a room that is not alive, never from a live one", async () => {
    const store = new MemoryLeaseStore();
    const seats = new MatchSeats(store);
    const alive = new Set(["live", "other-live"]);
    seats.judgeLivenessBy(async ({ roomId }) => alive.has(roomId));
    expect(await seats.claim(1, h("live"))).toEqual({ ok: true });
    expect(await seats.claim(2, h("live"))).toEqual({ ok: true });
    // The snapshot: account 1's lease names a battle that ended since; account 2's a live duel.
    await store.release("match:seat:1", "boss/live");
    await store.acquire("match:seat:1", "boss/ended", 45);
    await store.release("match:seat:2", "boss/live");
    await store.acquire("match:seat:2", "pvp/other-live", 45);
    const { takenBack, conflicts } = await seats.republish();
    expect(takenBack).toEqual([{ userId: 1, ours: h("live"), stale: h("ended") }]);
    expect(conflicts).toEqual([{ userId: 2, ours: h("live"), theirs: h("other-live", "pvp") }]);
    // A refusal now names the room the account really plays in.
    expect(await seats.claim(1, h("new", "pvp"))).toEqual({ ok: false, holder: h("live") });
    expect(await seats.holderOf(2)).toEqual(h("other-live", "pvp"));
  });

  it("the renewal writes a missing lease again and takes one back from a room that is not alive", async () => {
    const { claims, store } = fixtureWithStore();
    claims.judgeLivenessBy(async ({ roomId }) => roomId === "live");
    await claims.claim(1, h("live"));
    await claims.claim(2, h("live"));
    await store.release("match:seat:1", "boss/live"); // missing (Redis came back with older data)
    await store.release("match:seat:2", "boss/live");
    await store.acquire("match:seat:2", "boss/ghost", 45); // naming a room that ended
    const repair = await claims.renew([1, 2], h("live"));
    expect(repair.rewritten).toEqual([1]);
    expect(repair.takenBack).toEqual([{ userId: 2, ours: h("live"), stale: h("ghost") }]);
    expect(await claims.holderOf(1)).toEqual(h("live"));
    expect(await claims.holderOf(2)).toEqual(h("live"));
    // An ordinary renewal repairs nothing.
    expect(await claims.renew([1, 2], h("live"))).toEqual({ takenBack: [], conflicts: [], rewritten: [] });
  });

  it("a renewal never keeps a lease for a seat that ended, nor takes one from a live room", async () => {
    const { claims, store } = fixtureWithStore();
    claims.judgeLivenessBy(async ({ roomId }) => roomId !== "ghost");
    await claims.claim(1, h("live"));
    await claims.release(1, h("live"));
    expect(await claims.renew([1], h("live"))).toMatchObject({ takenBack: [], conflicts: [] });
    expect(await claims.holderOf(1)).toBeNull();
    // A stale lease taken back for a seat that ended is given up again.
    await store.acquire("match:seat:1", "boss/ghost", 45);
    await claims.renew([1], h("live"));
    expect(await claims.holderOf(1)).toBeNull();
    // Another live room keeps its lease; without a liveness judge every holder counts as alive.
    await claims.claim(3, h("live"));
    await store.release("match:seat:3", "boss/live");
    await store.acquire("match:seat:3", "pvp/duel", 45);
    expect((await claims.renew([3], h("live"))).conflicts).toEqual([{ userId: 3, ours: h("live"), theirs: h("duel", "pvp") }]);
    claims.judgeLivenessBy(undefined);
    await store.release("match:seat:3", "pvp/duel");
    await store.acquire("match:seat:3", "boss/ghost", 45);
    expect((await claims.renew([3], h("live"))).takenBack).toEqual([]);
    expect(await claims.holderOf(3)).toEqual(h("ghost"));
  });

  it("outlives a dropped connection's reconnection window between renewals", () => {
    expect(SEAT_CLAIM_TTL_SECONDS * 1000).toBeGreaterThan(2 * SEAT_CLAIM_RENEW_MS);
    expect(SEAT_CLAIM_TTL_SECONDS).toBeGreaterThan(RECONNECT_SECONDS);
  });
});
