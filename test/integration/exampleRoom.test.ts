// The example room of docs/room-kit.md (test/example/TallyRoom.ts) on the real server, booted with
// @colyseus/testing: the documentation shows that file verbatim (checked here), and the room does
// what the page says.
import { readFileSync } from "node:fs";
import { defineRoom } from "@colyseus/core";
import type { Room as ClientRoom } from "@colyseus/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { TallyRoom, tapStore } from "../example/TallyRoom.js";

let t: TestApp;
const open: ClientRoom[] = [];
beforeAll(async () => {
  t = await startTestApp({}, { rooms: { tally: defineRoom(TallyRoom) } });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.connection.isOpen && r.leave()));
});
afterAll(() => t?.stop());

async function join(cookie?: string): Promise<ClientRoom> {
  const room = await t.sdk(cookie).joinOrCreate("tally", {});
  open.push(room);
  return room;
}
const serverRoom = (room: ClientRoom) => t.colyseus.getRoomById<TallyRoom>(room.roomId);
/** Resolves once the seat keeper has written everything it was given. */
const written = (room: TallyRoom) => room.seats.settled();

describe("the example room of docs/room-kit.md", () => {
  it("is the file the documentation shows, verbatim, and the page counts its lines", () => {
    const doc = readFileSync(new URL("../../docs/room-kit.md", import.meta.url), "utf8");
    const file = readFileSync(new URL("../example/TallyRoom.ts", import.meta.url), "utf8");
    const block = /<!-- example-room:start -->\n```ts\n([\s\S]*?)```\n<!-- example-room:end -->/.exec(doc);
    expect(block?.[1]).toBe(file);
    expect(doc).toContain(`(${file.split("\n").length - 1} lines)`);
  });

  it("tells everyone each new count, writes an account's taps when it leaves, and never a guest's", async () => {
    const acc = await t.account();
    const a = await join(acc.cookie);
    const guest = await join();
    const server = serverRoom(a);
    const both = () => Promise.all([a.waitForMessage("tally"), guest.waitForMessage("tally")]);
    let heard = both();
    a.send("tap", { times: 3 });
    expect(await heard).toEqual([{ sid: a.sessionId, taps: 3 }, { sid: a.sessionId, taps: 3 }]);
    heard = both();
    guest.send("tap", { times: 2 });
    expect(await heard).toEqual([{ sid: guest.sessionId, taps: 2 }, { sid: guest.sessionId, taps: 2 }]);
    heard = both();
    a.send("tap", { times: 1 });
    expect(await heard).toEqual([{ sid: a.sessionId, taps: 4 }, { sid: a.sessionId, taps: 4 }]);

    await a.leave();
    await written(server);
    expect(tapStore.totals.get(acc.user.id)).toBe(4);
    await guest.leave();
    await written(server);
    expect([...tapStore.totals.keys()]).toEqual([acc.user.id]);
  });

  it("answers a bad tap with an error and keeps the client", async () => {
    const a = await join();
    a.send("tap", { times: 100 });
    expect(await a.waitForMessage("error")).toMatchObject({ code: "invalid_payload", type: "tap" });
    a.send("tap", { times: 1 });
    expect(await a.waitForMessage("tally")).toEqual({ sid: a.sessionId, taps: 1 });
  });

  it("keeps a dropped account's seat: it comes back, counts on, and its taps are written once", async () => {
    const acc = await t.account();
    const a = await join(acc.cookie);
    const server = serverRoom(a);
    a.send("tap", { times: 2 });
    await a.waitForMessage("tally");
    await server.seats.checkpoint(); // while it plays: the 2 taps so far
    expect(tapStore.totals.get(acc.user.id)).toBe(2);

    a.reconnection.minUptime = 0;
    const back = new Promise<void>((resolve) => a.onReconnect(() => resolve()));
    // A network drop: the server side of the socket dies without a close frame (the client sees 1006).
    (server.clients.getById(a.sessionId)!.ref as unknown as { terminate(): void }).terminate();
    const greeted = a.waitForMessage("tally", 10_000);
    await back;
    expect(await greeted).toEqual({ sid: a.sessionId, taps: 2 });
    a.send("tap", { times: 5 });
    expect(await a.waitForMessage("tally")).toEqual({ sid: a.sessionId, taps: 7 });

    // The account cannot sit in a second live match meanwhile.
    expect((await t.sdk(acc.cookie).create("tally", {}).catch((e) => e)).code).toBe(409);
    await a.leave();
    await written(server);
    expect(tapStore.totals.get(acc.user.id)).toBe(7);
  });
});
