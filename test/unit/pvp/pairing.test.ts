// Duel pairing (src/rooms/pvp/pairing.ts): the newer of two rooms with a lone waiting player sends
// its player to the older one, but only once that client has acknowledged its join: before that,
// Colyseus holds the client's messages and closing the connection drops them, so the client would
// be closed without pvp_requeue and never rejoin. The matchmaker's listing and the room are fakes.
import { describe, expect, it } from "vitest";
import { ClientState, type Client, type IRoomCache } from "@colyseus/core";
import { seededRng } from "../../../src/game/rng.js";
import { PvpArena } from "../../../src/game/pvp/simulation.js";
import { DuelPairing, JOIN_ACK_PATIENCE_MS, JOIN_ACK_POLL_MS, type WaitingRoom } from "../../../src/rooms/pvp/pairing.js";

function newerRoom() {
  const arena = new PvpArena({ rng: seededRng(3) });
  arena.join("p1", { username: "ana", character: "knight", bullets: 30 });
  const sent: string[] = [];
  const dismissed: string[] = [];
  const timers: Array<() => void> = [];
  const intervals: Array<() => void> = [];
  const client = { sessionId: "p1", state: ClientState.JOINING as ClientState, send: (type: string) => void sent.push(type) };
  const room: WaitingRoom = {
    roomName: "pvp",
    roomId: "NEW",
    log: { info: () => {}, warn: () => {} } as unknown as WaitingRoom["log"],
    clock: { setTimeout: (cb: () => void) => timers.push(cb), setInterval: (cb: () => void) => intervals.push(cb) } as unknown as WaitingRoom["clock"],
    arena,
    open: () => true,
    client: (sid) => (sid === "p1" && !dismissed.includes(sid) ? (client as unknown as Client) : undefined),
    dismiss: async (sid) => void dismissed.push(sid),
    pairWaitingPlayers: async () => {},
  };
  const listing = (roomId: string, createdAt: string, clients = 1) => ({ roomId, name: "pvp", clients, createdAt }) as unknown as IRoomCache;
  /** Players (and reserved seats) the older room lists. */
  const older = { clients: 1 };
  const rooms = {
    query: async () => [listing("OLD", "2026-01-01T00:00:00Z", older.clients), listing("NEW", "2026-01-01T00:00:05Z")],
    remoteRoomCall: async () => undefined,
  } as unknown as ConstructorParameters<typeof DuelPairing>[1];
  /** Runs the timers due now (each poll), as the room's clock would at its next ticks. */
  const tick = () => timers.splice(0).forEach((cb) => cb());
  const pairing = new DuelPairing(room, rooms);
  room.pairWaitingPlayers = () => pairing.run();
  return { room, pairing, client, sent, dismissed, tick, timers, intervals, older };
}

describe("DuelPairing requeue", () => {
  it("sends a joined player to the older waiting room: pvp_requeue, then the dismissal", async () => {
    const { pairing, client, sent, dismissed } = newerRoom();
    client.state = ClientState.JOINED;
    await pairing.run();
    expect(sent).toEqual(["pvp_requeue"]);
    expect(dismissed).toEqual(["p1"]);
  });

  it("waits for the join acknowledgement before telling and closing, and waits only once", async () => {
    const { pairing, client, sent, dismissed, tick, timers } = newerRoom();
    await pairing.run();
    await pairing.run(); // another change while waiting: no second wait
    expect(sent).toEqual([]);
    expect(dismissed).toEqual([]);
    expect(timers).toHaveLength(1);
    tick(); // still not acknowledged
    expect(sent).toEqual([]);
    client.state = ClientState.JOINED;
    tick();
    await Promise.resolve();
    expect(sent).toEqual(["pvp_requeue"]);
    expect(dismissed).toEqual(["p1"]);
  });

  it("gives up on a client that never acknowledges (Colyseus drops it)", async () => {
    const { pairing, sent, dismissed, tick, timers } = newerRoom();
    await pairing.run();
    for (let waited = 0; waited <= JOIN_ACK_PATIENCE_MS; waited += JOIN_ACK_POLL_MS) tick();
    expect(timers).toHaveLength(0);
    expect(sent).toEqual([]);
    expect(dismissed).toEqual([]);
  });
});

describe("DuelPairing, looking again", () => {
  it("finds a player waiting elsewhere whom no join or leave announced: the older room's second seat came free on its own", async () => {
    const { pairing, client, sent, dismissed, intervals, older } = newerRoom();
    client.state = ClientState.JOINED;
    // The older room's player waits too, but a reservation nobody consumes fills its second seat.
    older.clients = 2;
    await pairing.run();
    expect(sent).toEqual([]);
    expect(intervals).toHaveLength(1);
    // The reservation lapses: nobody joins or leaves, the room's periodic look finds the older room.
    older.clients = 1;
    intervals[0]();
    await eventually(() => dismissed.length === 1);
    expect(sent).toEqual(["pvp_requeue"]);
  });
});

async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await Promise.resolve();
  expect(check()).toBe(true);
}
