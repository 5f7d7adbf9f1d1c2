// Seat reservations nobody waits for (src/rooms/kit/reservations.ts): a reservation whose onAuth
// answer is older than the matchmaker's patience gets a short window; unstamped ones and
// reconnections keep theirs.
import { describe, expect, it } from "vitest";
import { abandonedReservation, LATE_RESERVATION_SECONDS, MATCHMAKER_PATIENCE_MS, shortenLateReservations, stamped } from "../../../src/rooms/kit/reservations.js";

describe("abandoned seat reservations", () => {
  it("dates a reservation by its onAuth stamp", () => {
    const auth = stamped({ who: "ann" }, 1_000);
    expect(auth).toEqual({ who: "ann", authedAt: 1_000 });
    expect(abandonedReservation(auth, 1_000 + MATCHMAKER_PATIENCE_MS)).toBe(false);
    expect(abandonedReservation(auth, 1_001 + MATCHMAKER_PATIENCE_MS)).toBe(true);
    expect(abandonedReservation({ who: "unstamped" }, 1e12)).toBe(false);
    expect(abandonedReservation(undefined)).toBe(false);
  });

  it("holds a late new seat briefly; a fresh one and every reconnection keep their window", async () => {
    const windows: Record<string, number | undefined> = {};
    const late: string[] = [];
    const room = { _reserveSeat: async (sid: string, _o?: unknown, _a?: unknown, seconds?: number, ..._rest: unknown[]) => ((windows[sid] = seconds), true) };
    shortenLateReservations(room, (sid) => late.push(sid));
    const old = { authedAt: Date.now() - MATCHMAKER_PATIENCE_MS - 1000 };
    expect(await room._reserveSeat("late", {}, old)).toBe(true);
    expect(await room._reserveSeat("fresh", {}, stamped({}), 15)).toBe(true);
    expect(await room._reserveSeat("back", {}, old, 15, true)).toBe(true);
    expect(windows).toEqual({ late: LATE_RESERVATION_SECONDS, fresh: 15, back: 15 });
    expect(late).toEqual(["late"]);
  });
});
