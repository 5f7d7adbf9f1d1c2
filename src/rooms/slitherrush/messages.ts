// The SlitherRush arena's inbound messages: steering, a fresh snapshot, leaving, the mode's status
// and the joined message again. The guard has already validated each payload and checked the arena
// it names.
import type { Client } from "@colyseus/core";
import type { SlitherArena } from "../../game/slitherrush/arena.js";
import type { Party } from "../../game/slitherrush/parties.js";
import { ErrorCodes } from "../../protocol/common.js";
import type { slitherrushInbound, SlitherRushOutbound } from "../../protocol/slitherrush.js";
import { liveStatus } from "../../shared/modeStatus.js";
import { sendError, type MessageGuard } from "../kit/guard.js";
import { joinedPayload } from "./views.js";

/** slitherrush_get_status per client, on top of the steering limit. */
const STATUS_RATE_LIMIT = { name: "status", ratePerSecond: 1, burst: 3 };

/** What the handlers need of the room. */
export interface SlitherMessagesRoom {
  roomId: string;
  arena: SlitherArena;
  partyOf(sid: string): Party | undefined;
  /** A snapshot of everything in view at the next send (the client lost track). */
  resync(sid: string): void;
  /** Sends a player away for good (kit/dismiss.ts). */
  dismiss(sid: string): Promise<void>;
}

/** Registers the handlers. */
export function handleSlitherMessages<C extends Client<{ messages: SlitherRushOutbound }>>(guard: MessageGuard<C, typeof slitherrushInbound>, room: SlitherMessagesRoom): void {
  const { arena } = room;
  const playing = (client: C, type: string) => {
    if (arena.players.has(client.sessionId)) return true;
    sendError(client, ErrorCodes.notInRoom, "You have no snake in this arena", type);
    return false;
  };
  guard.on("slitherrush_input", (client, msg) => {
    if (playing(client, "slitherrush_input")) arena.setInput(client.sessionId, { direction: msg.direction, shoot: msg.shoot });
  });
  guard.on("slitherrush_play_again", (client) => {
    if (playing(client, "slitherrush_play_again")) room.resync(client.sessionId);
  });
  guard.on("slitherrush_leave", ({ sessionId }) => room.dismiss(sessionId));
  // Each answer queries every room listing (Redis when scaled out): a few per client, not a stream.
  guard.on(
    "slitherrush_get_status",
    async (client) => {
      const { modes } = await liveStatus();
      client.send("slitherrush_status", modes.slitherrush);
    },
    { limit: STATUS_RATE_LIMIT },
  );
  guard.on("slitherrush_join", (client) => {
    const snake = arena.players.get(client.sessionId);
    if (snake) client.send("slitherrush_joined", joinedPayload(room.roomId, snake, room.partyOf(client.sessionId), false));
  });
  guard.rejectUnknown();
}
