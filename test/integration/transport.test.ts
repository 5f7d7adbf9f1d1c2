// The batching WebSocket transport (src/net/transport.ts): a connection's messages of one event-loop
// turn leave in one write, framed into one buffer per connection. Every message must still arrive whole, in
// order, with the bytes it had when it was sent, and a close must not overtake queued messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineRoom, getMessageBytes, Protocol, Room, type Client } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";

class BurstRoom extends Room {
  messages = {
    // n numbered messages, a broadcast, and messages whose frames need 16- and 64-bit lengths
    burst: (client: Client, n: number) => {
      for (let i = 0; i < n; i++) client.send("seq", i);
      this.broadcast("all", { from: client.sessionId });
      client.send("big", "x".repeat(300));
      client.send("huge", "y".repeat(70_000));
      client.send("seq", n);
    },
    // bytes handed to the transport and overwritten in the same turn (as a reused encode buffer is)
    reuse: (client: Client) => {
      const bytes = getMessageBytes.raw(Protocol.ROOM_DATA_BYTES, "bytes", undefined, new Uint8Array([1, 2, 3]));
      client.raw(bytes);
      bytes[bytes.length - 1] = 99;
    },
    burstThenLeave: (client: Client, n: number) => {
      for (let i = 0; i < n; i++) client.send("seq", i);
      client.leave(4000);
    },
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { rooms: { burst: defineRoom(BurstRoom) } });
});
afterAll(() => t?.stop());

function collect(room: SdkRoom, type: string, count: number): Promise<unknown[]> {
  const seen: unknown[] = [];
  return new Promise((resolve) => {
    room.onMessage(type, (m) => {
      seen.push(m);
      if (seen.length === count) resolve(seen);
    });
  });
}

describe("batched WebSocket writes", () => {
  it("delivers a turn's messages whole and in order, broadcasts included", async () => {
    const a = await t.sdk().joinOrCreate("burst");
    const b = await t.sdk().joinById(a.roomId);
    const seq = collect(a, "seq", 201);
    const big = collect(a, "big", 1);
    const huge = collect(a, "huge", 1);
    const atA = collect(a, "all", 1);
    const atB = collect(b, "all", 1);
    a.send("burst", 200);
    expect(await seq).toEqual(Array.from({ length: 201 }, (_, i) => i));
    expect(await big).toEqual(["x".repeat(300)]);
    expect(await huge).toEqual(["y".repeat(70_000)]);
    expect(await atA).toEqual([{ from: a.sessionId }]);
    expect(await atB).toEqual([{ from: a.sessionId }]);
    await Promise.all([a.leave(), b.leave()]);
  });

  it("sends the bytes a message had when it was sent, not what its buffer holds later", async () => {
    const room = await t.sdk().joinOrCreate("burst");
    const bytes = collect(room, "bytes", 1);
    room.send("reuse");
    expect(Array.from((await bytes)[0] as Uint8Array)).toEqual([1, 2, 3]);
    await room.leave();
  });

  it("delivers queued messages before the close that follows them", async () => {
    const room = await t.sdk().joinOrCreate("burst");
    const seq = collect(room, "seq", 50);
    const left = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    room.send("burstThenLeave", 50);
    expect(await seq).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(await left).toBe(4000);
  });
});
