// The kit's state patch for rooms with an input channel (src/rooms/kit/patches.ts): the same bytes
// as Colyseus' own serializer (timed layout: clock and each recipient's input ack), for a patch and
// for a tick without changes, written straight into each batched connection's frame buffer instead
// of a frame built and sent per client.
import { EventEmitter } from "node:events";
import { ClientState, SchemaSerializer, type Client } from "@colyseus/core";
import { schema, t, type SchemaType } from "@colyseus/schema";
import { describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { skipStatePatches } from "../../../src/rooms/kit/channels.js";
import { SharedPatchSerializer } from "../../../src/rooms/kit/patches.js";
import { batchWrites } from "../../../src/net/transport.js";

const Dot = schema({ x: t.number().default(0), label: t.string().default("") }, "PatchTestDot");
type Dot = SchemaType<typeof Dot>;
const State = schema({ tick: t.uint32().default(0), dots: t.map(Dot) }, "PatchTestState");
type State = SchemaType<typeof State>;

/** A client whose sends are recorded; `acks` is its last consumed input. */
function fakeClient(ack: number, ref: EventEmitter = new EventEmitter()) {
  const raw: Buffer[] = [];
  const client = { state: ClientState.JOINED, ref, _inputBuffer: { ackSeq: ack }, raw: (bytes: Uint8Array) => void raw.push(Buffer.from(bytes)) };
  return { client: client as unknown as Client, raw };
}

/** A connection with the transport's outbox; what reaches its socket is parsed back into payloads. */
function batchedConnection() {
  const written: Buffer[] = [];
  const ws = Object.assign(new EventEmitter(), { readyState: 1, extensions: "", send: () => expect.unreachable(), close: () => undefined });
  const socket = { destroyed: false, writableLength: 0, write: (b: Buffer) => void written.push(Buffer.from(b)) };
  batchWrites(ws as unknown as WebSocket, socket as never);
  const payloads = () => {
    const out: Buffer[] = [];
    for (const bytes of written) {
      let at = 0;
      while (at < bytes.length) {
        let n = bytes[at + 1];
        let head = 2;
        if (n === 126) ((n = bytes.readUInt16BE(at + 2)), (head = 4));
        out.push(bytes.subarray(at + head, at + head + n));
        at += head + n;
      }
    }
    return out;
  };
  return { ws, payloads };
}

const nextTurn = () => new Promise((r) => setImmediate(r));

/** Two identical states, one per serializer, changed the same way by `change`. */
function twins(change: (s: State, step: number) => void) {
  const make = <S extends SchemaSerializer<State>>(serializer: S) => {
    const state = new State();
    serializer.reset(state);
    return { serializer, state };
  };
  const reference = make(new SchemaSerializer<State>());
  const shared = make(new SharedPatchSerializer<State>());
  return {
    reference,
    shared,
    step(n: number) {
      change(reference.state, n);
      change(shared.state, n);
    },
  };
}

const change = (s: State, n: number) => {
  s.tick = n;
  if (n % 2 === 0) {
    const dot = s.dots.get(`d${n % 3}`) ?? new Dot();
    dot.x = n * 1.5;
    dot.label = `dot ${n}`;
    s.dots.set(`d${n % 3}`, dot);
  }
};

describe("SharedPatchSerializer", () => {
  it("sends each client Colyseus' timed frame, byte for byte, patches and heartbeats alike (client without outbox)", () => {
    const { reference, shared } = twins(change);
    const refClients = [fakeClient(0), fakeClient(7), fakeClient(4_000_000_000)];
    const ourClients = [fakeClient(0), fakeClient(7), fakeClient(4_000_000_000)];
    for (let n = 1; n <= 6; n++) {
      const sNow = n * 33.4;
      // Odd steps change only the tick; a step with no change at all is a heartbeat.
      for (const { state } of [reference, shared]) change(state, n);
      const a = reference.serializer.applyPatches(refClients.map((c) => c.client), reference.state, { sNow });
      const b = shared.serializer.applyPatches(ourClients.map((c) => c.client), shared.state, { sNow });
      expect(b).toBe(a);
      const c = reference.serializer.applyPatches(refClients.map((c) => c.client), reference.state, { sNow: sNow + 1 });
      const d = shared.serializer.applyPatches(ourClients.map((c) => c.client), shared.state, { sNow: sNow + 1 });
      expect([c, d]).toEqual([false, false]);
    }
    ourClients.forEach((ours, i) => {
      expect(ours.raw.length).toBe(12);
      expect(ours.raw).toEqual(refClients[i].raw);
    });
  });

  it("writes a batched connection's frame into its outbox: no frame built and sent per client, same bytes", async () => {
    const { reference, shared } = twins(change);
    const acks = [3, 9];
    const refClients = acks.map((ack) => fakeClient(ack));
    const connections = acks.map(() => batchedConnection());
    const ourClients = acks.map((ack, i) => fakeClient(ack, connections[i].ws));
    for (let n = 1; n <= 4; n++) {
      for (const { state } of [reference, shared]) change(state, n);
      reference.serializer.applyPatches(refClients.map((c) => c.client), reference.state, { sNow: n * 33 });
      shared.serializer.applyPatches(ourClients.map((c) => c.client), shared.state, { sNow: n * 33 });
      reference.serializer.applyPatches(refClients.map((c) => c.client), reference.state, { sNow: n * 33 + 5 });
      shared.serializer.applyPatches(ourClients.map((c) => c.client), shared.state, { sNow: n * 33 + 5 });
    }
    await nextTurn();
    ourClients.forEach((ours, i) => {
      expect(ours.raw).toEqual([]);
      expect(connections[i].payloads()).toEqual(refClients[i].raw);
    });
  });

  it("sends no patch to a client that reads messages only, on either path", async () => {
    const { shared } = twins(change);
    const connection = batchedConnection();
    const batched = fakeClient(1, connection.ws);
    const plain = fakeClient(2);
    skipStatePatches(batched.client);
    skipStatePatches(plain.client);
    change(shared.state, 2);
    shared.serializer.applyPatches([batched.client, plain.client], shared.state, { sNow: 10 });
    shared.serializer.applyPatches([batched.client, plain.client], shared.state, { sNow: 20 });
    await nextTurn();
    expect(connection.payloads()).toEqual([]);
    expect([batched.raw, plain.raw]).toEqual([[], []]);
  });

  it("leaves rooms without an input channel (no timing) to Colyseus' path", () => {
    const { reference, shared } = twins(change);
    const ref = fakeClient(0);
    const ours = fakeClient(0);
    change(reference.state, 2);
    change(shared.state, 2);
    reference.serializer.applyPatches([ref.client], reference.state);
    shared.serializer.applyPatches([ours.client], shared.state);
    expect(ours.raw).toEqual(ref.raw);
    expect(ours.raw[0][0]).toBe(15); // ROOM_STATE_PATCH, untimed
  });
});
