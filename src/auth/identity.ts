// Who is behind a request or a room connection.
import { randomBytes } from "node:crypto";
import { readCookie } from "./cookies.js";
import type { Logger } from "../ops/logger.js";
import type { SessionRegistry } from "./sessions.js";
import type { TokenService } from "./tokens.js";

export interface AccountIdentity {
  kind: "account";
  userId: number;
  username: string;
  guest: false;
  /**
   * The session the connection came with: its room connections and seats end with it
   * (src/rooms/kit/sessionSeats.ts). Plain numbers and strings: it travels between processes.
   */
  session?: BoundSession;
}

/** What a room keeps of a connection's session: enough to ask whether it is still live. */
export interface BoundSession {
  /** Absent in tokens from before sessions were revocable. */
  sid?: string;
  epoch: number;
  /** The database's authentication generation it was issued under ("" before any restore; absent in older bindings). */
  generation?: string;
  /** The token's exp, in ms since the epoch. */
  expiresAtMs: number;
}
export interface GuestIdentity {
  kind: "guest";
  userId: null;
  /** Sanitised display name, always ending in " (guest)" so nobody passes for an account. */
  username: string;
  /** Random per connection; guests are never persisted. */
  guestId: string;
  guest: true;
}
export type Identity = AccountIdentity | GuestIdentity;

export const MAX_DISPLAY_NAME = 24;

/** Strips control and formatting characters, collapses whitespace, bounds the length. */
export function sanitizeDisplayName(raw: unknown, fallback = "Guest"): string {
  if (typeof raw !== "string") return fallback;
  const clean = raw
    .normalize("NFKC")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_DISPLAY_NAME)
    .trim();
  return clean || fallback;
}

export function guestIdentity(requestedName: unknown): GuestIdentity {
  return {
    kind: "guest",
    userId: null,
    username: `${sanitizeDisplayName(requestedName)} (guest)`,
    guestId: randomBytes(8).toString("hex"),
    guest: true,
  };
}

/**
 * What checking a session cookie needs. The application context (src/context.ts) provides it;
 * auth/ names only what it uses, so it never imports the context that is built from it.
 */
export interface SessionCheck {
  config: { jwtCookieName: string };
  tokens: TokenService;
  sessions: SessionRegistry;
  logger: Pick<Logger, "debug">;
  /** Told of every authenticated request (its teachers' "last seen"); absent in contexts built for a test. */
  lastSeen?: { touch(userId: number): void };
}

/**
 * Resolves the session cookie of a WebSocket upgrade / matchmake request, for a room's onAuth.
 * An account when the cookie carries a valid token of a live session; otherwise a guest (absent,
 * expired, invalid or ended sessions all fall back to guest play, which is never persisted).
 */
export async function resolveRoomIdentity(
  ctx: SessionCheck,
  cookieHeader: string | null | undefined,
  requestedName?: unknown,
): Promise<Identity> {
  const token = readCookie(cookieHeader, ctx.config.jwtCookieName);
  if (token) {
    const check = ctx.tokens.verify(token);
    if (check.status === "ok") {
      const session = await ctx.sessions.check({ kind: "account", id: check.uid }, check);
      if (session.ok) {
        const bound: BoundSession = { epoch: check.epoch, generation: check.generation ?? "", expiresAtMs: check.expiresAt.getTime(), ...(check.sid === undefined ? {} : { sid: check.sid }) };
        return { kind: "account", userId: check.uid, username: session.subject.username, guest: false, session: bound };
      }
    }
    ctx.logger.debug({ status: check.status }, "room auth: unusable session cookie, joining as guest");
  }
  return guestIdentity(requestedName);
}
