// What a boss battle account seat counts and how it is written (src/rooms/kit/keeper.ts does the
// rest): damage, shots and account bullets as increases, the seat's state, and once per seat its
// battle's totals (BossBattleStats) and, when it took part in the victory, the win.
import { ServerError, type AuthContext, type Client } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import { DEFAULT_CHARACTER, GUEST_MAX_BULLETS, MIN_BULLETS_TO_JOIN, type Character } from "../../game/boss/constants.js";
import type { BattlePlayer, BossBattle } from "../../game/boss/simulation.js";
import type { Updates } from "../../protocol/common.js";
import { bossJoinOptionsSchema, type BossOutbound } from "../../protocol/boss.js";
import type { BossStore, SeatWrite } from "../../stores/boss.js";
import { authenticateJoin } from "../kit/join.js";
import type { SeatEntry, SeatKeeper, SeatRules } from "../kit/keeper.js";

/** What onAuth hands to onJoin. */
export interface BossAuth {
  identity: Identity;
  /** A guest's capped claim of bullets (an account brings its progress record's, read once seated). */
  guestBullets: number;
  /** The character asked for in the join options, if any. */
  character?: Character;
  /** The update channel the client reads (join option `updates`); both when undefined. */
  updates: Updates;
}

export type BossClient = Client<{ auth: BossAuth; messages: BossOutbound }>;

/** The room's onAuth: a guest's claim is capped and must reach the minimum already here. */
export async function authenticateBossJoin(options: unknown, context: AuthContext): Promise<BossAuth> {
  const { identity, options: opts = {} } = await authenticateJoin(bossJoinOptionsSchema, options, context);
  const guestBullets = identity.guest ? requireBullets(Math.min(opts.bullets ?? 0, GUEST_MAX_BULLETS)) : 0;
  return { identity, guestBullets, character: opts.character, updates: opts.updates };
}

/**
 * What a player brings into the battle, read once its seat is leased (a room this account just
 * left has written its bullets): an account's progress record, or a guest's claim.
 */
export async function broughtIn(auth: BossAuth, store: BossStore, battle: BossBattle): Promise<{ bullets: number; character: Character }> {
  const progress = auth.identity.kind === "account" ? await store.ensureProgress(auth.identity.userId) : undefined;
  if (battle.defeated) throw new ServerError(410, "this battle is over");
  if (!progress) return { bullets: auth.guestBullets, character: auth.character ?? DEFAULT_CHARACTER };
  return { bullets: requireBullets(progress.totalBullets), character: auth.character ?? progress.character };
}

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
