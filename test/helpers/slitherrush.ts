// Helpers for SlitherRush tests: a player (SDK room + message log + the client's rebuilt world),
// measured message rates, and the server-side arena instance.
import { matchMaker } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { SlitherRushWorld } from "../../src/protocol/slitherrushSnapshot.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";
import { MessageLog } from "./boss.js";

export interface SlitherPlayer {
  room: SdkRoom;
  log: MessageLog;
  sid: string;
  world: SlitherRushWorld;
  /** Arrival times (performance.now()) of every snapshot. */
  snapshotTimes: number[];
  /** Snapshots the client could not apply (must stay empty). */
  decodeErrors: unknown[];
  joined: any;
}

/** Joins and starts recording at once: every message, and every snapshot applied to a world. */
export async function slitherPlayer(promise: Promise<SdkRoom>): Promise<SlitherPlayer> {
  const room = await promise;
  const log = new MessageLog(room);
  const player: SlitherPlayer = { room, log, sid: room.sessionId, world: new SlitherRushWorld(), snapshotTimes: [], decodeErrors: [], joined: undefined };
  room.onMessage("slitherrush_state", (bytes: Uint8Array) => {
    player.snapshotTimes.push(performance.now());
    try {
      player.world.apply(bytes);
    } catch (err) {
      player.decodeErrors.push(err);
    }
  });
  player.joined = await log.waitFor("slitherrush_joined");
  return player;
}

export function serverArena(roomId: string): SlitherRushRoom {
  const room = matchMaker.getLocalRoomById(roomId) as SlitherRushRoom | undefined;
  if (!room) throw new Error(`no local slitherrush room ${roomId}`);
  return room;
}

/** Resolves once `count()` reaches `n`, checking on every message the player receives. */
export async function untilCount(p: SlitherPlayer, count: () => number, n: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (count() < n) {
    if (Date.now() > deadline) throw new Error(`timed out: ${count()} of ${n}`);
    await new Promise<void>((resolve) => {
      const off = p.room.onMessage("*", () => {
        off();
        resolve();
      });
      setTimeout(resolve, 100);
    });
  }
}

/** Events per second between the `from`-th and the `to`-th arrival. */
export function rate(times: number[], from: number, to: number): number {
  return ((to - from) * 1000) / (times[to] - times[from]);
}
