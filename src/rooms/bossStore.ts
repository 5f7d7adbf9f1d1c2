// What the boss battle writes to the database: the BossRoom row, each account's BossPlayer row,
// bullets spent (back into the progress record), BossBattleStats and game completion on victory.
// Counters only ever change by atomic increments in SQL, never by read-modify-write.
import type { PrismaClient } from "../db/client.js";
import { ensureProgress } from "../progress/store.js";
import { DEFAULT_CHARACTER, BOSS_MAX_HEALTH, CHARACTERS, type Character } from "../game/boss/constants.js";

export interface ProgressSnapshot {
  totalBullets: number;
  character: Character;
}

/** One account seat's changes since its previous write. */
export interface SeatWrite {
  userId: number;
  lives: number;
  alive: boolean;
  diedAt: Date | null;
  /** Increases since the previous write of this seat. */
  damageDelta: number;
  bulletsFiredDelta: number;
  /** Account bullets spent since the previous write: taken off GameProgress.totalBullets (never below 0). */
  accountBulletsDelta: number;
  /** Set once per seat, when its battle ends (leave or victory): the seat's totals for BossBattleStats. */
  stats?: { damage: number; bullets: number; died: boolean; won: boolean };
  /** The seat is leaving the room. */
  leftAt?: Date;
  /** The seat took part in the victory: BossPlayer.victory and the account completes the game. */
  victory?: boolean;
}

export function asCharacter(value: string | null | undefined): Character {
  return (CHARACTERS as readonly string[]).includes(value ?? "") ? (value as Character) : DEFAULT_CHARACTER;
}

export class BossStore {
  constructor(private readonly prisma: PrismaClient) {}

  /** The account's progress record, created with defaults when missing (safe under concurrency). */
  async ensureProgress(userId: number): Promise<ProgressSnapshot> {
    const row = await ensureProgress(this.prisma, userId);
    return { totalBullets: row.totalBullets, character: asCharacter(row.character) };
  }

  /** The BossRoom row of a live room (created on first call); returns its primary key. */
  async ensureRoom(roomId: string): Promise<number> {
    const row = await this.prisma.bossRoom.upsert({
      where: { roomId },
      create: { roomId, bossHealth: BOSS_MAX_HEALTH, maxBossHealth: BOSS_MAX_HEALTH },
      update: {},
      select: { id: true },
    });
    return row.id;
  }

  /** A seat taken: the BossPlayer row (re)opened, and one more boss battle attempt. */
  async recordJoin(bossRoomId: number, userId: number): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.bossPlayer.upsert({
        where: { bossRoomId_userId: { bossRoomId, userId } },
        create: { bossRoomId, userId },
        update: { leftAt: null, lives: 5, isAlive: true, diedAt: null, joinedAt: new Date() },
      }),
      this.prisma.gameProgress.updateMany({ where: { userId }, data: { bossBattleAttempts: { increment: 1 } } }),
    ]);
  }

  /**
   * Writes seats in one transaction; with `completedAt`, also marks the room complete (victory).
   */
  async writeSeats(bossRoomId: number, seats: SeatWrite[], completedAt?: Date): Promise<void> {
    const ops = [];
    if (completedAt) {
      ops.push(this.prisma.bossRoom.update({ where: { id: bossRoomId }, data: { isCompleted: true, isActive: false, completedAt, bossHealth: 0 } }));
    }
    for (const s of seats) {
      ops.push(
        this.prisma.bossPlayer.updateMany({
          where: { bossRoomId, userId: s.userId },
          data: {
            lives: s.lives,
            isAlive: s.alive,
            diedAt: s.diedAt,
            damageDealt: { increment: s.damageDelta },
            bulletsUsed: { increment: s.bulletsFiredDelta },
            ...(s.leftAt ? { leftAt: s.leftAt } : {}),
            ...(s.victory !== undefined ? { victory: s.victory } : {}),
          },
        }),
      );
      if (s.accountBulletsDelta > 0) {
        ops.push(this.prisma.$executeRaw`
          UPDATE game_progress SET total_bullets = GREATEST(total_bullets - ${s.accountBulletsDelta}, 0), updated_at = ${new Date()}
          WHERE user_id = ${s.userId}`);
      }
      if (s.stats) {
        const { damage, bullets, died, won } = s.stats;
        ops.push(this.prisma.$executeRaw`
          INSERT INTO boss_battle_stats (user_id, battles_joined, battles_won, total_damage_dealt, total_bullets_used, deaths, best_damage)
          VALUES (${s.userId}, 1, ${won ? 1 : 0}, ${damage}, ${bullets}, ${died ? 1 : 0}, ${damage})
          ON CONFLICT (user_id) DO UPDATE SET
            battles_joined = boss_battle_stats.battles_joined + 1,
            battles_won = boss_battle_stats.battles_won + EXCLUDED.battles_won,
            total_damage_dealt = boss_battle_stats.total_damage_dealt + EXCLUDED.total_damage_dealt,
            total_bullets_used = boss_battle_stats.total_bullets_used + EXCLUDED.total_bullets_used,
            deaths = boss_battle_stats.deaths + EXCLUDED.deaths,
            best_damage = GREATEST(boss_battle_stats.best_damage, EXCLUDED.best_damage)`);
      }
      if (s.victory) {
        const now = completedAt ?? new Date();
        ops.push(this.prisma.$executeRaw`
          UPDATE game_progress SET boss_victories = boss_victories + 1, game_status = 'completed',
            completed_at = COALESCE(completed_at, ${now}), champion_at = COALESCE(champion_at, ${now}), updated_at = ${now}
          WHERE user_id = ${s.userId}`);
      }
    }
    if (ops.length) await this.prisma.$transaction(ops);
  }

  /** A room that ends without a victory is no longer active. */
  async closeRoom(roomId: string): Promise<void> {
    await this.prisma.bossRoom.updateMany({ where: { roomId, isCompleted: false }, data: { isActive: false } });
  }
}
