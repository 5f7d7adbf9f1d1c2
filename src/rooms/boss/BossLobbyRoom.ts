// The boss lobby ("boss_lobby"): who is waiting for a boss battle, and their pre-battle chat.
// Joining the room makes a client a member; boss_leave_lobby / boss_join_lobby leave and rejoin
// the member list without disconnecting. Joins and leaves are told as System chat lines, with the
// member list and count, coalesced (kit/presence.ts): at most every PRESENCE_FLUSH_MS.
import type { AuthContext, Client } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import { DEFAULT_CHARACTER, type Character } from "../../game/boss/constants.js";
import { sanitizeChatText } from "../../game/chat.js";
import { ErrorCodes } from "../../protocol/common.js";
import {
  BOSS_LOBBY_ROOM,
  bossLobbyInbound,
  lobbyJoinOptionsSchema,
  type BossLobbyOutbound,
  type ChatMessagePayload,
  type LobbyMemberView,
} from "../../protocol/boss.js";
import { BossLobbyState, LobbyMemberState } from "../../protocol/bossState.js";
import { CHAT_RATE_LIMIT, MessageGuard, PRESENCE_RATE_LIMIT, sendError } from "../kit/guard.js";
import { authenticateJoin } from "../kit/join.js";
import { PresenceFeed } from "../kit/presence.js";
import { KitRoom } from "../kit/room.js";
import { isMutedSpeaker, MUTED_MESSAGE } from "../kit/chat.js";
import { moveAlong } from "../kit/drain.js";

interface LobbyAuth {
  identity: Identity;
  character: Character;
}
type LobbyClient = Client<{ auth: LobbyAuth; messages: BossLobbyOutbound }>;

/** Clients per lobby room; matchmaking opens another lobby when one is full. */
export const LOBBY_MAX_CLIENTS = 200;
const SYSTEM = { sid: "", username: "System", character: DEFAULT_CHARACTER };

export class BossLobbyRoom extends KitRoom<{ state: BossLobbyState; client: LobbyClient }> {
  maxClients = LOBBY_MAX_CLIENTS;
  state = new BossLobbyState();
  private guard!: MessageGuard<LobbyClient, typeof bossLobbyInbound>;
  /** Who joined and left the member list, told to everyone, with the list and count (coalesced). */
  private readonly feed = new PresenceFeed<string>(this.clock, {
    tell: (sid, username, member) => this.chat({ ...SYSTEM, content: `${username} ${member ? "joined" : "left"} the lobby` }, member ? this.clients.getById(sid) : undefined),
    push: () => this.pushMembers(),
  });

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<LobbyAuth> {
    const { identity, options: opts } = await authenticateJoin(lobbyJoinOptionsSchema, options, context);
    return { identity, character: opts?.character ?? DEFAULT_CHARACTER };
  }

  onCreate() {
    const guard = (this.guard = new MessageGuard<LobbyClient, typeof bossLobbyInbound>(this, bossLobbyInbound, { log: this.log }));
    // Joining and leaving the list reach every member: presence changes, limited and coalesced.
    guard.on(
      "boss_join_lobby",
      (client, msg) => {
        const member = this.state.members.get(client.sessionId);
        if (!member) return this.addMember(client, msg?.character ?? client.auth!.character);
        if (msg?.character) member.character = msg.character;
        client.send("boss_lobby_state", this.lobbyState());
        this.feed.touch();
      },
      { limit: PRESENCE_RATE_LIMIT },
    );
    guard.on("boss_leave_lobby", (client) => this.removeMember(client.sessionId), { limit: PRESENCE_RATE_LIMIT });
    guard.on(
      "boss_chat_send",
      async (client, msg) => {
        const member = this.state.members.get(client.sessionId);
        if (!member) return sendError(client, ErrorCodes.notInRoom, "Join the lobby to chat", "boss_chat_send");
        if (msg.room_id !== undefined && msg.room_id !== this.roomId && msg.room_id !== BOSS_LOBBY_ROOM && msg.room_id !== "lobby") {
          return sendError(client, ErrorCodes.wrongRoom, "Lobby chat only reaches the lobby", "boss_chat_send");
        }
        const content = sanitizeChatText(msg.content);
        if (!content) return sendError(client, ErrorCodes.invalidPayload, "Invalid boss_chat_send: content is empty", "boss_chat_send");
        if (await isMutedSpeaker(client)) return sendError(client, ErrorCodes.muted, MUTED_MESSAGE, "boss_chat_send");
        if (!this.state.members.has(client.sessionId)) return; // left while its mute was read
        this.chat({ sid: client.sessionId, username: member.username, character: member.character, content }, client);
      },
      { limit: CHAT_RATE_LIMIT },
    );
    guard.rejectUnknown();
  }

  onJoin(client: LobbyClient) {
    this.addMember(client, client.auth!.character);
  }

  onLeave(client: LobbyClient) {
    this.guard.forget(client);
    this.removeMember(client.sessionId);
  }

  /** A stopping process: members are told to matchmake again, on another process (kit/drain.ts). */
  onBeforeShutdown() {
    void moveAlong(this);
  }

  private addMember(client: LobbyClient, character: Character): void {
    const { identity } = client.auth!;
    this.state.members.set(client.sessionId, new LobbyMemberState({ username: identity.username, character, guest: identity.guest }));
    client.send("boss_lobby_state", this.lobbyState());
    this.feed.set(client.sessionId, identity.username, true);
  }

  private removeMember(sid: string): void {
    const member = this.state.members.get(sid);
    if (!member) return;
    this.state.members.delete(sid);
    this.feed.set(sid, member.username, false);
  }

  private chat(message: Omit<ChatMessagePayload, "room_id">, except?: LobbyClient): void {
    this.broadcast("boss_chat_message", { ...message, room_id: BOSS_LOBBY_ROOM }, except ? { except } : {});
  }

  private pushMembers(): void {
    this.broadcast("boss_lobby_members", { members: this.members() });
    this.broadcast("boss_lobby_player_count", { playerCount: this.state.members.size });
  }

  private members(): LobbyMemberView[] {
    return [...this.state.members.entries()].map(([sid, m]) => ({ sid, username: m.username, character: m.character, guest: m.guest }));
  }

  private lobbyState() {
    const players = this.members();
    return { playerCount: players.length, players };
  }
}
