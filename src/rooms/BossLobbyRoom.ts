// The boss lobby ("boss_lobby"): who is waiting for a boss battle, and their pre-battle chat.
// Joining the room makes a client a member; boss_leave_lobby / boss_join_lobby leave and rejoin
// the member list without disconnecting. The member list is pushed to everyone on every change.
import { Room, ServerError, type AuthContext, type Client } from "@colyseus/core";
import { schema, t, type SchemaType } from "@colyseus/schema";
import { logRoomException } from "./roomErrors.js";
import { appContext } from "../context.js";
import { resolveRoomIdentity, type Identity } from "../auth/identity.js";
import { DEFAULT_CHARACTER, type Character } from "../game/boss/constants.js";
import { sanitizeChatText } from "../game/chat.js";
import { ErrorCodes } from "../protocol/common.js";
import {
  BOSS_LOBBY_ROOM,
  BossIn,
  BossOut,
  chatSendSchema,
  joinLobbySchema,
  leaveLobbySchema,
  lobbyJoinOptionsSchema,
  type ChatMessagePayload,
  type LobbyMemberView,
} from "../protocol/boss.js";
import { CHAT_RATE_LIMIT, describeIssues, MessageGuard, sendError } from "./messageGuard.js";

export const LobbyMemberState = schema({ username: t.string(), character: t.string(), guest: t.boolean() }, "BossLobbyMember");
export type LobbyMemberState = SchemaType<typeof LobbyMemberState>;
export const BossLobbyState = schema({ members: t.map(LobbyMemberState) }, "BossLobbyState");
export type BossLobbyState = SchemaType<typeof BossLobbyState>;

interface LobbyAuth {
  identity: Identity;
  character: Character;
}
type LobbyClient = Client<{ auth: LobbyAuth }>;

/** Clients per lobby room; matchmaking opens another lobby when one is full. */
export const LOBBY_MAX_CLIENTS = 200;
const SYSTEM = { sid: "", username: "System", character: DEFAULT_CHARACTER };

export class BossLobbyRoom extends Room<{ state: BossLobbyState; client: LobbyClient }> {
  maxClients = LOBBY_MAX_CLIENTS;
  state = new BossLobbyState();
  private guard!: MessageGuard<LobbyClient>;

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<LobbyAuth> {
    const parsed = lobbyJoinOptionsSchema.safeParse(options ?? undefined);
    if (!parsed.success) throw new ServerError(400, `invalid join options: ${describeIssues(parsed.error)}`);
    const opts = parsed.data ?? {};
    const identity = await resolveRoomIdentity(appContext(), context.headers?.get("cookie"), opts.username);
    return { identity, character: opts.character ?? DEFAULT_CHARACTER };
  }

  onCreate() {
    const guard = (this.guard = new MessageGuard<LobbyClient>(this));
    guard.on(BossIn.joinLobby, joinLobbySchema, (client, msg) => {
      const member = this.state.members.get(client.sessionId);
      if (member && msg?.character) member.character = msg.character;
      if (member) {
        client.send(BossOut.lobbyState, this.lobbyState());
        this.broadcast(BossOut.lobbyMembers, { members: this.members() });
        return;
      }
      this.addMember(client, msg?.character ?? client.auth!.character);
    });
    guard.on(BossIn.leaveLobby, leaveLobbySchema, (client) => this.removeMember(client.sessionId));
    guard.on(
      BossIn.chatSend,
      chatSendSchema,
      (client, msg) => {
        const member = this.state.members.get(client.sessionId);
        if (!member) return sendError(client, ErrorCodes.notInRoom, "Join the lobby to chat", BossIn.chatSend);
        if (msg.room_id !== undefined && msg.room_id !== this.roomId && msg.room_id !== BOSS_LOBBY_ROOM && msg.room_id !== "lobby") {
          return sendError(client, ErrorCodes.wrongRoom, "Lobby chat only reaches the lobby", BossIn.chatSend);
        }
        const content = sanitizeChatText(msg.content);
        if (!content) return sendError(client, ErrorCodes.invalidPayload, "Invalid boss_chat_send: content is empty", BossIn.chatSend);
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

  onUncaughtException(error: Error, method: string) {
    logRoomException(appContext().logger.child({ room: BOSS_LOBBY_ROOM, roomId: this.roomId }), error, method);
  }

  private addMember(client: LobbyClient, character: Character): void {
    const { identity } = client.auth!;
    this.state.members.set(client.sessionId, new LobbyMemberState({ username: identity.username, character, guest: identity.guest }));
    client.send(BossOut.lobbyState, this.lobbyState());
    this.chat({ ...SYSTEM, content: `${identity.username} joined the lobby` }, client);
    this.pushMembers();
  }

  private removeMember(sid: string): void {
    const member = this.state.members.get(sid);
    if (!member) return;
    this.state.members.delete(sid);
    this.chat({ ...SYSTEM, content: `${member.username} left the lobby` });
    this.pushMembers();
  }

  private chat(message: Omit<ChatMessagePayload, "room_id">, except?: LobbyClient): void {
    this.broadcast(BossOut.chatMessage, { ...message, room_id: BOSS_LOBBY_ROOM }, except ? { except } : {});
  }

  private pushMembers(): void {
    this.broadcast(BossOut.lobbyMembers, { members: this.members() });
    this.broadcast(BossOut.lobbyPlayerCount, { playerCount: this.state.members.size });
  }

  private members(): LobbyMemberView[] {
    return [...this.state.members.entries()].map(([sid, m]) => ({ sid, username: m.username, character: m.character, guest: m.guest }));
  }

  private lobbyState() {
    const players = this.members();
    return { playerCount: players.length, players };
  }
}
