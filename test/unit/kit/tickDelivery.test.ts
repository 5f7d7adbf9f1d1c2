// The pure pieces of the real-time rooms' tick model: the input queue (inputs applied in the fixed
// step, in arrival order), the tick outbox (one step's messages to each client in order, a mover's
// position never to itself, mirrors left out for state readers) and the move payload's fast check.
import { EventEmitter } from "node:events";
import { ClientState } from "@colyseus/core";
import { describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { batchWrites } from "../../../src/net/transport.js";
import { InputQueue } from "../../../src/rooms/kit/inputs.js";
import { TickOutbox, type Recipient } from "../../../src/rooms/kit/outbox.js";
import { isPointPayload, MAX_COORDINATE } from "../../../src/protocol/common.js";
import { playerMoveSchema } from "../../../src/protocol/boss.js";
import { pvpMoveSchema } from "../../../src/protocol/pvp.js";

describe("InputQueue", () => {
  it("applies the queued inputs in arrival order, once, and is empty afterwards", () => {
    const q = new InputQueue<string, "move" | "shoot", string>();
    q.push("a", "move", 1, 2);
    q.push("b", "shoot", 3, 4, "laser");
    q.push("a", "move", 5, 6);
    const seen: unknown[] = [];
    expect(q.drain((...input) => seen.push(input))).toBe(3);
    expect(seen).toEqual([
      ["a", "move", 1, 2, undefined],
      ["b", "shoot", 3, 4, "laser"],
      ["a", "move", 5, 6, undefined],
    ]);
    expect(q.length).toBe(0);
    expect(q.drain(() => expect.unreachable())).toBe(0);
  });

  it("keeps inputs queued during a drain for the next one", () => {
    const q = new InputQueue<string, "move">();
    q.push("a", "move", 1, 1);
    const seen: number[] = [];
    q.drain((_s, _k, x) => {
      seen.push(x);
      q.push("b", "move", 2, 2);
    });
    expect(seen).toEqual([1]);
    expect(q.length).toBe(1);
    q.drain((_s, _k, x) => seen.push(x));
    expect(seen).toEqual([1, 2]);
  });

  it("forgets one sender's inputs and keeps the others' order", () => {
    const q = new InputQueue<string, "move">();
    for (const [s, x] of [["a", 1], ["b", 2], ["a", 3], ["c", 4], ["b", 5]] as const) q.push(s, "move", x, 0);
    q.forget("b");
    const seen: string[] = [];
    q.drain((s, _k, x) => seen.push(`${s}${x}`));
    expect(seen).toEqual(["a1", "a3", "c4"]);
  });
});

class FakeClient implements Recipient {
  got: string[] = [];
  constructor(readonly sessionId: string) {}
  enqueueRaw(bytes: Uint8Array): void {
    this.got.push(Buffer.from(bytes).toString());
  }
}

interface Out {
  pos: { sid: string };
  self: { sid: string };
  note: { n: number };
}

describe("TickOutbox", () => {
  const encode = (type: string, payload: unknown) => Buffer.from(`${type}:${JSON.stringify(payload)}`);

  it("delivers each client its messages of the tick in queue order, a mover's position to the others only", () => {
    const a = new FakeClient("a");
    const b = new FakeClient("b");
    const c = new FakeClient("c");
    let encoded = 0;
    let counted = 0;
    const box = new TickOutbox<FakeClient, Out>("test", { encode: (t, p) => (encoded++, encode(t, p)), counted: (n) => (counted += n) });
    box.toOthers(a, "pos", { sid: "a" }, true);
    box.to(a, "self", { sid: "a" }, true);
    box.toOthers(b, "pos", { sid: "b" }, true);
    box.toAll("note", { n: 1 });
    box.toOthers(a, "pos", { sid: "a" }, true);
    expect(a.got).toEqual([]); // nothing leaves before the flush
    box.flush([a, b, c]);
    expect(a.got).toEqual(['self:{"sid":"a"}', 'pos:{"sid":"b"}', 'note:{"n":1}']);
    expect(b.got).toEqual(['pos:{"sid":"a"}', 'note:{"n":1}', 'pos:{"sid":"a"}']);
    expect(c.got).toEqual(['pos:{"sid":"a"}', 'pos:{"sid":"b"}', 'note:{"n":1}', 'pos:{"sid":"a"}']);
    expect(encoded).toBe(5); // once per message, whatever the number of recipients
    expect(counted).toBe(10);
    expect(box.length).toBe(0);
    box.flush([a, b, c]);
    expect(c.got).toHaveLength(4);
  });

  it("leaves mirror messages out for clients that read state only, and never sends a position back to its mover", () => {
    const a = new FakeClient("a");
    const reader = new FakeClient("r");
    const box = new TickOutbox<FakeClient, Out>("test", { encode, counted: () => {}, readsStateOnly: (c) => c === reader });
    box.toOthers(a, "pos", { sid: "a" }, true);
    box.toAll("note", { n: 2 });
    box.toOthers(reader, "pos", { sid: "r" }, true);
    box.flush([a, reader]);
    expect(reader.got).toEqual(['note:{"n":2}']);
    expect(a.got).toEqual(['note:{"n":2}', 'pos:{"sid":"r"}']);
  });

  it("writes a joined client's frames straight into its connection's outbox, in order with what Colyseus sends it; a joining client still goes through enqueueRaw", async () => {
    const written: Buffer[] = [];
    const ws = Object.assign(new EventEmitter(), { readyState: 1, extensions: "", send: () => expect.unreachable(), close: () => undefined });
    batchWrites(ws as unknown as WebSocket, { destroyed: false, writableLength: 0, write: (b: Buffer) => void written.push(Buffer.from(b)) } as never);
    const joined = Object.assign(new FakeClient("a"), { state: ClientState.JOINED, ref: ws });
    const joining = Object.assign(new FakeClient("b"), { state: ClientState.JOINING, ref: ws });
    const box = new TickOutbox<FakeClient, Out>("test", { encode, counted: () => {} });
    (ws as unknown as WebSocket).send(Buffer.from("before"), { binary: true }); // what Colyseus sent earlier in the turn
    box.toAll("note", { n: 3 });
    box.flush([joined, joining]);
    expect(joined.got).toEqual([]); // not through Colyseus' client
    expect(joining.got).toEqual(['note:{"n":3}']);
    await new Promise((r) => setImmediate(r));
    expect(written).toHaveLength(1); // one write for the turn
    const frames: string[] = [];
    for (let at = 0; at < written[0].length; at += 2 + written[0][at + 1]) frames.push(written[0].subarray(at + 2, at + 2 + written[0][at + 1]).toString());
    expect(frames).toEqual(["before", 'note:{"n":3}']);
  });

  it("matches recipients by session: a reconnected client gets its messages, never its own position", () => {
    const before = new FakeClient("a");
    const after = new FakeClient("a");
    const box = new TickOutbox<FakeClient, Out>("test", { encode, counted: () => {} });
    box.toOthers(before, "pos", { sid: "a" });
    box.to(before, "self", { sid: "a" });
    box.flush([after]);
    expect(after.got).toEqual(['self:{"sid":"a"}']);
  });
});

describe("isPointPayload (the move's fast check)", () => {
  const samples: unknown[] = [
    { x: 1, y: 2 },
    { x: -MAX_COORDINATE, y: MAX_COORDINATE, room_id: "abc" },
    { x: 1, y: 2, room_id: undefined, extra: "kept" },
    { x: 1, y: 2, room_id: "r".repeat(64) },
    { x: 1, y: 2, room_id: "r".repeat(65) },
    { x: MAX_COORDINATE + 1, y: 0 },
    { x: Number.NaN, y: 0 },
    { x: Number.POSITIVE_INFINITY, y: 0 },
    { x: "1", y: 2 },
    { x: 1 },
    { x: 1, y: 2, room_id: 5 },
    { x: 1, y: 2, room_id: null },
    [1, 2],
    null,
    undefined,
    "x",
    42,
  ];

  it("accepts nothing the move schemas refuse, and the plain valid moves", () => {
    for (const raw of samples) {
      if (isPointPayload(raw)) {
        expect(playerMoveSchema.safeParse(raw).success, JSON.stringify(raw)).toBe(true);
        expect(pvpMoveSchema.safeParse(raw).success, JSON.stringify(raw)).toBe(true);
      }
    }
    expect(samples.filter(isPointPayload)).toHaveLength(4);
  });
});
