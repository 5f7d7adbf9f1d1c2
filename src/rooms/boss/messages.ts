// The boss battle's inbound messages besides moves and shots (those the room queues for its step):
// the state sent again, chat, away and back, the player list, leaving. The guard has already
// validated each payload and checked the room it names.
import type { BossBattle } from "../../game/boss/simulation.js";
import type { bossInbound, BossOutbound } from "../../protocol/boss.js";
import type { BossRoomState } from "../../protocol/bossState.js";
import { chatHandler } from "../kit/chat.js";
import { CHAT_RATE_LIMIT, PRESENCE_RATE_LIMIT, type MessageGuard } from "../kit/guard.js";
import { PresenceFeed, presenceHandler, type FeedClock, type PresenceRules } from "../kit/presence.js";
import type { Broadcast } from "../kit/room.js";
import type { BossClient, BossSeats } from "./seats.js";
import { roomPlayersPayload, roomStatePayload, type IsGuest } from "./views.js";

/** What the handlers need of the room. */
export interface BossMessagesRoom {
  roomId: string;
  battle: BossBattle;
  state: BossRoomState;
  seats: BossSeats;
  isGuest: IsGuest;
  broadcast: Broadcast<BossOutbound>;
  clock: FeedClock;
  /** The connected client of a session, if any. */
  client(sid: string): BossClient | undefined;
  /** Sends a player away for good (kit/dismiss.ts). */
  dismiss(sid: string): Promise<void>;
}

/** Registers the handlers; returns the away notices' feed (the room forgets a player leaving it). */
export function handleBossMessages(guard: MessageGuard<BossClient, typeof bossInbound>, room: BossMessagesRoom): PresenceFeed<string> {
  const { roomId, battle, isGuest } = room;
  guard.on("boss_join_room", (client) => {
    if (room.seats.get(client.sessionId)) client.send("boss_room_state", roomStatePayload(roomId, battle, isGuest, client.sessionId));
  });
  const chat = chatHandler<BossClient>("boss_chat_send", {
    speaker: (sid) => battle.players.get(sid),
    notInRoom: "You are not in this battle",
    say: (client, line) => room.broadcast("boss_chat_message", { ...line, room_id: roomId }, { except: client }),
  });
  guard.on("boss_chat_send", chat, { limit: CHAT_RATE_LIMIT });
  const feed = new PresenceFeed<string>(room.clock, {
    tell: (sid, username, away) => {
      const message = away ? `${username} switched away from the game` : `${username} is back!`;
      const sender = room.client(sid);
      room.broadcast(away ? "boss_player_away" : "boss_player_returned", { sid, username, message }, sender ? { except: sender } : undefined);
    },
  });
  const presence: PresenceRules<string> = {
    away: (sid) => battle.players.get(sid)?.away,
    mark: (sid, away) => {
      battle.players.get(sid)!.away = away;
      const view = room.state.players.get(sid);
      if (view) view.away = away;
    },
    who: (sid) => battle.players.get(sid)!.username,
  };
  guard.on("boss_player_away", presenceHandler("boss_player_away", true, presence, feed), { limit: PRESENCE_RATE_LIMIT });
  guard.on("boss_player_returned", presenceHandler("boss_player_returned", false, presence, feed), { limit: PRESENCE_RATE_LIMIT });
  guard.on("boss_get_players", (client) => client.send("boss_room_players", roomPlayersPayload(roomId, battle, isGuest)));
  guard.on("boss_leave_room", (client) => room.dismiss(client.sessionId));
  return feed;
}
