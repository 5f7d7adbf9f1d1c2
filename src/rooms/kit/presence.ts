// "I switched away from the game" / "I am back" (the page's visibility, sent by the original
// clients as <mode>_player_away / <mode>_player_returned): the player's flag changes and the other
// players hear it, once per change; a repeated message changes nothing and tells no one.
import type { Client } from "@colyseus/core";
import { ErrorCodes } from "../../protocol/common.js";
import { sendError } from "./guard.js";

export interface PresenceRules<C extends Client, T extends string> {
  /** The sender's flag now, or undefined when it has no player here. */
  away(sid: string): boolean | undefined;
  /** Sets the flag (and whatever mirrors it, e.g. the synchronized state). */
  mark(sid: string, away: boolean): void;
  /** Tells the others, as message `type` (the room's outbound message of the same name). */
  tell(sender: C, type: T, away: boolean): void;
  /** The `error` text (code `not_in_room`) for a sender without a player; unset: ignored silently. */
  notInRoom?: string;
}

/** The handler of `type`: `away` true for the away message, false for the returned one. */
export function presenceHandler<C extends Client, T extends string>(type: T, away: boolean, rules: PresenceRules<C, T>): (client: C) => void {
  return (client) => {
    const now = rules.away(client.sessionId);
    if (now === undefined) return rules.notInRoom === undefined ? undefined : sendError(client, ErrorCodes.notInRoom, rules.notInRoom, type);
    if (now === away) return;
    rules.mark(client.sessionId, away);
    rules.tell(client, type, away);
  };
}
