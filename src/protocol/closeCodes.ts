// The WebSocket close codes a client of this server meets, Colyseus' and our own, in one list
// (docs/messages.md "Close codes"). Clients can import this module.

/** The client left (its own `leave()`, a leave message, or a room dismissing it). */
export const CONSENTED = 4000;
/** The process is stopping: matchmake again (after `server_draining`). */
export const SERVER_SHUTDOWN = 4001;
/** The client broke a rule: a frame that does not decode, a flood; no reconnection window. */
export const WITH_ERROR = 4002;
/** A reconnection was refused (its window ran out). */
export const FAILED_TO_RECONNECT = 4003;
/**
 * The client did not read what the server sent: the bytes held for it passed
 * MAX_CLIENT_BACKLOG_BYTES. No reconnection window; join again.
 */
export const BACKLOG_FULL = 4005;
/** The client did not acknowledge its join (JOIN_ROOM) within 10 s: its seat is freed. */
export const JOIN_NOT_ACKNOWLEDGED = 4006;
/**
 * The session the connection came with ended: a sign-out, the operator's `logout-user`, a new
 * password, or its token's expiry. The seat was written and freed; sign in again and join.
 */
export const SESSION_ENDED = 4007;
/**
 * A teacher or an admin locked the account: an `error` (code `account_locked`) comes first, the close
 * reason says so too. The seat was written and freed, as on a leave; signing in is refused until unlocked.
 */
export const ACCOUNT_LOCKED = 4008;
/** The SDK reconnects into its seat on this code (and on 1006 and 1001, a dropped connection). */
export const MAY_TRY_RECONNECT = 4010;
