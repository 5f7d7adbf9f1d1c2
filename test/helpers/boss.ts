// Helpers for boss battle tests: quick accounts with bullets, a recorder of every message a client
// receives (handlers must exist right after join, or early messages are lost), waiting on
// conditions with a deadline, and the server-side room instance.
import { matchMaker } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import type { TestApp } from "./app.js";

let counter = 0;

/** An account with a progress record holding `bullets`, without the cost of password hashing. */
export async function accountWithBullets(t: TestApp, bullets: number, name?: string) {
  const username = name ?? `boss${process.pid}_${++counter}`;
  const user = await t.prisma.user.create({ data: { username, passwordHash: "not-a-login-account" } });
  await t.prisma.gameProgress.upsert({ where: { userId: user.id }, create: { userId: user.id, totalBullets: bullets }, update: { totalBullets: bullets } });
  const cookie = `${t.config.jwtCookieName}=${await t.app.ctx.tokens.sign(user.id)}`;
  return { user: { id: user.id, username }, cookie };
}

export interface Received {
  type: string;
  payload: any;
  /** Date.now() on arrival. */
  at: number;
}

/** Records every message a client room receives, from the moment it is attached. */
export class MessageLog {
  readonly received: Received[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly room: SdkRoom) {
    room.onMessage("*", (type: string | number, payload: unknown) => {
      this.received.push({ type: String(type), payload, at: Date.now() });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  all(type: string): any[] {
    return this.received.filter((m) => m.type === type).map((m) => m.payload);
  }

  /** Forgets what was received so far (so later waits see only new messages). */
  clear(): void {
    this.received.length = 0;
  }

  /** The first message of `type` (matching `predicate`) received so far or within `timeoutMs`. */
  async waitFor(type: string, predicate: (payload: any) => boolean = () => true, timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.received.find((m) => m.type === type && predicate(m.payload));
      if (hit) return hit.payload;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no "${type}" message within ${timeoutMs} ms; received: ${this.received.map((m) => m.type).join(", ") || "nothing"}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** waitForMessage(room log, type, predicate?, timeoutMs) as a free function. */
export function waitForMessage(log: MessageLog, type: string, predicate?: (payload: any) => boolean, timeoutMs?: number): Promise<any> {
  return log.waitFor(type, predicate, timeoutMs);
}

/** Polls until `check` returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits a fixed time: only to show that something did NOT happen (or to let a wall-clock rate limit
 * refill); anything the room simulates is waited for with ./waits.ts.
 */
export async function settle(ms = 300): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

export function serverBossRoom(roomId: string): BossRoom {
  const room = matchMaker.getLocalRoomById(roomId) as BossRoom | undefined;
  if (!room) throw new Error(`no local boss room ${roomId}`);
  return room;
}

/** Joins a client room and starts recording its messages immediately. */
export async function joined(promise: Promise<SdkRoom>): Promise<{ room: SdkRoom; log: MessageLog }> {
  const room = await promise;
  return { room, log: new MessageLog(room) };
}
