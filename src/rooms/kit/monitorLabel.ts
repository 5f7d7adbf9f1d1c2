// Who a client is, for the operators' /monitor: its clients tab lists each client by the
// `sessionId` field of Room#getInspectData (@colyseus/monitor's ext/Room.cjs), and shows nothing
// else about it. The kit's rooms put a label there instead: the session id first, then the display
// name and the account id or "guest" (never a token, a cookie or an address). The monitor's
// "disconnect" and "send" actions hand that label back, so they are read by its first word.
import type { Client } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";

/** What a client's monitor row says: `sid · name · account <id>` or `sid · name · guest`. */
export function monitorLabel(sessionId: string, identity: Identity | undefined): string {
  if (!identity) return sessionId;
  return `${sessionId} · ${identity.username} · ${identity.kind === "account" ? `account ${identity.userId}` : "guest"}`;
}

/** The session id a monitor label (or a plain session id) starts with. */
export function sessionIdOfLabel(label: unknown): string {
  return String(label).split(" ")[0];
}

/** The identity the room's onAuth gave this client, if it keeps one (`auth.identity`). */
export function identityOf(client: Client): Identity | undefined {
  return (client.auth as { identity?: Identity } | undefined)?.identity;
}
