// Helpers for PvP tests: duelists (an SDK room with a message log), the server-side room, waiting
// for the next message of a type or the next simulation tick, and a battle started by both readying.
import { matchMaker } from "@colyseus/core";
import { Client as SdkClient, type Room as SdkRoom } from "@colyseus/sdk";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import type { PvpRoomType } from "../../src/protocol/pvp.js";
import type { TestApp } from "./app.js";
import { eventually, MessageLog } from "./boss.js";

export interface Duelist {
  room: SdkRoom;
  log: MessageLog;
  sid: string;
  /** How often this duelist followed a pvp_requeue into another room. */
  moves: number;
  /** Set by leaveAll: no more following. */
  done?: boolean;
}

// A duelist's log listens from the moment the SDK creates the room, before the join completes: a
// message the server sends right after the join (pvp_requeue, the room state) can reach a busy test
// process in the same read as the join acknowledgement, and the SDK drops a message nobody listens
// to yet, before the code after `await join` could attach a log.
const logsFromTheStart = new WeakMap<SdkRoom, MessageLog>();
const sdkCreateRoom = (SdkClient.prototype as unknown as { createRoom: (...args: unknown[]) => SdkRoom }).createRoom;
(SdkClient.prototype as unknown as { createRoom: (...args: unknown[]) => SdkRoom }).createRoom = function (this: SdkClient, ...args: unknown[]) {
  const room = sdkCreateRoom.apply(this, args);
  logsFromTheStart.set(room, new MessageLog(room));
  return room;
};
const logOf = (room: SdkRoom): MessageLog => logsFromTheStart.get(room) ?? new MessageLog(room);

/** Every duelist a test made, so the file can leave them all between tests. */
const everyone = new Set<Duelist>();

/**
 * A duelist from a join. With `rejoin`, it does what the protocol asks of a client on
 * pvp_requeue: once the server closed the connection, it joins again (room, log and sid change).
 */
export async function duelist(promise: Promise<SdkRoom>, rejoin?: () => Promise<SdkRoom>): Promise<Duelist> {
  const room = await promise;
  const d: Duelist = { room, log: logOf(room), sid: room.sessionId, moves: 0 };
  everyone.add(d);
  if (rejoin) follow(d, rejoin);
  return d;
}

function follow(d: Duelist, rejoin: () => Promise<SdkRoom>): void {
  const room = d.room;
  room.onLeave(async (code) => {
    if (code !== 4000 || d.done || d.room !== room || d.log.all("pvp_requeue").length === 0) return;
    const next = await rejoin();
    Object.assign(d, { room: next, log: logOf(next), sid: next.sessionId, moves: d.moves + 1 });
    if (d.done) await next.leave();
    else follow(d, rejoin);
  });
}

/** Quick play: `joinOrCreate("pvp")`, following pvp_requeue; a guest with 30 bullets unless a cookie or options say otherwise. */
export const quickPlay = (t: TestApp, cookie?: string, options: Record<string, unknown> = { bullets: 30 }) => {
  const join = () => t.sdk(cookie).joinOrCreate<PvpRoomType>("pvp", options);
  return duelist(join(), join);
};

/** Leaves every duelist still connected and waits until no pvp room is left. */
export async function leaveAll(): Promise<void> {
  for (const d of everyone) d.done = true;
  await Promise.all([...everyone].map((d) => (d.room.connection.isOpen ? d.room.leave().catch(() => undefined) : undefined)));
  everyone.clear();
  await eventually(async () => (await matchMaker.query({ name: "pvp" })).length === 0, "every pvp room closed");
}

export function serverPvpRoom(roomId: string): PvpRoom {
  const room = matchMaker.getLocalRoomById(roomId) as PvpRoom | undefined;
  if (!room) throw new Error(`no local pvp room ${roomId}`);
  return room;
}

/** The next message of `type` received after this call. */
export function nextMessage(d: Duelist, type: string, timeoutMs?: number): Promise<any> {
  const before = new Set(d.log.all(type));
  return d.log.waitFor(type, (p) => !before.has(p), timeoutMs);
}

/** Resolves at the room's next simulation tick (its clock ticks once per step). */
export function nextTick(server: PvpRoom): Promise<void> {
  return new Promise((resolve) => server.clock.setTimeout(resolve, 0));
}

/** Two duelists readying in turn; resolves once both received pvp_battle_start. */
export async function startBattle(a: Duelist, b: Duelist): Promise<{ matchId: string }> {
  const started = [nextMessage(a, "pvp_battle_start"), nextMessage(b, "pvp_battle_start")];
  a.room.send("pvp_ready", {});
  b.room.send("pvp_ready", {});
  const [start] = await Promise.all(started);
  return { matchId: start.match_id };
}

/** A pair in one room: a is P1, b is P2. */
export async function pair(t: TestApp, cookies: [string?, string?] = [], options: Array<Record<string, unknown>> = []) {
  const a = await quickPlay(t, cookies[0], options[0]);
  const b = await duelist(t.sdk(cookies[1]).joinById(a.room.roomId, options[1] ?? { bullets: 30 }));
  await Promise.all([a.log.waitFor("pvp_match_ready"), b.log.waitFor("pvp_match_ready")]);
  return { a, b, server: serverPvpRoom(a.room.roomId) };
}

/** Puts P1 and P2 face to face at the wall (x 366 and 434, y 300), so a shot lands within a tick. */
export function faceToFace(server: PvpRoom): void {
  for (const p of server.arena.players.values()) {
    p.x = p.number === 1 ? 366 : 434;
    p.y = 300;
  }
}
