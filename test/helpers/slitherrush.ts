// Helpers for SlitherRush tests: a player (SDK room, message log, the client's rebuilt world and
// every decoded snapshot), waiting on conditions that are checked on each arrival, measured rates,
// and the server-side arena instance.
import { matchMaker } from "@colyseus/core";
import { MatchMakeError, type Room as SdkRoom } from "@colyseus/sdk";
import { SlitherRushWorld, type DecodedSnapshot } from "../../src/protocol/slitherrushSnapshot.js";
import type { SlitherRushRoom } from "../../src/rooms/slitherrush/SlitherRushRoom.js";
import { MessageLog } from "./boss.js";

export interface SlitherPlayer {
  room: SdkRoom;
  /** Every message but the snapshots. */
  log: MessageLog;
  sid: string;
  world: SlitherRushWorld;
  /** Every snapshot as decoded, and its arrival time (performance.now()). */
  snapshots: DecodedSnapshot[];
  snapshotTimes: number[];
  /** Snapshots the client could not apply (must stay empty). */
  decodeErrors: unknown[];
  joined: any;
  /** Resolves when `check()` holds, checked on every message; fails after `timeoutMs`. */
  until(check: () => unknown, what: string, timeoutMs?: number): Promise<void>;
}

/** Joins and starts recording at once: every message, and every snapshot applied to a world. */
export async function slitherPlayer(promise: Promise<SdkRoom>): Promise<SlitherPlayer> {
  const room = await promise;
  const log = new MessageLog(room);
  const wakers = new Set<() => void>();
  const wake = () => wakers.forEach((w) => w());
  const player: SlitherPlayer = {
    room,
    log,
    sid: room.sessionId,
    world: new SlitherRushWorld(),
    snapshots: [],
    snapshotTimes: [],
    decodeErrors: [],
    joined: undefined,
    async until(check, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            wakers.delete(done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, 250));
          wakers.add(done);
        });
      }
    },
  };
  room.onMessage("slitherrush_state", (bytes: Uint8Array) => {
    player.snapshotTimes.push(performance.now());
    try {
      player.snapshots.push(player.world.apply(bytes));
    } catch (err) {
      player.decodeErrors.push(err);
    }
    wake();
  });
  room.onMessage("*", () => wake());
  player.joined = await log.waitFor("slitherrush_joined");
  return player;
}

export function serverArena(roomId: string): SlitherRushRoom {
  const room = matchMaker.getLocalRoomById(roomId) as SlitherRushRoom | undefined;
  if (!room) throw new Error(`no local slitherrush room ${roomId}`);
  return room;
}

/** Waits for `n` more snapshots than the player has now. */
export async function moreSnapshots(p: SlitherPlayer, n: number): Promise<number> {
  const from = p.snapshotTimes.length;
  await p.until(() => p.snapshotTimes.length >= from + n, `${n} more snapshots`);
  return from;
}

/** Events per second between the `from`-th and the `to`-th arrival. */
export function rate(times: number[], from: number, to: number): number {
  return ((to - from) * 1000) / (times[to] - times[from]);
}

/** docs/messages.md's client: a join retried with backoff (250 ms doubling, up to 8 s) on 503 only. */
export async function retryLikeTheDocs<T>(join: () => Promise<T>, wait = 250): Promise<T> {
  try {
    return await join();
  } catch (err) {
    if ((err instanceof MatchMakeError && err.code !== 503) || wait > 8000) throw err;
    await new Promise((r) => setTimeout(r, wait));
    return retryLikeTheDocs(join, wait * 2);
  }
}
