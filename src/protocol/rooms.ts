// Every room's inbound side in one table, by room name: the join options it validates and the
// messages it accepts. The fuzz suite (test/fuzz) drives every room from it, and a unit test holds
// it equal to the rooms the server defines, so a new room or message is fuzzed without edits.
import type { z } from "zod";
import type { InboundSchemas } from "./common.js";
import { BOSS_LOBBY_ROOM, BOSS_ROOM, bossInbound, bossJoinOptionsSchema, bossLobbyInbound, lobbyJoinOptionsSchema } from "./boss.js";
import { MODE_SELECT_ROOM, modeSelectInbound } from "./modes.js";
import { PVP_ROOM, pvpInbound, pvpJoinOptionsSchema } from "./pvp.js";
import { SLITHERRUSH_ROOM, slitherrushInbound, slitherrushJoinOptionsSchema } from "./slitherrush.js";

export interface RoomProtocol {
  /** The join options' schema; absent when the room reads no options. */
  joinOptions?: z.ZodType;
  inbound: InboundSchemas;
}

export const roomProtocols: Record<string, RoomProtocol> = {
  [BOSS_LOBBY_ROOM]: { joinOptions: lobbyJoinOptionsSchema, inbound: bossLobbyInbound },
  [BOSS_ROOM]: { joinOptions: bossJoinOptionsSchema, inbound: bossInbound },
  [MODE_SELECT_ROOM]: { inbound: modeSelectInbound },
  [PVP_ROOM]: { joinOptions: pvpJoinOptionsSchema, inbound: pvpInbound },
  [SLITHERRUSH_ROOM]: { joinOptions: slitherrushJoinOptionsSchema, inbound: slitherrushInbound },
};
