// The /play client's heartbeat (web/play/src/net.ts watchLink) on fake timers: a link that stops
// answering is dropped with 4010 (the SDK then reconnects into the seat) within 4 s, one that answers
// never is, and nothing is pinged while the SDK reconnects.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LINK_DEAD_MS, LINK_PING_MS, watchLink } from "../../../web/play/src/net.js";
import { MAY_TRY_RECONNECT } from "../../../src/protocol/closeCodes.js";

function fakeRoom() {
  const room = {
    answering: true,
    pings: 0,
    closed: [] as number[],
    pending: [] as Array<() => void>,
    reconnected: undefined as undefined | (() => void),
    left: undefined as undefined | (() => void),
    connection: {
      isOpen: true,
      close(code: number) {
        room.closed.push(code);
        room.connection.isOpen = false;
      },
    },
    ping(cb: () => void) {
      room.pings++;
      if (room.answering) setTimeout(cb, 40); // the server's answer, one round trip later
    },
    onReconnect(cb: () => void) {
      room.reconnected = cb;
    },
    onLeave(cb: () => void) {
      room.left = cb;
    },
  };
  return room;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("watchLink", () => {
  it("keeps a link that answers, pinging about twice a second", () => {
    const room = fakeRoom();
    watchLink(room as never, () => performance.now());
    vi.advanceTimersByTime(60_000);
    expect(room.closed).toEqual([]);
    expect(room.pings).toBeGreaterThan(100);
  });

  it("drops a link that stops answering with 4010 within 4 s, then waits for the SDK's reconnection", () => {
    const room = fakeRoom();
    watchLink(room as never, () => performance.now());
    vi.advanceTimersByTime(10_000);
    const diedAt = performance.now();
    room.answering = false;
    while (room.closed.length === 0) vi.advanceTimersByTime(50);
    const noticed = performance.now() - diedAt;
    expect(room.closed).toEqual([MAY_TRY_RECONNECT]);
    expect(noticed).toBeGreaterThanOrEqual(LINK_DEAD_MS - LINK_PING_MS);
    expect(noticed).toBeLessThanOrEqual(LINK_DEAD_MS + LINK_PING_MS);
    // reconnecting: no pings; back: watched again
    const pings = room.pings;
    vi.advanceTimersByTime(10_000);
    expect(room.pings).toBe(pings);
    room.answering = true;
    room.connection.isOpen = true;
    room.reconnected!();
    vi.advanceTimersByTime(10_000);
    expect(room.pings).toBeGreaterThan(pings);
    expect(room.closed).toHaveLength(1);
  });

  it("stops when the room is left", () => {
    const room = fakeRoom();
    watchLink(room as never, () => performance.now());
    room.left!();
    vi.advanceTimersByTime(10_000);
    expect(room.pings).toBe(0);
  });
});
