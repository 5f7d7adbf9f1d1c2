// What the PvP arena writes to the database and what GET /api/pvp/stats reads: one pvp_results row
// per account and finished battle, and the bullets an account spent (back into its progress record
// through ./progress, the only writer of game_progress). An account's statistics are aggregates
// over its rows, so there is no counter to drift. Guests are never stored.
import type { PrismaClient } from "../db/client.js";
import type { Prisma } from "../db/generated/client.js";
import { CHARACTERS, DEFAULT_CHARACTER, type Character } from "../game/progress.js";
import type { EndReason } from "../game/pvp/simulation.js";
import { ensureProgress, spendBattleBullets } from "./progress.js";

export type PvpOutcome = "win" | "loss" | "draw";

/** One account's side of a finished battle. */
export interface AccountResult {
  userId: number;
  playerNumber: number;
  outcome: PvpOutcome;
  shots: number;
  hits: number;
  livesLeft: number;
  opponentName: string;
  /** Null when the opponent was a guest. */
  opponentUserId: number | null;
}

export interface BattleRecord {
  matchId: string;
  roomId: string;
  reason: EndReason;
  durationMs: number;
  endedAt: Date;
  accounts: AccountResult[];
}

/** Account bullets spent since the previous write. */
export interface BulletSpend {
  userId: number;
  bullets: number;
}

export interface PvpStats {
  matches: number;
  wins: number;
  losses: number;
  draws: number;
  /** Battles the account lost by leaving or dropping. */
  forfeits: number;
  shots: number;
  hits: number;
}

export interface PvpResultRow {
  matchId: string;
  roomId: string;
  playerNumber: number;
  outcome: string;
  reason: string;
  shots: number;
  hits: number;
  livesLeft: number;
  opponentName: string;
  opponentUserId: number | null;
  durationMs: number;
  endedAt: Date;
}

function asCharacter(value: string): Character {
  return (CHARACTERS as readonly string[]).includes(value) ? (value as Character) : DEFAULT_CHARACTER;
}

export class PvpStore {
  constructor(private readonly prisma: PrismaClient) {}

  /** What an account brings into the arena: its progress record's bullets and character. */
  async ensureProgress(userId: number): Promise<{ totalBullets: number; character: Character }> {
    const row = await ensureProgress(this.prisma, userId);
    return { totalBullets: row.totalBullets, character: asCharacter(row.character) };
  }

  /**
   * Finished battles and the bullets spent since the previous write, in one transaction: each
   * battle's rows and every spend land together or not at all (then the caller retries them).
   */
  async record(battles: BattleRecord[], spends: BulletSpend[]): Promise<void> {
    const rows = battles.flatMap((battle) =>
      battle.accounts.map((a) => ({
        matchId: battle.matchId,
        roomId: battle.roomId,
        reason: battle.reason,
        durationMs: Math.round(battle.durationMs),
        endedAt: battle.endedAt,
        ...a,
      })),
    );
    const ops = [
      // A repeated write of the same battle (same match id) inserts nothing.
      ...(rows.length ? [this.prisma.pvpResult.createMany({ data: rows, skipDuplicates: true })] : []),
      ...this.spendOps(spends),
    ];
    if (ops.length) await this.prisma.$transaction(ops);
  }

  /** The account's totals over every stored battle (zeros before the first). */
  async stats(userId: number): Promise<PvpStats> {
    const groups = await this.prisma.pvpResult.groupBy({
      by: ["outcome", "reason"],
      where: { userId },
      _count: { _all: true },
      _sum: { shots: true, hits: true },
    });
    const stats: PvpStats = { matches: 0, wins: 0, losses: 0, draws: 0, forfeits: 0, shots: 0, hits: 0 };
    for (const g of groups) {
      const n = g._count._all;
      stats.matches += n;
      if (g.outcome === "win") stats.wins += n;
      else if (g.outcome === "loss") stats.losses += n;
      else stats.draws += n;
      if (g.outcome === "loss" && g.reason === "forfeit") stats.forfeits += n;
      stats.shots += g._sum.shots ?? 0;
      stats.hits += g._sum.hits ?? 0;
    }
    return stats;
  }

  /** The account's latest results, newest first. */
  async recentResults(userId: number, limit: number): Promise<PvpResultRow[]> {
    return this.prisma.pvpResult.findMany({
      where: { userId },
      orderBy: [{ endedAt: "desc" }, { id: "desc" }],
      take: limit,
      select: {
        matchId: true,
        roomId: true,
        playerNumber: true,
        outcome: true,
        reason: true,
        shots: true,
        hits: true,
        livesLeft: true,
        opponentName: true,
        opponentUserId: true,
        durationMs: true,
        endedAt: true,
      },
    });
  }

  private spendOps(spends: BulletSpend[]) {
    return spends.filter((s) => s.bullets > 0).map((s) => spendBattleBullets(this.prisma, s.userId, s.bullets));
  }
}

/** What other accounts' results say of an erased opponent (its own results go with the account). */
export const ERASED_OPPONENT_NAME = "(erased account)";

/** An erasure: other accounts' results against the account keep the battle, not who it was. */
export async function forgetOpponent(db: PrismaClient | Prisma.TransactionClient, userId: number): Promise<void> {
  await db.pvpResult.updateMany({ where: { opponentUserId: userId }, data: { opponentUserId: null, opponentName: ERASED_OPPONENT_NAME } });
}
