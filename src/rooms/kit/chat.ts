// A game room's chat: a player's line goes, sanitised (src/game/chat.ts), to everyone else in the
// room; the sender is answered with an `error` when it has no player here or nothing is left of its
// text, or when a teacher or an admin muted its account (then nobody else sees the line). Register
// the handler with the guard's CHAT_RATE_LIMIT.
import type { Client } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import { appContext } from "../../context.js";
import { sanitizeChatText } from "../../game/chat.js";
import { ErrorCodes } from "../../protocol/common.js";
import { sendError } from "./guard.js";

/** Who speaks: the player's name and character as the others see them. */
export interface Speaker {
  username: string;
  character: string;
}

/** A chat line as relayed (rooms add their own fields, e.g. the boss's room_id). */
export interface ChatLine extends Speaker {
  sid: string;
  content: string;
}

export interface ChatRules<C extends Client> {
  /** The sender's player here, if it has one. */
  speaker(sid: string): Speaker | undefined;
  /** The `error` text for a sender without a player here (code `not_in_room`). */
  notInRoom: string;
  /** Sends the line to everyone but its sender (the room's own chat message). */
  say(sender: C, line: ChatLine): void;
}

export const MUTED_MESSAGE = "You are muted by a teacher or an admin: your chat messages are not sent to anyone";

/**
 * Whether the client's account is muted: answered from the session cache (every account in a room is
 * read again every 2 s, and a mute tells every process at once). Guests have no account to mute.
 */
export async function isMutedSpeaker(client: Client): Promise<boolean> {
  const identity = (client.auth as { identity?: Identity } | undefined)?.identity;
  if (identity?.kind !== "account") return false;
  return appContext().sessions.isMuted(identity.userId);
}

/** The handler of a room's chat message `type` (its payload carries the raw `content`). */
export function chatHandler<C extends Client>(type: string, rules: ChatRules<C>): (client: C, message: { content: string }) => Promise<void> {
  return async (client, message) => {
    const speaker = rules.speaker(client.sessionId);
    if (!speaker) return sendError(client, ErrorCodes.notInRoom, rules.notInRoom, type);
    const content = sanitizeChatText(message.content);
    if (!content) return sendError(client, ErrorCodes.invalidPayload, `Invalid ${type}: content is empty`, type);
    if (await isMutedSpeaker(client)) return sendError(client, ErrorCodes.muted, MUTED_MESSAGE, type);
    // The speaker may have left while its mute was read.
    if (!rules.speaker(client.sessionId)) return;
    rules.say(client, { sid: client.sessionId, username: speaker.username, character: speaker.character, content });
  };
}
