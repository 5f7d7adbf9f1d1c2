// What routes may ask a live room through `matchMaker.remoteRoomCall` (on whichever process owns
// it). Rooms implement these interfaces, routes call them, and neither imports the other.
import type { BossPlayerView } from "../protocol/boss.js";

export interface BossLiveSummary {
  boss_health: number;
  max_health: number;
  phase: "battle" | "defeated";
  player_count: number;
  players: BossPlayerView[];
}

export interface BossRoomCalls {
  /** Live numbers for GET /api/boss/room/:room_id. */
  liveSummary(): BossLiveSummary;
  /** Removes an account from the battle (POST /api/boss/leave); whether it had a seat there. */
  removeAccount(userId: number): Promise<boolean>;
}
