// What the boss battle writes to the database: the BossRoom row, each account's BossPlayer row,
// bullets spent (back into the progress record), BossBattleStats and game completion on victory.
// Counters only ever change by atomic increments in SQL, never by read-modify-write. Routes and
// rooms reach the boss tables only through this module; progress-record writes come from ./progress.
import type { PrismaClient } from "../db/client.js";
import { countBossAttempt, ensureProgress, recordBossVictory, spendBattleBullets } from "./progress.js";
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
      countBossAttempt(this.prisma, userId),
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
      if (s.accountBulletsDelta > 0) ops.push(spendBattleBullets(this.prisma, s.userId, s.accountBulletsDelta));
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
      if (s.victory) ops.push(recordBossVictory(this.prisma, s.userId, completedAt ?? new Date()));
    }
    if (ops.length) await this.prisma.$transaction(ops);
  }

  /** A boss room's row with every seat it ever had (and the seat holders' names). */
  async roomWithPlayers(roomId: string) {
    return this.prisma.bossRoom.findUnique({
      where: { roomId },
      include: { players: { include: { user: { select: { username: true } } }, orderBy: { joinedAt: "asc" } } },
    });
  }

  /** The primary key of a boss room's row, or undefined when there is none. */
  async roomKey(roomId: string): Promise<number | undefined> {
    return (await this.prisma.bossRoom.findUnique({ where: { roomId }, select: { id: true } }))?.id;
  }

  /** Marks the account's open seat in the room as left; returns whether there was one. */
  async markLeft(bossRoomId: number, userId: number): Promise<boolean> {
    const closed = await this.prisma.bossPlayer.updateMany({ where: { bossRoomId, userId, leftAt: null }, data: { leftAt: new Date() } });
    return closed.count > 0;
  }

  /** The account's lifetime boss statistics, or null before its first battle. */
  async stats(userId: number) {
    return this.prisma.bossBattleStats.findUnique({ where: { userId } });
  }

  /**
   * Closes the records of rooms that are active in the database but run nowhere (their process
   * died): is_active false, and their open seats left now. `live` are the rooms running on some
   * process; only records created before `createdBefore` are considered (a room being created on
   * another process may have its record before its listing). Returns the closed room ids.
   */
  async closeOrphanedRooms(live: ReadonlySet<string>, createdBefore?: Date): Promise<string[]> {
    const active = await this.prisma.bossRoom.findMany({
      where: { isActive: true, isCompleted: false, ...(createdBefore ? { createdAt: { lt: createdBefore } } : {}) },
      select: { id: true, roomId: true },
    });
    const orphans = active.filter((r) => !live.has(r.roomId));
    if (!orphans.length) return [];
    const ids = orphans.map((r) => r.id);
    await this.prisma.$transaction([
      this.prisma.bossPlayer.updateMany({ where: { bossRoomId: { in: ids }, leftAt: null }, data: { leftAt: new Date() } }),
      this.prisma.bossRoom.updateMany({ where: { id: { in: ids }, isCompleted: false }, data: { isActive: false } }),
    ]);
    return orphans.map((r) => r.roomId);
  }

  /** A room that ends without a victory is no longer active. */
  async closeRoom(roomId: string): Promise<void> {
    await this.prisma.bossRoom.updateMany({ where: { roomId, isCompleted: false }, data: { isActive: false } });
  }
}
