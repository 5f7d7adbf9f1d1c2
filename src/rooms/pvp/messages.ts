// The duel's inbound messages besides moves and shots (those the room queues for its step): the
// state sent again, ready, the original clients' result reports (refused), chat, away and back,
// the status, leaving. The guard has already validated each payload and checked the room it names.
import type { ActionError, PvpArena } from "../../game/pvp/simulation.js";
import { PvpErrorCodes, type pvpInbound, type PvpOutbound } from "../../protocol/pvp.js";
import { chatHandler } from "../kit/chat.js";
import { CHAT_RATE_LIMIT, PRESENCE_RATE_LIMIT, sendError, type MessageGuard } from "../kit/guard.js";
import { PresenceFeed, presenceHandler, type FeedClock, type PresenceRules } from "../kit/presence.js";
import type { Broadcast } from "../kit/room.js";
import type { DuelRelay } from "./relay.js";
import type { PvpClient, PvpSeats } from "./seats.js";
import { actionError, NOT_IN_DUEL, roomStatePayload, roomStatusPayload, type FactsOf } from "./views.js";

/** What the handlers need of the room. */
export interface PvpMessagesRoom {
  roomId: string;
  arena: PvpArena;
  seats: PvpSeats;
  factsOf: FactsOf;
  relay: DuelRelay;
  broadcast: Broadcast<PvpOutbound>;
  clock: FeedClock;
  /** The connected client of a session, if any. */
  client(sid: string): PvpClient | undefined;
  /** Copies the arena into the synchronized state. */
  sync(): void;
  /** Sends a player away for good (kit/dismiss.ts). */
  dismiss(sid: string): Promise<void>;
}

/** Registers the handlers; returns the away notices' feed (the room forgets a player leaving it). */
export function handlePvpMessages(guard: MessageGuard<PvpClient, typeof pvpInbound>, room: PvpMessagesRoom): PresenceFeed<string> {
  const { roomId, arena, factsOf } = room;
  const refuse = (client: PvpClient, error: ActionError, type: string) => sendError(client, ...actionError(error), type);
  guard.on(
    "pvp_join",
    (client) => {
      const player = arena.players.get(client.sessionId);
      if (!player) return refuse(client, "not_in_room", "pvp_join");
      client.send("pvp_room_state", roomStatePayload(roomId, arena, factsOf, player));
      client.send("pvp_room_status", roomStatusPayload(roomId, arena));
    },
    { roomField: ["room_id", "roomId"] },
  );
  guard.on("pvp_ready", (client) => {
    const ready = arena.ready(client.sessionId);
    if (!ready.ok) return refuse(client, ready.error, "pvp_ready");
    room.sync();
    room.broadcast("pvp_player_ready", { sid: client.sessionId, player_number: ready.player.number });
    room.relay.events(ready.events);
  });
  // The original clients reported hits and stats; the server decides them (never acted on: no room check).
  const reported = { roomField: false } as const;
  guard.on("pvp_hit_opponent", (client) => sendError(client, PvpErrorCodes.serverAuthoritative, "Hits are decided by the server: nothing changed", "pvp_hit_opponent"), reported);
  guard.on("pvp_stats_update", (client) => sendError(client, PvpErrorCodes.serverAuthoritative, "Bullets and lives are kept by the server: nothing changed", "pvp_stats_update"), reported);
  const chat = chatHandler<PvpClient>("pvp_chat_send", {
    speaker: (sid) => arena.players.get(sid),
    notInRoom: NOT_IN_DUEL,
    say: (client, line) => room.broadcast("pvp_chat_message", line, { except: client }),
  });
  guard.on("pvp_chat_send", chat, { limit: CHAT_RATE_LIMIT });
  const feed = new PresenceFeed<string>(room.clock, {
    tell: (sid, username, away) => {
      const sender = room.client(sid);
      room.broadcast(away ? "pvp_player_away" : "pvp_player_returned", { sid, username }, sender ? { except: sender } : undefined);
    },
  });
  const presence: PresenceRules<string> = {
    away: (sid) => (arena.players.has(sid) ? room.seats.get(sid)?.data.tabAway : undefined),
    mark: (sid, away) => {
      room.seats.get(sid)!.data.tabAway = away;
      room.sync();
    },
    who: (sid) => arena.players.get(sid)!.username,
    notInRoom: NOT_IN_DUEL,
  };
  guard.on("pvp_player_away", presenceHandler("pvp_player_away", true, presence, feed), { limit: PRESENCE_RATE_LIMIT });
  guard.on("pvp_player_returned", presenceHandler("pvp_player_returned", false, presence, feed), { limit: PRESENCE_RATE_LIMIT });
  guard.on("pvp_get_status", (client) => client.send("pvp_room_status", roomStatusPayload(roomId, arena)));
  guard.on("pvp_leave", (client) => room.dismiss(client.sessionId));
  return feed;
}
