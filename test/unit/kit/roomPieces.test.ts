// The small kit pieces every game room composes instead of writing them again: the guard's room-id
// check, chat, away/returned, dismissing a player, and the `updates` join option. Fakes stand in
// for Colyseus' room and clients.
import { CloseCode, Protocol, type Client } from "@colyseus/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StateReaders, chooseUpdates } from "../../../src/rooms/kit/channels.js";
import { chatHandler, type ChatLine } from "../../../src/rooms/kit/chat.js";
import { dismiss } from "../../../src/rooms/kit/dismiss.js";
import { MessageGuard, PRESENCE_RATE_LIMIT, type GuardOptions } from "../../../src/rooms/kit/guard.js";
import { PRESENCE_FLUSH_MS, PresenceFeed, presenceHandler, type PresenceRules } from "../../../src/rooms/kit/presence.js";
import { captureLogs } from "../../helpers/logs.js";

/** A client that records what it is sent and how it is closed. */
function fakeClient(sessionId = "s1") {
  const sent: Array<[string, unknown]> = [];
  const raw: number[] = [];
  const client = {
    sessionId,
    readyState: 1,
    sent,
    raw: (data: Uint8Array) => void raw.push(data[0]),
    rawCodes: raw,
    closedWith: undefined as number | undefined,
    send(type: string, payload: unknown) {
      sent.push([type, payload]);
    },
    leave(code?: number) {
      this.closedWith = code;
      this.readyState = 2;
    },
  };
  return client;
}
type FakeClient = ReturnType<typeof fakeClient>;
const errorsOf = (c: FakeClient) => c.sent.filter(([t]) => t === "error").map(([, p]) => p);

/** The part of a room the guard uses: onMessage handlers by type. */
function fakeRoom(roomId = "R1") {
  const handlers = new Map<string, (client: unknown, payload: unknown) => unknown>();
  return { roomId, roomName: "test", maxMessagesPerSecond: 0, handlers, onMessage: (type: string, h: (c: unknown, p: unknown) => unknown) => void handlers.set(type, h) };
}

const schemas = {
  act: z.object({ room_id: z.string().optional(), n: z.number() }),
  resync: z.object({ room_id: z.string().optional(), roomId: z.string().optional() }).optional(),
  report: z.unknown(),
};

function guarded(options: Omit<GuardOptions, "log">, log = captureLogs().logger) {
  const room = fakeRoom();
  const guard = new MessageGuard<Client, typeof schemas>(room as never, schemas, { log, ...options });
  const seen: Array<[string, unknown]> = [];
  guard.on("act", (_c, m) => seen.push(["act", m]));
  guard.on("resync", (_c, m) => seen.push(["resync", m]), { roomField: ["room_id", "roomId"] });
  guard.on("report", (_c, m) => seen.push(["report", m]), { roomField: false });
  const send = (type: string, payload: unknown, client = fakeClient()) => {
    room.handlers.get(type)!(client, payload);
    return client;
  };
  return { seen, send };
}

describe("MessageGuard: the room a message names", () => {
  it("passes a message naming this room or none, refuses one naming another with wrong_room", () => {
    const { seen, send } = guarded({ roomField: "room_id" });
    send("act", { n: 1 });
    send("act", { n: 2, room_id: "R1" });
    const client = send("act", { n: 3, room_id: "elsewhere" });
    expect(seen).toEqual([
      ["act", { n: 1 }],
      ["act", { n: 2, room_id: "R1" }],
    ]);
    expect(errorsOf(client)).toEqual([{ code: "wrong_room", message: 'You are in room R1, not "elsewhere"', type: "act" }]);
  });

  it("validates first: a bad payload gets invalid_payload, not a room check", () => {
    const { seen, send } = guarded({ roomField: "room_id" });
    const client = send("act", { n: "x", room_id: "elsewhere" });
    expect(seen).toEqual([]);
    expect(errorsOf(client)).toMatchObject([{ code: "invalid_payload", type: "act" }]);
  });

  it("reads the first of several fields that is present, and skips messages that opt out", () => {
    const { seen, send } = guarded({ roomField: "room_id" });
    expect(errorsOf(send("resync", { roomId: "other" }))).toMatchObject([{ code: "wrong_room" }]);
    send("resync", { roomId: "R1" });
    send("resync", undefined);
    send("report", { room_id: "other" });
    expect(seen).toEqual([
      ["resync", { roomId: "R1" }],
      ["resync", undefined],
      ["report", { room_id: "other" }],
    ]);
  });

  it("checks nothing without a roomField", () => {
    const { seen, send } = guarded({});
    send("act", { n: 1, room_id: "elsewhere" });
    expect(seen).toEqual([["act", { n: 1, room_id: "elsewhere" }]]);
  });
});

describe("chatHandler", () => {
  const speakers = new Map([["s1", { username: "ann", character: "ninja" }]]);
  function chat() {
    const said: Array<[string, ChatLine]> = [];
    const handler = chatHandler<FakeClient & Client>("x_chat_send", {
      speaker: (sid) => speakers.get(sid),
      notInRoom: "You are not here",
      say: (sender, line) => said.push([sender.sessionId, line]),
    });
    return { said, handler };
  }

  it("relays a sanitised line to the others, naming the speaker", async () => {
    const { said, handler } = chat();
    const client = fakeClient("s1");
    // Async: a signed-in speaker's mute is read first (a guest, as here, has none).
    await handler(client as never, { content: "  hi   <b>there</b> " });
    expect(said).toEqual([["s1", { sid: "s1", username: "ann", character: "ninja", content: "hi bthere/b" }]]);
    expect(client.sent).toEqual([]);
  });

  it("answers a sender without a player with not_in_room, and an empty line with invalid_payload", async () => {
    const { said, handler } = chat();
    const stranger = fakeClient("s9");
    await handler(stranger as never, { content: "hello" });
    const player = fakeClient("s1");
    await handler(player as never, { content: " <> \u0007 " });
    expect(said).toEqual([]);
    expect(errorsOf(stranger)).toEqual([{ code: "not_in_room", message: "You are not here", type: "x_chat_send" }]);
    expect(errorsOf(player)).toEqual([{ code: "invalid_payload", message: "Invalid x_chat_send: content is empty", type: "x_chat_send" }]);
  });
});

/** A room clock that moves only when told, running its timeouts when their time comes. */
function fakeClock() {
  const timers: Array<{ at: number; cb: () => void }> = [];
  const clock = {
    currentTime: 0,
    setTimeout(cb: () => void, ms: number) {
      timers.push({ at: clock.currentTime + ms, cb });
    },
    advance(ms: number) {
      clock.currentTime += ms;
      for (const t of timers.filter((t) => t.at <= clock.currentTime)) {
        timers.splice(timers.indexOf(t), 1);
        t.cb();
      }
    },
  };
  return clock;
}

describe("presenceHandler and PresenceFeed", () => {
  function presence(notInRoom?: string) {
    const flags = new Map([
      ["s1", false],
      ["s2", false],
    ]);
    const told: Array<[string, string, boolean]> = [];
    let pushes = 0;
    const clock = fakeClock();
    const feed = new PresenceFeed<string>(clock, { tell: (sid, who, on) => void told.push([sid, who, on]), push: () => void pushes++ });
    const rules: PresenceRules<string> = { away: (sid) => flags.get(sid), mark: (sid, away) => void flags.set(sid, away), who: (sid) => `name of ${sid}`, notInRoom };
    return { flags, told, clock, feed, pushes: () => pushes, away: presenceHandler("x_away", true, rules, feed), back: presenceHandler("x_returned", false, rules, feed) };
  }

  it("tells the others at once when quiet; a repeated message changes nothing", () => {
    const { flags, told, clock, away, back, pushes } = presence();
    const client = fakeClient("s1") as never;
    back(client);
    away(client);
    away(client);
    expect(flags.get("s1")).toBe(true);
    expect(told).toEqual([["s1", "name of s1", true]]);
    clock.advance(PRESENCE_FLUSH_MS);
    back(client);
    expect(told).toEqual([
      ["s1", "name of s1", true],
      ["s1", "name of s1", false],
    ]);
    expect(pushes()).toBe(2);
  });

  it("coalesces a toggler: one notice per flush for its net change, none when the changes cancel out", () => {
    const { flags, told, clock, away, back, pushes } = presence();
    const toggler = fakeClient("s1") as never;
    const other = fakeClient("s2") as never;
    away(toggler); // told at once
    for (let i = 0; i < 10; i++) {
      back(toggler);
      away(toggler);
    }
    away(other);
    expect(flags.get("s1")).toBe(true); // the flag itself follows every message
    expect(told).toEqual([["s1", "name of s1", true]]);
    clock.advance(PRESENCE_FLUSH_MS); // s1 is away as told: nothing about it; s2 is new
    expect(told).toEqual([
      ["s1", "name of s1", true],
      ["s2", "name of s2", true],
    ]);
    back(toggler);
    away(toggler);
    back(toggler);
    clock.advance(PRESENCE_FLUSH_MS - 1);
    expect(told).toHaveLength(2); // not before the interval is up
    clock.advance(1);
    expect(told.at(-1)).toEqual(["s1", "name of s1", false]);
    expect(pushes()).toBe(3);
    clock.advance(10 * PRESENCE_FLUSH_MS);
    expect(pushes()).toBe(3); // nothing changed: nothing pushed
  });

  it("forgets a member that left: nothing pending about it is told", () => {
    const { told, clock, feed, away } = presence();
    away(fakeClient("s1") as never);
    away(fakeClient("s2") as never); // pending: the first notice went out just now
    feed.forget("s2");
    clock.advance(PRESENCE_FLUSH_MS);
    expect(told).toEqual([["s1", "name of s1", true]]);
  });

  it("ignores a sender without a player, or answers not_in_room when the room says so", () => {
    const silent = presence();
    const a = fakeClient("s9");
    silent.away(a as never);
    expect(a.sent).toEqual([]);
    const strict = presence("You are not a player");
    const b = fakeClient("s9");
    strict.away(b as never);
    expect(errorsOf(b)).toEqual([{ code: "not_in_room", message: "You are not a player", type: "x_away" }]);
    expect([...silent.told, ...strict.told]).toEqual([]);
  });
});

describe("MessageGuard: a limit that cuts", () => {
  it("drops what is over the limit with one notice, then cuts a client that keeps on (an error, then 4002), logging info then warn", () => {
    const logs = captureLogs();
    const room = fakeRoom();
    let now = 0;
    const guard = new MessageGuard<Client, typeof schemas>(room as never, schemas, { log: logs.logger, now: () => now });
    let handled = 0;
    guard.on("report", () => void handled++, { limit: PRESENCE_RATE_LIMIT });
    const toggler = fakeClient("s1");
    const send = (client: FakeClient) => room.handlers.get("report")!(client, {});
    for (let i = 0; i < PRESENCE_RATE_LIMIT.burst + PRESENCE_RATE_LIMIT.cutAfter!; i++) send(toggler);
    expect(handled).toBe(PRESENCE_RATE_LIMIT.burst);
    expect(toggler.closedWith).toBeUndefined();
    expect(errorsOf(toggler)).toEqual([{ code: "rate_limited", message: "Too many messages: some were dropped", type: "report" }]);
    send(toggler);
    expect(toggler.closedWith).toBe(CloseCode.WITH_ERROR);
    expect(errorsOf(toggler).at(-1)).toEqual({ code: "rate_limited", message: "Too many presence messages: disconnected", type: "report" });
    send(toggler); // its last frames still arrive: nothing more is sent or logged
    expect(errorsOf(toggler)).toHaveLength(2);
    expect(logs.lines.map((l) => [l.level, l.msg, l.limit])).toEqual([
      [30, "rate limited a client's messages", "presence"],
      [40, "cut a client that kept sending over a limit", "presence"],
    ]);

    // A client within the limit's sustained rate is never cut, even after a burst.
    const steady = fakeClient("s2");
    for (let i = 0; i < 8; i++) send(steady);
    for (let second = 0; second < 30; second++) {
      now += 1000;
      send(steady);
      send(steady); // one over the rate each second: dropped, never cut
    }
    expect(steady.closedWith).toBeUndefined();
  });
});

describe("dismiss", () => {
  it("releases the seat first, then closes the connection as CONSENTED", async () => {
    const client = fakeClient("s1");
    const order: string[] = [];
    let finishRelease!: () => void;
    const released = new Promise<void>((resolve) => (finishRelease = resolve));
    const clients = { getById: (sid: string) => (sid === "s1" ? (client as never) : undefined) };
    const done = dismiss(clients, "s1", async () => {
      order.push("release");
      await released;
      order.push("released");
    });
    await Promise.resolve();
    expect(client.closedWith).toBeUndefined(); // still writing: the connection stays open
    finishRelease();
    await done;
    expect(order).toEqual(["release", "released"]);
    expect(client.closedWith).toBe(CloseCode.CONSENTED);
  });

  it("closes the connection the seat had when asked, and releases a seat with no connection", async () => {
    const client = fakeClient("s1");
    let connected = true;
    const clients = { getById: () => (connected ? (client as never) : undefined) };
    await dismiss(clients, "s1", async () => void (connected = false));
    expect(client.closedWith).toBe(CloseCode.CONSENTED);
    let released = false;
    await dismiss({ getById: () => undefined }, "s2", async () => void (released = true));
    expect(released).toBe(true);
  });
});

describe("chooseUpdates", () => {
  const patch = new Uint8Array([Protocol.ROOM_STATE_PATCH, 1]);
  const message = new Uint8Array([Protocol.ROOM_DATA, 1]);

  it('"messages": state patches are no longer sent to the client, everything else is', () => {
    const client = fakeClient();
    const readers = new StateReaders<Client>();
    chooseUpdates(client as never, "messages", readers);
    client.raw(patch);
    client.raw(message);
    expect(client.rawCodes).toEqual([Protocol.ROOM_DATA]);
    expect(readers.has(client as never)).toBe(false);
  });

  it('"state": the client joins the state readers (left out of mirror messages); nothing: both channels', () => {
    const reader = fakeClient("a");
    const both = fakeClient("b");
    const readers = new StateReaders<Client>();
    chooseUpdates(reader as never, "state", readers);
    chooseUpdates(both as never, undefined, readers);
    expect(readers.has(reader as never)).toBe(true);
    expect(readers.has(both as never)).toBe(false);
    both.raw(patch);
    expect(both.rawCodes).toEqual([Protocol.ROOM_STATE_PATCH]);
  });
});

describe("MessageGuard: the hard frame budget", () => {
  it("counts every frame before Colyseus reads it; a flood is cut once (an error, 4002, one info line naming its reason), later frames dropped unread", () => {
    const logs = captureLogs();
    let now = 0;
    const dispatched: number[] = [];
    const kicked: Array<[string, number]> = [];
    const room = {
      ...fakeRoom(),
      onMessageEvents: { events: {} },
      _onMessage: (_client: unknown, buffer: Uint8Array) => void dispatched.push(buffer[0]),
      kickClient(sid: string, code: number) {
        kicked.push([sid, code]);
        flooder.state = 4; // Colyseus marks a kicked client LEAVING at once
      },
    };
    const guard = new MessageGuard<Client, typeof schemas>(room as never, schemas, { log: logs.logger, now: () => now });
    guard.on("act", () => {});
    guard.on("resync", () => {});
    guard.on("report", () => {});
    guard.rejectUnknown();
    expect(room.maxMessagesPerSecond).toBe(Infinity); // Colyseus' count on arrival is off: the budget replaces it
    const flooder = Object.assign(fakeClient("s1"), { state: 1 });
    const frame = new Uint8Array([Protocol.ROOM_INPUT_UNRELIABLE]);
    room._onMessage(flooder, new Uint8Array([Protocol.JOIN_ROOM])); // its first frame: the join acknowledgement
    // A silence of 5 s: what arrives at once within 150/s × 5 s (plus the burst) passes.
    now = 5000;
    for (let i = 0; i < 750; i++) room._onMessage(flooder, frame);
    expect(dispatched).toHaveLength(751);
    expect(kicked).toEqual([]);
    // Frames keep coming at once: past the credit, the burst (112) passes, the next is cut.
    let n = 0;
    while (kicked.length === 0 && n < 10_000) {
      room._onMessage(flooder, frame);
      n++;
    }
    expect(n).toBe(113);
    expect(kicked).toEqual([["s1", CloseCode.WITH_ERROR]]);
    expect(errorsOf(flooder).at(-1)).toEqual({ code: "rate_limited", message: "More than 150 frames per second: disconnected" });
    for (let i = 0; i < 100; i++) room._onMessage(flooder, frame);
    expect(kicked).toHaveLength(1);
    const cuts = logs.lines.filter((l) => l.msg === "cut a client sending frames over its budget");
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toMatchObject({ level: 30, reason: "frame_flood", ratePerSecond: 150, burst: 112 });
  });
});
