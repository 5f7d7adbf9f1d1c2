// The boss room's messages as maps (name → payload), built from src/protocol/boss.ts.
import type { z } from "zod";
import { BossIn, BossOut } from "../../../../src/protocol/boss.js";
import type {
  AwayPayload,
  ChatMessagePayload,
  DefeatedPayload,
  HealthUpdatePayload,
  PlayerBulletPayload,
  PlayerDamagedPayload,
  PlayerDiedPayload,
  PlayerJoinedPayload,
  PlayerLeftPayload,
  PlayerPositionPayload,
  PowerupCollectedPayload,
  PowerupExpiredPayload,
  PowerupSpawnedPayload,
  RoomPlayersPayload,
  RoomStatePayload,
  SelfPositionPayload,
  chatSendSchema,
  playerMoveSchema,
  playerShootSchema,
  roomRefSchema,
} from "../../../../src/protocol/boss.js";

export interface BossServerMessages {
  [BossOut.roomState]: RoomStatePayload;
  [BossOut.playerJoined]: PlayerJoinedPayload;
  [BossOut.playerPosition]: PlayerPositionPayload;
  [BossOut.selfPosition]: SelfPositionPayload;
  [BossOut.playerBullet]: PlayerBulletPayload;
  [BossOut.powerupSpawned]: PowerupSpawnedPayload;
  [BossOut.powerupCollected]: PowerupCollectedPayload;
  [BossOut.powerupExpired]: PowerupExpiredPayload;
  [BossOut.healthUpdate]: HealthUpdatePayload;
  [BossOut.playerDamaged]: PlayerDamagedPayload;
  [BossOut.playerDied]: PlayerDiedPayload;
  [BossOut.playerLeft]: PlayerLeftPayload;
  [BossOut.playerAway]: AwayPayload;
  [BossOut.playerReturned]: AwayPayload;
  [BossOut.chatMessage]: ChatMessagePayload;
  [BossOut.roomPlayers]: RoomPlayersPayload;
  [BossOut.defeated]: DefeatedPayload;
}

export interface BossClientMessages {
  [BossIn.joinRoom]: z.input<typeof roomRefSchema>;
  [BossIn.playerMove]: z.input<typeof playerMoveSchema>;
  [BossIn.playerShoot]: z.input<typeof playerShootSchema>;
  [BossIn.chatSend]: z.input<typeof chatSendSchema>;
  [BossIn.playerAway]: z.input<typeof roomRefSchema>;
  [BossIn.playerReturned]: z.input<typeof roomRefSchema>;
  [BossIn.getPlayers]: z.input<typeof roomRefSchema>;
  [BossIn.leaveRoom]: z.input<typeof roomRefSchema>;
}
