// The seat keeper (src/rooms/kit/keeper.ts) with a fake room, in-memory leases and a fake store:
// lease before read, write before release, one write at a time, rollback and retry, nothing
// written twice, disposal waiting for writes in flight, guests never written.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Client } from "@colyseus/core";
import { guestIdentity, type Identity } from "../../src/auth/identity.js";
import { SeatKeeper, type KeeperRoom, type SeatEntry } from "../../src/rooms/kit/keeper.js";
import { MatchSeats, MemoryLeaseStore } from "../../src/shared/matchSeats.js";

interface Player {
  shots: number;
  hits: number;
}
type Entry = SeatEntry<"shots" | "hits", { note: string }, Player>;

/** A store whose writes are recorded, can fail, and can be held open until the test lets them go. */
class FakeStore {
  readonly writes: Array<{ entries: Entry[]; records: string[] }> = [];
  failures = 0;
  failure = () => new Error("database unavailable");
  private gate?: { opened: Promise<void>; open(): void };
  private calledWaiters: Array<() => void> = [];

  /** The next write waits until `open()` is called. */
  hold(): { open(): void } {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gate = { opened, open };
    return { open };
  }

  /** Resolves once `write` has been called `n` times in all. */
  called(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (this.attempts >= n ? resolve() : this.calledWaiters.push(check));
      check();
    });
  }

  attempts = 0;

  async write(entries: Entry[], records: string[]): Promise<void> {
    this.attempts++;
    for (const w of this.calledWaiters.splice(0)) w();
    const gate = this.gate;
    this.gate = undefined;
    if (gate) await gate.opened;
    if (this.failures > 0) {
      this.failures--;
      throw this.failure();
    }
    this.writes.push({ entries: entries.map((e) => ({ ...e, delta: { ...e.delta } })), records: [...records] });
  }

  /** What was written per account, summed over every successful write. */
  totals(): Record<number, { shots: number; hits: number; finals: number; leaves: number }> {
    const sums: Record<number, { shots: number; hits: number; finals: number; leaves: number }> = {};
    for (const { entries } of this.writes) {
      for (const e of entries) {
        const s = (sums[e.userId] ??= { shots: 0, hits: 0, finals: 0, leaves: 0 });
        s.shots += e.delta.shots;
        s.hits += e.delta.hits;
        s.finals += e.final ? 1 : 0;
        s.leaves += e.leaving ? 1 : 0;
      }
    }
    return sums;
  }
}

const account = (userId: number): Identity => ({ kind: "account", userId, username: `player${userId}`, guest: false });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(options: { refuseWindows?: boolean } = {}) {
  const leases = new MatchSeats(new MemoryLeaseStore());
  const store = new FakeStore();
  const players = new Map<string, Player>();
  /** Reconnection windows: ended (with the reason) when the seat goes. */
  const windows = new Map<string, string | undefined>();
  const room: KeeperRoom = {
    roomName: "duel",
    roomId: "room1",
    // Like Colyseus' Deferred: a promise the room can reject to end the window.
    allowReconnection: ((client: Client) => {
      // Colyseus' refusal (a client still joining, a room being disposed): a plain rejected promise.
      if (options.refuseWindows) return Promise.reject(new Error("not joined"));
      windows.set(client.sessionId, undefined);
      const window = new Promise(() => {});
      return Object.assign(window, { reject: (err: Error) => windows.set(client.sessionId, err.message) });
    }) as unknown as KeeperRoom["allowReconnection"],
    clock: { setInterval: () => undefined },
  };
  const keeper = new SeatKeeper<"shots" | "hits", { note: string }, Player, string>(room, {
    leases,
    log: pino({ level: "silent" }),
    reconnectSeconds: 10,
    counted: ["shots", "hits"],
    player: (seat) => players.get(seat.sid),
    counts: (p) => ({ shots: p.shots, hits: p.hits }),
    write: (entries, records) => store.write(entries, records),
  });
  const seat = async (sid: string, identity: Identity) => {
    await keeper.admit(sid, identity, { note: "" }, () => void players.set(sid, { shots: 0, hits: 0 }));
    return players.get(sid)!;
  };
  return { leases, store, players, keeper, seat, windows };
}

describe("SeatKeeper: admission", () => {
  it("takes the lease before the room reads what the account brings; a failed entry frees it", async () => {
    const { keeper, leases } = setup();
    let heldWhileReading: unknown;
    await keeper.admit("a", account(1), { note: "" }, async () => {
      heldWhileReading = await leases.holderOf(1);
    });
    expect(heldWhileReading).toEqual({ roomName: "duel", roomId: "room1" });

    await expect(keeper.admit("b", account(2), { note: "" }, () => Promise.reject(new Error("progress unreadable")))).rejects.toThrow("progress unreadable");
    expect(keeper.get("b")).toBeUndefined();
    expect(await leases.holderOf(2)).toBeNull();
  });

  it("refuses a second live seat of the same account with 409, without running the entry", async () => {
    const { keeper } = setup();
    await keeper.admit("a", account(1), { note: "" }, () => undefined);
    let entered = false;
    await expect(keeper.admit("b", account(1), { note: "" }, () => void (entered = true))).rejects.toMatchObject({ code: 409 });
    expect(entered).toBe(false);
  });
});

describe("SeatKeeper: writes", () => {
  it("a checkpoint writes only what changed since the last write; nothing twice", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    const b = await seat("b", account(2));
    a.shots = 3;
    await keeper.checkpoint();
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0].entries.map((e) => [e.userId, e.delta, e.final, e.leaving])).toEqual([[1, { shots: 3, hits: 0 }, false, false]]);
    await keeper.checkpoint();
    expect(store.writes).toHaveLength(1);
    a.shots = 5;
    b.hits = 1;
    await keeper.checkpoint();
    expect(store.totals()).toEqual({ 1: { shots: 5, hits: 0, finals: 0, leaves: 0 }, 2: { shots: 0, hits: 1, finals: 0, leaves: 0 } });
  });

  it("a failed write rolls back and puts its records back: the next write carries them once", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    a.shots = 4;
    store.failures = 1;
    await keeper.record("duel-1");
    expect(store.writes).toHaveLength(0);
    a.shots = 6;
    await keeper.checkpoint();
    expect(store.writes).toEqual([{ entries: [expect.objectContaining({ userId: 1, delta: { shots: 6, hits: 0 } })], records: ["duel-1"] }]);
    await keeper.checkpoint();
    expect(store.writes).toHaveLength(1);
  });

  it("a leave writes the seat's last counts before its lease is freed; later play no longer counts", async () => {
    const { keeper, store, seat, leases, players } = setup();
    const a = await seat("a", account(1));
    a.shots = 2;
    const gate = store.hold();
    const leaving = keeper.leave("a", "left");
    players.delete("a");
    a.shots = 99; // after the leave: not this seat's any more
    await store.called(1);
    expect(await leases.holderOf(1)).toEqual({ roomName: "duel", roomId: "room1" });
    gate.open();
    await leaving;
    expect(await leases.holderOf(1)).toBeNull();
    expect(store.writes[0].entries).toMatchObject([{ userId: 1, delta: { shots: 2, hits: 0 }, final: true, leaving: true }]);
    await keeper.leave("a"); // idempotent
    await keeper.checkpoint();
    expect(store.writes).toHaveLength(1);
  });

  it("a failed last write is retried by the next write; the lease is not held hostage meanwhile", async () => {
    const { keeper, store, seat, leases } = setup();
    const a = await seat("a", account(1));
    a.hits = 1;
    store.failures = 1;
    await keeper.leave("a", "left");
    expect(store.writes).toHaveLength(0);
    expect(await leases.holderOf(1)).toBeNull();
    await keeper.checkpoint();
    expect(store.totals()).toEqual({ 1: { shots: 0, hits: 1, finals: 1, leaves: 1 } });
  });

  it("one write at a time: a write queued behind another starts only when it is done", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    a.shots = 1;
    const gate = store.hold();
    const first = keeper.checkpoint();
    await store.called(1);
    a.shots = 2;
    const second = keeper.record("duel-1");
    await nextTurn();
    expect(store.attempts).toBe(1);
    gate.open();
    await Promise.all([first, second]);
    expect(store.writes.map((w) => w.entries.map((e) => e.delta.shots))).toEqual([[1], [1]]);
  });

  it("finish writes every seat's final record once; the seat's later leave carries none", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    await seat("b", account(2));
    a.hits = 2;
    await keeper.finish("victory");
    expect(store.writes[0]).toMatchObject({ records: ["victory"] });
    expect(store.writes[0].entries.map((e) => [e.userId, e.final, e.leaving])).toEqual([
      [1, true, false],
      [2, true, false],
    ]);
    await keeper.leave("a");
    expect(store.writes[1].entries).toMatchObject([{ userId: 1, final: false, leaving: true }]);
    expect(store.totals()[1]).toEqual({ shots: 0, hits: 2, finals: 1, leaves: 1 });
  });

  it("a room rule that throws is logged: the write's promise still resolves and the next write works", async () => {
    const { keeper, store, seat, players } = setup();
    const a = await seat("a", account(1));
    players.set("a", {
      get shots(): number {
        throw new Error("a bug in the room's counts");
      },
      hits: 0,
    });
    await expect(keeper.checkpoint()).resolves.toBeUndefined();
    players.set("a", a);
    a.shots = 1;
    await keeper.checkpoint();
    expect(store.totals()).toEqual({ 1: { shots: 1, hits: 0, finals: 0, leaves: 0 } });
  });

  it("guests are seated but never written", async () => {
    const { keeper, store, seat } = setup();
    const g = await seat("g", guestIdentity("Visitor"));
    g.shots = 10;
    await keeper.checkpoint();
    await keeper.finish();
    await keeper.leave("g");
    const h = await seat("h", guestIdentity("Other"));
    h.hits = 1;
    await keeper.dispose();
    expect(store.attempts).toBe(0);
  });
});

describe("SeatKeeper: reconnection windows", () => {
  it("a drop Colyseus opens no window for (a plain rejected promise) is no hold: onLeave frees the seat", async () => {
    const { keeper, store, seat, leases } = setup({ refuseWindows: true });
    await seat("a", account(1));
    expect(keeper.hold({ sessionId: "a" } as Client, 1006)).toBe(false);
    await keeper.leave("a", "disconnected");
    expect(keeper.size).toBe(0);
    expect(await leases.holderOf(1)).toBeNull();
    expect(store.totals()[1]?.leaves).toBe(1);
  });
});

describe("SeatKeeper: disposal", () => {
  it("writes every seat (away ones too) and waits for writes in flight before freeing the leases", async () => {
    const { keeper, store, seat, leases, windows } = setup();
    const a = await seat("a", account(1));
    const b = await seat("b", account(2));
    a.shots = 1;
    b.shots = 2;
    expect(keeper.hold({ sessionId: "b" } as Client, 1006)).toBe(true); // b dropped: away, in its window
    const gate = store.hold();
    const checkpoint = keeper.checkpoint();
    await store.called(1);
    let disposed = false;
    const disposal = keeper.dispose().then(() => (disposed = true));
    await nextTurn();
    expect(disposed).toBe(false);
    expect(await leases.holderOf(1)).not.toBeNull();
    gate.open();
    await Promise.all([checkpoint, disposal]);
    expect(store.totals()).toEqual({ 1: { shots: 1, hits: 0, finals: 1, leaves: 1 }, 2: { shots: 2, hits: 0, finals: 1, leaves: 1 } });
    expect(await leases.holderOf(1)).toBeNull();
    expect(await leases.holderOf(2)).toBeNull();
    expect(keeper.size).toBe(0);
    expect(windows.get("b")).toBe("room closed");
  });

  it("retries a last write the database could not take while it is unreachable, then writes it once it answers", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    a.shots = 4;
    store.failures = 3;
    store.failure = () => Object.assign(new Error("Can't reach database server"), { code: "P1001" });
    await keeper.dispose();
    expect(store.attempts).toBe(4);
    expect(store.totals()).toEqual({ 1: { shots: 4, hits: 0, finals: 1, leaves: 1 } });
  });

  it("retries a write that fails at disposal once (no later checkpoint would)", async () => {
    const { keeper, store, seat } = setup();
    const a = await seat("a", account(1));
    a.shots = 3;
    store.failures = 1;
    await keeper.dispose();
    expect(store.attempts).toBe(2);
    expect(store.totals()).toEqual({ 1: { shots: 3, hits: 0, finals: 1, leaves: 1 } });
  });
});
