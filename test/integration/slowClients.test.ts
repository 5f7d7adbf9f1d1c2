// Clients that stop reading, answer no pings, or never acknowledge their join cost the server a
// bounded amount (issue 30; src/net/transport.ts, src/net/heartbeat.ts): they are cut, their seats freed or
// held as documented, and a server stall cuts nobody. The clients are raw sockets (the load tests'
// lean client), which can stop reading and send what they like.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import { Client as SdkClient } from "@colyseus/sdk";
import { defineRoom, Room, type Client } from "@colyseus/core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { accountWithBullets, eventually, serverBossRoom } from "../helpers/boss.js";
import { LeanRoom, messagePrefix, type JoinOptions } from "../../loadtest/harness/leanClient.js";
import { Recorder } from "../../loadtest/harness/recorder.js";
import { BACKLOG_FULL, JOIN_NOT_ACKNOWLEDGED } from "../../src/protocol/closeCodes.js";
import { JOIN_ACK_TIMEOUT_MS } from "../../src/net/connectionLink.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";
import { watchLink } from "../../web/play/src/net.js";

const CAP = 256 * 1024;
/** Close codes the test room was told, by session. */
const leaveCodes = new Map<string, number>();

class FloodRoom extends Room {
  messages = {
    // `n` messages of 64 KiB to the sender
    burst: (client: Client, n: number) => {
      for (let i = 0; i < n; i++) client.send("chunk", "z".repeat(64 * 1024));
    },
  };
  onJoin(_client: Client, options: { stallMs?: number }) {
    // Stalls the whole process right after this client's JOIN_ROOM is queued: its acknowledgement
    // can only be read after the stall, when the join's timer has expired.
    if (options.stallMs) setImmediate(() => busy(options.stallMs!));
  }
  onLeave(client: Client, code?: number) {
    leaveCodes.set(client.sessionId, code ?? -1);
  }
}

/** A room that keeps a dropped client's seat 20 s, as the game rooms do. */
const drops: string[] = [];
class KeepRoom extends Room {
  messages = { hello: () => undefined };
  async onDrop(client: Client) {
    drops.push(client.sessionId);
    await this.allowReconnection(client, 20).catch(() => undefined);
  }
}

/**
 * A TCP proxy whose link can go dark: bytes in either direction vanish (no close, no reset: a
 * tunnel, a dead Wi-Fi); connections tried meanwhile fail, until the link returns.
 */
async function darkableLink(targetPort: number) {
  let dark = false;
  const orphans = new Set<Socket>();
  const server: Server = createServer((near) => {
    near.on("error", () => undefined);
    const start = () => {
      const far = connect(targetPort, "127.0.0.1");
      far.on("error", () => undefined);
      near.on("data", (d) => void (dark || far.write(d)));
      far.on("data", (d) => void (dark || near.write(d)));
      far.on("close", () => (dark ? orphans.add(near) : near.destroy()));
      near.on("close", () => far.destroy());
    };
    if (dark) near.destroy(); // no route: the attempt fails, and the SDK tries again later
    else start();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    goDark: () => void (dark = true),
    light() {
      dark = false;
      for (const socket of orphans) socket.destroy();
      orphans.clear();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a server that cannot run (SIGSTOP, a long GC)
  }
}

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs("info");
  t = await startTestApp({ maxClientBacklogBytes: CAP }, { rooms: { flood: defineRoom(FloodRoom), keep: defineRoom(KeepRoom) }, logger: logs.logger });
});
afterAll(() => t?.stop());

type Extra = Pick<JoinOptions, "acknowledge" | "onPing" | "on">;
const lean = (method: JoinOptions["method"], name: string, options: Record<string, unknown> = {}, cookie?: string, extra: Extra = {}) =>
  LeanRoom.join({ base: t.baseUrl, method, name, options, recorder: new Recorder(), headers: cookie ? { cookie } : undefined, ...extra });

/** Stops reading (the kernel's buffers fill, then the server's) but keeps writing: unsolicited pongs every 2 s. */
function stopReading(room: LeanRoom): () => void {
  room.stopReading();
  const pongs = setInterval(() => room.pong(randomBytes(8)), 2000);
  return () => clearInterval(pongs);
}

const linesLike = (msg: RegExp, from = 0) => logs.lines.slice(from).filter((l) => msg.test(l.msg));

describe("a client that does not read", () => {
  it("is cut (4005) once the bytes the server holds for it would pass the cap, with one warn line; the others are untouched", async () => {
    const chunks: number[] = [];
    const reader = await lean("joinOrCreate", "flood", {}, undefined, { on: { chunk: (_b, s, e) => chunks.push(e - s) } });
    const stalled = await lean("joinById", reader.roomId);
    const from = logs.lines.length;
    const stop = stopReading(stalled);
    const started = Date.now();
    const burst = messagePrefix("burst");
    // 256 KiB a request, 5 MiB/s: the kernel's buffers take a few MiB, then the server would hold the rest
    try {
      await eventually(() => {
        stalled.send(burst, 4);
        return leaveCodes.get(stalled.sessionId);
      }, "the stalled client cut", 8000);
    } finally {
      stop();
    }
    expect(leaveCodes.get(stalled.sessionId)).toBe(BACKLOG_FULL);
    expect(Date.now() - started).toBeLessThan(6000); // before the heartbeat (6–9 s) would have
    const warned = linesLike(/does not read what the server sends/, from);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, sid: stalled.sessionId, code: BACKLOG_FULL, maxBytes: CAP });
    // held at most the cap, plus one turn's frames written while the kernel still took bytes
    expect((warned[0].heldBytes as number) + (warned[0].refusedBytes as number)).toBeGreaterThan(CAP);
    expect(warned[0].heldBytes as number).toBeLessThan(CAP + 4 * 66 * 1024);
    reader.send(burst, 1);
    await eventually(() => chunks.length > 0, "the reader's chunk");
    expect(chunks[0]).toBeGreaterThan(64 * 1024);
    await reader.leave(true);
    await stalled.leave();
  });

  it("is cut by the heartbeat in 6–9 s whatever unsolicited pongs it sends, also while requesting 25 times a second (boss)", async () => {
    const accounts = await Promise.all([0, 1, 2, 3].map(() => accountWithBullets(t, 50)));
    const first = await t.joinNewRoom("boss", { bullets: 20 }, accounts[0].cookie);
    const server = serverBossRoom(first.roomId);
    const dark = await Promise.all(accounts.slice(1).map((a) => lean("joinById", first.roomId, { bullets: 20 }, a.cookie)));
    const from = logs.lines.length;
    const stops = dark.map(stopReading);
    const getPlayers = messagePrefix("boss_get_players");
    const requests = setInterval(() => dark.forEach((room) => room.send(getPlayers, {})), 40);
    const started = Date.now();
    const cutAt = new Map<string, number>();
    try {
      await eventually(
        () => {
          for (const room of dark) if (!cutAt.has(room.sessionId) && server.seats.get(room.sessionId)?.away) cutAt.set(room.sessionId, Date.now() - started);
          return cutAt.size === dark.length;
        },
        "every dark player cut",
        15_000,
      );
    } finally {
      clearInterval(requests);
      stops.forEach((stop) => stop());
    }
    for (const ms of cutAt.values()) {
      expect(ms).toBeGreaterThanOrEqual(5500);
      expect(ms).toBeLessThan(10_500);
    }
    const cut = linesLike(/did not answer the server's pings/, from);
    expect(cut.map((l) => l.sid).sort()).toEqual(dark.map((r) => r.sessionId).sort());
    // a dropped connection (1006): seats held for the reconnection window; the player who reads stays
    expect(server.clients.some((c) => c.sessionId === first.sessionId)).toBe(true);
    await first.leave();
    await Promise.all(dark.map((room) => room.leave()));
  }, 30_000);
});

describe("a client that never acknowledges its join", () => {
  it("is closed (4006) and its seat freed within the join time", async () => {
    const from = logs.lines.length;
    const silent = await lean("joinOrCreate", "slitherrush", { name: "silent" }, undefined, { acknowledge: false });
    const joinedAt = Date.now();
    const server = serverBossRoom(silent.roomId) as unknown as SlitherRushRoom;
    const seats = () => (server as unknown as { seats: { get(sid: string): unknown } }).seats;
    expect(seats().get(silent.sessionId)).toBeDefined();
    await eventually(() => silent.isClosed, "the silent client closed", JOIN_ACK_TIMEOUT_MS + 3000);
    const waited = Date.now() - joinedAt;
    expect(waited).toBeGreaterThanOrEqual(JOIN_ACK_TIMEOUT_MS - 500);
    expect(seats().get(silent.sessionId)).toBeUndefined();
    const cut = linesLike(/did not acknowledge its join/, from);
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ sid: silent.sessionId, code: JOIN_NOT_ACKNOWLEDGED });
  }, 20_000);
});

describe("a server stall", () => {
  it("of 10 s cuts nobody: not the players through the heartbeat, not a join whose acknowledgement waits in the read buffer", async () => {
    const from = logs.lines.length;
    let pings = 0;
    const onPing = () => void pings++;
    const steady = await lean("joinOrCreate", "flood", {}, undefined, { onPing });
    const peers = await Promise.all([0, 1].map(() => lean("joinById", steady.roomId)));
    await eventually(() => pings >= 1, "a heartbeat round", 5000);
    const joining = await lean("joinById", steady.roomId, { stallMs: JOIN_ACK_TIMEOUT_MS + 500 });
    const everyone = [steady, ...peers, joining];
    // two more rounds after the stall: every client answered, nobody cut
    const seen = pings;
    await eventually(() => pings >= seen + 2, "two heartbeat rounds after the stall", 10_000);
    expect(linesLike(/^cut a client/, from)).toEqual([]);
    for (const room of everyone) {
      expect(room.isClosed).toBe(false);
      expect(leaveCodes.has(room.sessionId)).toBe(false);
    }
    await Promise.all(everyone.map((room) => room.leave(true)));
  }, 40_000);
});

describe("a dead link, client side", () => {
  it("the /play heartbeat notices it within 5 s, and the SDK reconnects into the seat when it returns", async () => {
    const link = await darkableLink(t.port);
    const room = await new SdkClient(`ws://127.0.0.1:${link.port}`).joinOrCreate("keep");
    await new Promise((resolve) => room.ping(resolve)); // the join's acknowledgement went through the link
    room.reconnection.minUptime = 0; // the SDK reconnects only rooms joined 5 s ago; this one is new
    const stop = watchLink(room);

    const sid = room.sessionId;
    const dropped = new Promise<number>((resolve) => room.onDrop(() => resolve(performance.now())));
    const reconnected = new Promise<void>((resolve) => room.onReconnect(() => resolve()));
    link.goDark();
    const darkAt = performance.now();
    const noticedMs = (await dropped) - darkAt;
    expect(noticedMs).toBeGreaterThan(2500);
    expect(noticedMs).toBeLessThanOrEqual(5000);
    // the server cuts its side 6–9 s into the outage and holds the seat; then the link returns
    await eventually(() => drops.includes(sid), "the server's cut", 12_000);

    link.light();
    await reconnected;
    expect(room.sessionId).toBe(sid);
    expect(await new Promise((resolve) => room.ping(resolve))).toBeTypeOf("number");
    stop();
    await room.leave();
    await link.close();
  }, 40_000);
});

