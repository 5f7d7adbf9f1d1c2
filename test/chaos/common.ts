// What the chaos test files share: SDK clients on a process, players that record every message
// and how their connection ended, an account's attempt at a second match, a steady 30 inputs/s
// sender, and the check that a process wrote nothing but JSON lines to stdout and nothing to stderr.
import { Client, MatchMakeError, type Room } from "@colyseus/sdk";
import { expect } from "vitest";
import { MessageLog } from "../helpers/boss.js";
import type { GameServer } from "./harness.js";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const sdk = (server: GameServer, cookie?: string) => new Client(server.base, cookie ? { headers: { cookie } } : undefined);

/** An account's attempt at a duel (the seat is taken when the room admits it): "seated in …", "refused <code> <message>" or "no answer: …". */
export async function secondMatch(server: GameServer, cookie: string): Promise<string> {
  try {
    const room = await sdk(server, cookie).joinOrCreate("pvp", {});
    await room.leave().catch(() => undefined);
    return `seated in pvp room ${room.roomId}`;
  } catch (err) {
    if (err instanceof MatchMakeError) return `refused ${err.code} ${err.message}`;
    return `no answer: ${(err as Error).message}`;
  }
}

export interface Player {
  name: string;
  room: Room;
  log: MessageLog;
  /** The close code, once the connection ended. */
  closed?: number;
  /** State patches received (onStateChange). */
  patches: number;
  lastMessageAt: number;
}

/** Follows a joined room: every message, every patch, and the close code. */
export function follow(name: string, room: Room): Player {
  const p: Player = { name, room, log: new MessageLog(room), patches: 0, lastMessageAt: Date.now() };
  room.onMessage("*", () => (p.lastMessageAt = Date.now()));
  room.onStateChange(() => {
    p.patches++;
    p.lastMessageAt = Date.now();
  });
  room.onLeave((code) => (p.closed = code));
  return p;
}

/** Sends `message()` as `type` 30 times a second (what /play sends) until stopped. */
export function sendSteadily(room: Room, type: string, message: () => unknown, perSecond = 30): () => void {
  const timer = setInterval(() => {
    if (room.connection.isOpen) room.send(type, message());
  }, 1000 / perSecond);
  return () => clearInterval(timer);
}

/** No line outside the JSON log: every stdout line one JSON object, stderr empty. */
export function quietness(servers: GameServer[]) {
  return servers.map((s) => ({ server: s.name, lines: s.lines.length, non_json: s.nonJsonLines().length, stderr_lines: s.stderr.split("\n").filter(Boolean).length }));
}

export function expectQuiet(servers: GameServer[]): void {
  for (const s of servers) {
    expect.soft(s.nonJsonLines().slice(0, 5), `${s.name}: stdout lines that are not JSON (first 5 of ${s.nonJsonLines().length})`).toEqual([]);
    expect.soft(s.stderr.slice(0, 2000), `${s.name}: stderr`).toBe("");
  }
}

/** The count of error lines (level >= 50) of each server since its mark. */
export function errorCounts(servers: GameServer[], marks: Map<GameServer, number>): Record<string, number> {
  return Object.fromEntries(servers.map((s) => [s.name, s.errorLines(marks.get(s) ?? 0).length]));
}
