import { describe, expect, it } from "vitest";
import { MemoryLeaseStore, SEAT_CLAIM_RENEW_MS, SEAT_CLAIM_TTL_SECONDS, SeatClaims } from "../../../src/rooms/seatClaims.js";
import { RECONNECT_SECONDS } from "../../../src/rooms/BossRoom.js";

function fixture() {
  let now = 1_000_000;
  const claims = new SeatClaims(new MemoryLeaseStore(() => now));
  return { claims, advance: (ms: number) => (now += ms) };
}

describe("SeatClaims (in-process leases)", () => {
  it("gives an account's seat to the first room and names the holder to the others", async () => {
    const { claims } = fixture();
    expect(await claims.claim(7, "roomA")).toEqual({ ok: true });
    expect(await claims.claim(7, "roomB")).toEqual({ ok: false, roomId: "roomA" });
    expect(await claims.claim(7, "roomA")).toEqual({ ok: false, roomId: "roomA" });
    expect(await claims.claim(8, "roomB")).toEqual({ ok: true });
  });

  it("two claims racing for one account: exactly one wins", async () => {
    const { claims } = fixture();
    const results = await Promise.all(["r1", "r2", "r3"].map((r) => claims.claim(9, r)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("release frees the seat, but only for the room that holds it", async () => {
    const { claims } = fixture();
    await claims.claim(7, "roomA");
    await claims.release(7, "roomB");
    expect(await claims.claim(7, "roomB")).toEqual({ ok: false, roomId: "roomA" });
    await claims.release(7, "roomA");
    expect(await claims.claim(7, "roomB")).toEqual({ ok: true });
  });

  it("a lease no longer renewed (its process died) expires after the TTL; renewals keep it", async () => {
    const { claims, advance } = fixture();
    await claims.claim(1, "alive");
    await claims.claim(2, "crashed");
    for (let t = 0; t < 4 * SEAT_CLAIM_TTL_SECONDS * 1000; t += SEAT_CLAIM_RENEW_MS) {
      await claims.renew([1, 2], "alive"); // "alive" does not hold account 2: no renewal for it
      advance(SEAT_CLAIM_RENEW_MS);
    }
    expect(await claims.claim(1, "other")).toEqual({ ok: false, roomId: "alive" });
    expect(await claims.claim(2, "other")).toEqual({ ok: true });
    // After the last renewal the lease lasts exactly one TTL, however often others try.
    advance(SEAT_CLAIM_TTL_SECONDS * 1000 - SEAT_CLAIM_RENEW_MS - 1);
    expect((await claims.claim(1, "other")).ok).toBe(false);
    advance(1);
    expect(await claims.claim(1, "other")).toEqual({ ok: true });
  });

  it("a room renewing after its lease expired and was retaken does not steal it back", async () => {
    const { claims, advance } = fixture();
    await claims.claim(3, "stale");
    advance(SEAT_CLAIM_TTL_SECONDS * 1000);
    expect(await claims.claim(3, "fresh")).toEqual({ ok: true });
    await claims.renew([3], "stale");
    await claims.release(3, "stale");
    expect(await claims.claim(3, "third")).toEqual({ ok: false, roomId: "fresh" });
  });

  it("outlives a dropped connection's reconnection window between renewals", () => {
    expect(SEAT_CLAIM_TTL_SECONDS * 1000).toBeGreaterThan(2 * SEAT_CLAIM_RENEW_MS);
    expect(SEAT_CLAIM_TTL_SECONDS).toBeGreaterThan(RECONNECT_SECONDS);
  });
});
