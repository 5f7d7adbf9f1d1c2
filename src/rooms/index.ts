// The Colyseus rooms this server offers, by their contract names (design.md).
import { defineRoom, type RegisteredHandler } from "@colyseus/core";
import { BOSS_LOBBY_ROOM, BOSS_ROOM } from "../protocol/boss.js";
import { MODE_SELECT_ROOM } from "../protocol/modes.js";
import { SLITHERRUSH_ROOM } from "../protocol/slitherrush.js";
import { BossLobbyRoom } from "./boss/BossLobbyRoom.js";
import { BossRoom } from "./boss/BossRoom.js";
import { ModeSelectRoom } from "./modes/ModeSelectRoom.js";
import { PVP_ROOM } from "../protocol/pvp.js";
import { PvpRoom } from "./pvp/PvpRoom.js";
import { ROUTE_KEYS } from "./slitherrush/matchmaking.js";
import { SlitherRushRoom } from "./slitherrush/SlitherRushRoom.js";

export function gameRooms(): Record<string, RegisteredHandler> {
  return {
    [BOSS_LOBBY_ROOM]: defineRoom(BossLobbyRoom),
    [BOSS_ROOM]: defineRoom(BossRoom),
    [MODE_SELECT_ROOM]: defineRoom(ModeSelectRoom),
    // Quick play fills the oldest duel with a waiting player first (docs/pvp.md, "Matchmaking").
    [PVP_ROOM]: defineRoom(PvpRoom).sortBy({ createdAt: 1 }),
    // Oldest arena first, routed by the key its onAuth sets (src/rooms/slitherrush/matchmaking.ts).
    [SLITHERRUSH_ROOM]: defineRoom(SlitherRushRoom).filterBy([...ROUTE_KEYS]).sortBy({ createdAt: 1 }),
  };
}
