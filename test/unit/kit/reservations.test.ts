// Seat reservations nobody waits for (src/rooms/kit/reservations.ts): a reservation whose onAuth
// answer is older than the matchmaker's patience is refused; unstamped ones and reconnections pass.
import { describe, expect, it } from "vitest";
import { abandonedReservation, MATCHMAKER_PATIENCE_MS, refuseAbandonedReservations, stamped } from "../../../src/rooms/kit/reservations.js";

describe("abandoned seat reservations", () => {
  it("dates a reservation by its onAuth stamp", () => {
    const auth = stamped({ who: "ann" }, 1_000);
    expect(auth).toEqual({ who: "ann", authedAt: 1_000 });
    expect(abandonedReservation(auth, 1_000 + MATCHMAKER_PATIENCE_MS)).toBe(false);
    expect(abandonedReservation(auth, 1_001 + MATCHMAKER_PATIENCE_MS)).toBe(true);
    expect(abandonedReservation({ who: "unstamped" }, 1e12)).toBe(false);
    expect(abandonedReservation(undefined)).toBe(false);
  });

  it("refuses a late new seat, passes a fresh one and every reconnection", async () => {
    const calls: string[] = [];
    const refused: string[] = [];
    const room = { _reserveSeat: async (sid: string, ..._rest: unknown[]) => (calls.push(sid), true) };
    refuseAbandonedReservations(room, (sid) => refused.push(sid));
    const late = { authedAt: Date.now() - MATCHMAKER_PATIENCE_MS - 1000 };
    expect(await room._reserveSeat("late", {}, late, 15, false)).toBe(false);
    expect(await room._reserveSeat("fresh", {}, stamped({}), 15, false)).toBe(true);
    expect(await room._reserveSeat("back", {}, late, 15, true)).toBe(true);
    expect(calls).toEqual(["fresh", "back"]);
    expect(refused).toEqual(["late"]);
  });
});
