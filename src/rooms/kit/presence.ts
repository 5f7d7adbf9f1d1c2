// Presence: who is here, away or back (a page's visibility, sent by the original clients as
// <mode>_player_away / <mode>_player_returned), in or out of a lobby's member list. One member's
// change reaches every other member, so what a member's toggling makes the others receive is
// bounded here, once for every room:
// - each change counts against the sender's PRESENCE_RATE_LIMIT (./guard.ts: 5 at once, 1 per
//   second; a member that keeps toggling past it is cut);
// - the notices are coalesced (PresenceFeed): they go out at most every PRESENCE_FLUSH_MS, a
//   member's changes since the last flush make one notice, or none when they cancel out (away and
//   back again), and a room's member list and count are pushed once per flush.
// The flag itself (and the synchronized state mirroring it) changes at once: only the telling waits.
import type { Client } from "@colyseus/core";
import { ErrorCodes } from "../../protocol/common.js";
import { sendError } from "./guard.js";

/** Presence notices, member lists and counts go out at most this often (the first one at once). */
export const PRESENCE_FLUSH_MS = 500;

/** The part of a room's clock the feed uses. */
export interface FeedClock {
  currentTime: number;
  setTimeout(callback: () => void, ms: number): unknown;
}

export interface FeedRules<W> {
  /** Tells the others that `sid` (named by `who`) is now `on` (away; a lobby member). */
  tell(sid: string, who: W, on: boolean): void;
  /** Pushes the room's list and count, when anything changed since the last flush. */
  push?(): void;
}

interface Entry<W> {
  who: W;
  /** The flag now. */
  on: boolean;
  /** The flag the others were last told. */
  told: boolean;
}

/** The coalesced notices of one room. Every flag starts off (not away; not a member). */
export class PresenceFeed<W> {
  /** Members whose flag is on or not told yet (an entry back off and told is dropped). */
  private readonly entries = new Map<string, Entry<W>>();
  private lastFlush = -Infinity;
  private pending = false;
  private dirty = false;

  constructor(
    private readonly clock: FeedClock,
    private readonly rules: FeedRules<W>,
    private readonly intervalMs = PRESENCE_FLUSH_MS,
  ) {}

  /** `sid`'s flag changed to `on`; `who` is how the notice names it. */
  set(sid: string, who: W, on: boolean): void {
    const entry = this.entries.get(sid);
    if (entry) {
      entry.who = who;
      entry.on = on;
    } else this.entries.set(sid, { who, on, told: false });
    this.touch();
  }

  /** The list changed without a notice (e.g. a member's character). */
  touch(): void {
    this.dirty = true;
    if (this.pending) return;
    const wait = this.lastFlush + this.intervalMs - this.clock.currentTime;
    if (wait <= 0) return this.flush();
    this.pending = true;
    this.clock.setTimeout(this.flush, wait);
  }

  /** `sid` left the room and the room says so itself: nothing pending about it is told. */
  forget(sid: string): void {
    this.entries.delete(sid);
  }

  private readonly flush = (): void => {
    this.pending = false;
    this.lastFlush = this.clock.currentTime;
    if (!this.dirty) return;
    this.dirty = false;
    for (const [sid, entry] of this.entries) {
      if (entry.on !== entry.told) {
        entry.told = entry.on;
        this.rules.tell(sid, entry.who, entry.on);
      }
      if (!entry.on) this.entries.delete(sid);
    }
    this.rules.push?.();
  };
}

export interface PresenceRules<W> {
  /** The sender's flag now, or undefined when it has no player here. */
  away(sid: string): boolean | undefined;
  /** Sets the flag (and whatever mirrors it, e.g. the synchronized state). */
  mark(sid: string, away: boolean): void;
  /** How the notice names the sender (e.g. its username). */
  who(sid: string): W;
  /** The `error` text (code `not_in_room`) for a sender without a player; unset: ignored silently. */
  notInRoom?: string;
}

/**
 * The handler of `type`: `away` true for the away message, false for the returned one. Register it
 * with PRESENCE_RATE_LIMIT; the feed tells the others.
 */
export function presenceHandler<C extends Client, W>(type: string, away: boolean, rules: PresenceRules<W>, feed: PresenceFeed<W>): (client: C) => void {
  return (client) => {
    const sid = client.sessionId;
    const now = rules.away(sid);
    if (now === undefined) return rules.notInRoom === undefined ? undefined : sendError(client, ErrorCodes.notInRoom, rules.notInRoom, type);
    if (now === away) return;
    rules.mark(sid, away);
    feed.set(sid, rules.who(sid), away);
  };
}
