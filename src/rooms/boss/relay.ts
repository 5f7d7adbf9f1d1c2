// The boss simulation's step events as the spec's messages, queued in the step's outbox in the
// order the simulation produced them (src/rooms/kit/outbox.ts sends them with the state patch).
import type { BattleEvent, BossBattle } from "../../game/boss/simulation.js";
import type { BossOutbound } from "../../protocol/boss.js";
import type { Recipient, TickOutbox } from "../kit/outbox.js";

/** What the room itself does about an event beyond telling clients. */
export interface RelayHooks {
  /** A player lost its last life (the room stamps the seat for persistence). */
  died(sid: string): void;
  /** The boss fell (the room announces it, locks and writes the victory). */
  defeated(): void;
}

export function relayBattleEvent<R extends Recipient>(event: BattleEvent, battle: BossBattle, outbox: TickOutbox<R, BossOutbound>, hooks: RelayHooks): void {
  switch (event.type) {
    case "boss_hit": {
      const attacker = battle.players.get(event.playerId);
      outbox.toAll("boss_health_update", {
        bossHealth: event.bossHealth,
        maxBossHealth: battle.maxHealth,
        attacker: attacker?.username ?? "",
        attacker_sid: event.playerId,
        damage: event.damage,
      });
      return;
    }
    case "boss_defeated":
      hooks.defeated();
      return;
    case "player_damaged": {
      const p = battle.players.get(event.playerId);
      if (p) outbox.toAll("boss_player_damaged", { player: { sid: p.id, username: p.username, lives: event.lives }, source: event.source });
      return;
    }
    case "player_died": {
      const p = battle.players.get(event.playerId);
      hooks.died(event.playerId);
      if (p) {
        outbox.toAll("boss_player_died", {
          message: `${p.username} has fallen!`,
          player: { sid: p.id, username: p.username, lives: 0 },
          aliveCount: battle.aliveCount(),
          playerCount: battle.players.size,
        });
      }
      return;
    }
    case "powerup_spawned": {
      const { id, type, x, y, expiresAt } = event.powerup;
      outbox.toAll("boss_powerup_spawned", { id, type, x, y, expires_in: expiresAt - battle.now });
      return;
    }
    case "powerup_expired":
      outbox.toAll("boss_powerup_expired", { powerup_id: event.powerupId });
      return;
    case "powerup_collected": {
      const p = battle.players.get(event.playerId);
      outbox.toAll("boss_powerup_collected", {
        powerup_id: event.powerup.id,
        type: event.powerup.type,
        username: p?.username ?? "",
        collector_sid: event.playerId,
        effect: event.effect,
      });
      return;
    }
  }
}
