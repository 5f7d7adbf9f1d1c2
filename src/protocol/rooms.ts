// Every room's inbound side in one table, by room name: the join options it validates, who may
// `create` one directly, and the messages it accepts. The /matchmake edge (src/http/matchmake.ts)
// parses join options with it before Colyseus or the room sees them; the fuzz suite (test/fuzz)
// drives every room from it, and a unit test holds it equal to the rooms the server defines, so a
// new room or message is guarded and fuzzed without edits.
import { z } from "zod";
import { text } from "./text.js";
import type { InboundSchemas } from "./common.js";
import { BOSS_LOBBY_ROOM, BOSS_ROOM, bossInbound, bossJoinOptionsSchema, bossLobbyInbound, lobbyJoinOptionsSchema } from "./boss.js";
import { MODE_SELECT_ROOM, modeSelectInbound, modeSelectJoinOptionsSchema } from "./modes.js";
import { PVP_ROOM, pvpInbound, pvpJoinOptionsSchema } from "./pvp.js";
import { SLITHERRUSH_ROOM, slitherrushInbound, slitherrushJoinOptionsSchema } from "./slitherrush.js";

/**
 * Who may make a room with `create` (POST /matchmake/create/<room>) instead of being placed by
 * matchmaking: nobody ("matchmaking": duels, arenas, the lobby and the mode page are shared rooms
 * that joinOrCreate fills), or signed-in players ("accounts": a boss battle of their own; a guest
 * cannot open rooms, each of which keeps a database row, that nobody ever joins).
 */
export type CreatePolicy = "matchmaking" | "accounts";

export interface RoomProtocol {
  /** The join options' schema (joinOrCreate, join, create, joinById). */
  joinOptions: z.ZodType;
  create: CreatePolicy;
  inbound: InboundSchemas;
}

export const roomProtocols: Record<string, RoomProtocol> = {
  [BOSS_LOBBY_ROOM]: { joinOptions: lobbyJoinOptionsSchema, create: "matchmaking", inbound: bossLobbyInbound },
  [BOSS_ROOM]: { joinOptions: bossJoinOptionsSchema, create: "accounts", inbound: bossInbound },
  [MODE_SELECT_ROOM]: { joinOptions: modeSelectJoinOptionsSchema, create: "matchmaking", inbound: modeSelectInbound },
  [PVP_ROOM]: { joinOptions: pvpJoinOptionsSchema, create: "matchmaking", inbound: pvpInbound },
  [SLITHERRUSH_ROOM]: { joinOptions: slitherrushJoinOptionsSchema, create: "matchmaking", inbound: slitherrushInbound },
};

/** Options of `client.reconnect(token)` (POST /matchmake/reconnect/<room id>): the token's second half. */
export const reconnectOptionsSchema = z.object({ reconnectionToken: text({ min: 1, max: 128, kind: "identifier" }) });
