// Who is online now, and in which mode (issue 42: the teacher's dashboard). Every kit room keeps
// one field of the presence hash ONLINE_KEY, named by its room id: its mode and the accounts
// connected to it, each with the time it came. The room rewrites its field on every join and
// leave and deletes it when it is disposed. Colyseus' presence is Redis when scaled out, so a
// reader on any process sees every process's rooms. A field whose room is no longer in the
// matchmaker's listings (its process died without disposing it) is ignored and deleted by the reader.
import { matchMaker, type Presence } from "@colyseus/core";

export const ONLINE_KEY = "teachers:online";

/** The modes a dashboard names: every room type of the game. */
export const ONLINE_MODES = ["mode_select", "boss_lobby", "boss", "pvp", "slitherrush"] as const;
export type OnlineMode = (typeof ONLINE_MODES)[number];

/** When an account is in several rooms at once, the one it is playing in is named. */
const MODE_RANK: Record<string, number> = { boss: 5, pvp: 5, slitherrush: 5, boss_lobby: 2, mode_select: 1 };

export interface OnlineEntry {
  mode: string;
  /** When the account came into that room (ms since the epoch). */
  since: number;
}

interface RoomField {
  mode: string;
  /** account id → since (ms). */
  accounts: Record<string, number>;
}

/** One room's part of the hash: the accounts its connections belong to. */
export class RoomOnline {
  /** session id → account id, for connections of accounts (guests are nobody here). */
  private readonly sessions = new Map<string, { userId: number; since: number }>();
  private disposed = false;

  constructor(
    private readonly presence: Presence,
    private readonly roomId: string,
    private readonly mode: string,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  joined(sessionId: string, userId: number): void {
    if (this.sessions.has(sessionId) || this.disposed) return;
    this.sessions.set(sessionId, { userId, since: this.now() });
    this.write();
  }

  left(sessionId: string): void {
    if (!this.sessions.delete(sessionId) || this.disposed) return;
    this.write();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sessions.clear();
    this.presence.hdel(ONLINE_KEY, this.roomId).catch(this.onError);
  }

  /** The room's field as it is now (the earliest connection of an account names its since). */
  private field(): RoomField {
    const accounts: Record<string, number> = {};
    for (const { userId, since } of this.sessions.values()) {
      const key = String(userId);
      if (accounts[key] === undefined || since < accounts[key]) accounts[key] = since;
    }
    return { mode: this.mode, accounts };
  }

  private write(): void {
    const op = this.sessions.size === 0 ? this.presence.hdel(ONLINE_KEY, this.roomId) : this.presence.hset(ONLINE_KEY, this.roomId, JSON.stringify(this.field()));
    op.then(
      () => undefined,
      (err: unknown) => this.onError(err),
    );
  }
}

function parseField(raw: string): RoomField | undefined {
  try {
    const value = JSON.parse(raw) as RoomField;
    return typeof value?.mode === "string" && value.accounts && typeof value.accounts === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Picks the entry to show from an account's rooms: a game over a lobby, then the latest. */
export function preferredEntry(a: OnlineEntry | undefined, b: OnlineEntry): OnlineEntry {
  if (!a) return b;
  const ra = MODE_RANK[a.mode] ?? 0;
  const rb = MODE_RANK[b.mode] ?? 0;
  if (ra !== rb) return rb > ra ? b : a;
  return b.since > a.since ? b : a;
}

/**
 * Where each of `userIds` is online now (absent: not connected to any room). Reads the hash first
 * and the listings after, so a room created in between is never taken for a dead one.
 */
export async function onlineAccounts(userIds: readonly number[], presence: Presence = matchMaker.presence): Promise<Map<number, OnlineEntry>> {
  const wanted = new Set(userIds.map(String));
  const found = new Map<number, OnlineEntry>();
  if (wanted.size === 0) return found;
  const fields = (await presence.hgetall(ONLINE_KEY)) ?? {};
  const roomIds = Object.keys(fields);
  if (roomIds.length === 0) return found;
  const live = new Set((await matchMaker.query({})).map((r) => r.roomId));
  for (const roomId of roomIds) {
    if (!live.has(roomId)) {
      void presence.hdel(ONLINE_KEY, roomId).catch(() => undefined); // its process died: the field is stale
      continue;
    }
    const field = parseField(fields[roomId]);
    if (!field) continue;
    for (const [id, since] of Object.entries(field.accounts)) {
      if (!wanted.has(id) || typeof since !== "number") continue;
      const userId = Number(id);
      found.set(userId, preferredEntry(found.get(userId), { mode: field.mode, since }));
    }
  }
  return found;
}
