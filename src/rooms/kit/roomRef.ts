// "This message names my room": clients of the original protocol send `room_id` with their
// messages; a message naming another room (or an empty id) is refused instead of acted on.
import type { Client } from "@colyseus/core";
import { ErrorCodes } from "../../protocol/common.js";
import { sendError } from "./guard.js";

export function namesThisRoom(roomId: string, client: Client, named: string | undefined, type: string): boolean {
  if (named === undefined || named === roomId) return true;
  sendError(client, ErrorCodes.wrongRoom, `You are in room ${roomId}, not "${named.slice(0, 64)}"`, type);
  return false;
}
