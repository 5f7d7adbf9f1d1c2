// What a boss battle account seat counts and how it is written (src/rooms/kit/keeper.ts does the
// rest): damage, shots and account bullets as increases, the seat's state, and once per seat its
// battle's totals (BossBattleStats) and, when it took part in the victory, the win.
import { ServerError } from "@colyseus/core";
import { MIN_BULLETS_TO_JOIN } from "../../game/boss/constants.js";
import type { BattlePlayer, BossBattle } from "../../game/boss/simulation.js";
import type { BossStore, SeatWrite } from "../../stores/boss.js";
import type { SeatEntry, SeatKeeper, SeatRules } from "../kit/keeper.js";

export type Counted = "damage" | "fired" | "accountSpent";

export interface BossSeat {
  diedAt: Date | null;
  /** Set for the seats present at the victory: whether the seat took part in it. */
  victory?: boolean;
}

/** Seats of a boss battle; a room's own record is the time of its victory. */
export type BossSeats = SeatKeeper<Counted, BossSeat, BattlePlayer, Date>;

/** A player brings at least MIN_BULLETS_TO_JOIN bullets (403 otherwise). */
export function requireBullets(bullets: number): number {
  if (bullets < MIN_BULLETS_TO_JOIN) throw new ServerError(403, `need at least ${MIN_BULLETS_TO_JOIN} bullets, you have ${bullets}`);
  return bullets;
}

/** `roomRow` gives the BossRoom row's key (created on first use). */
export function seatRules(battle: BossBattle, store: BossStore, roomRow: () => Promise<number>): SeatRules<Counted, BossSeat, BattlePlayer, Date> {
  return {
    counted: ["damage", "fired", "accountSpent"],
    player: (seat) => battle.players.get(seat.sid),
    counts: (p) => ({ damage: p.damageDealt, fired: p.bulletsFired, accountSpent: p.accountBulletsSpent }),
    write: async (entries, victories) => store.writeSeats(await roomRow(), entries.map(seatWrite), victories[0]),
  };
}

function seatWrite({ userId, seat, player: p, delta, final, leaving }: SeatEntry<Counted, BossSeat, BattlePlayer>): SeatWrite {
  const victory = final ? seat.data.victory : undefined;
  return {
    userId,
    lives: p.lives,
    alive: p.status === "alive",
    diedAt: seat.data.diedAt,
    damageDelta: delta.damage,
    bulletsFiredDelta: delta.fired,
    accountBulletsDelta: delta.accountSpent,
    leftAt: leaving ? new Date() : undefined,
    victory,
    ...(final ? { stats: { damage: p.damageDealt, bullets: p.bulletsFired, died: p.status === "dead", won: victory === true } } : {}),
  };
}
