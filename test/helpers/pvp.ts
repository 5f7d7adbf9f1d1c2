// Helpers for PvP tests: duelists (an SDK room with a message log), the server-side room, waiting
// for the next message of a type or the next simulation tick, and a battle started by both readying.
import { matchMaker } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import type { PvpRoomType } from "../../src/protocol/pvp.js";
import type { TestApp } from "./app.js";
import { eventually, MessageLog } from "./boss.js";

export interface Duelist {
  room: SdkRoom;
  log: MessageLog;
  sid: string;
}

/** Every duelist a test made, so the file can leave them all between tests. */
const everyone = new Set<Duelist>();

export async function duelist(promise: Promise<SdkRoom>): Promise<Duelist> {
  const room = await promise;
  const d = { room, log: new MessageLog(room), sid: room.sessionId };
  everyone.add(d);
  return d;
}

/** Quick play: `joinOrCreate("pvp")`, as a guest with 30 bullets unless a cookie or options say otherwise. */
export const quickPlay = (t: TestApp, cookie?: string, options: Record<string, unknown> = { bullets: 30 }) =>
  duelist(t.sdk(cookie).joinOrCreate<PvpRoomType>("pvp", options));

/** Leaves every duelist still connected and waits until no pvp room is left. */
export async function leaveAll(): Promise<void> {
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
