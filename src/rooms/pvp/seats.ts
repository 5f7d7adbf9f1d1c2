// Who sits in a duel, what it brings, what an account seat counts and how it is written
// (src/rooms/kit/keeper.ts does the rest): the bullets it spent (back into its progress record),
// and the room's finished duels as records. Guests are never stored.
import { ServerError, type AuthContext, type Client } from "@colyseus/core";
import type { Identity } from "../../auth/identity.js";
import { DEFAULT_CHARACTER, type Character } from "../../game/progress.js";
import { bulletsBroughtIn, outcomeOf, type BattleResult, type PvpArena, type PvpEvent, type PvpPlayer } from "../../game/pvp/simulation.js";
import { pvpJoinOptionsSchema, type PvpOutbound } from "../../protocol/pvp.js";
import type { AccountResult, BattleRecord, PvpStore } from "../../stores/pvp.js";
import { authenticateJoin } from "../kit/join.js";
import { stamped, type Stamped } from "../kit/reservations.js";
import type { SeatKeeper, SeatRules } from "../kit/keeper.js";
import type { FactsOf } from "./views.js";

/** What onAuth hands to onJoin. An account's bullets are read in onJoin, once its seat is leased. */
export interface PvpAuth extends Partial<Stamped> {
  identity: Identity;
  /** The character asked for in the join options, if any. */
  character?: Character;
  /** A guest's claimed bullets, already capped. */
  guestBullets: number;
  /** The player's shots are judged as it saw them (false only for the aim load test's baseline). */
  lagCompensation: boolean;
}

export type PvpClient = Client<{ auth: PvpAuth; messages: PvpOutbound }>;

export async function authenticatePvpJoin(options: unknown, context: AuthContext): Promise<PvpAuth> {
  const { identity, options: opts = {} } = await authenticateJoin(pvpJoinOptionsSchema, options, context);
  // Dated: a reservation landing after the matchmaker gave up holds no opponent seat (kit/reservations.ts).
  return stamped({
    identity,
    character: opts.character,
    guestBullets: identity.guest ? bulletsBroughtIn({ guest: true, claimed: opts.bullets ?? 0 }) : 0,
    lagCompensation: opts.lag_compensation ?? true,
  });
}

/** What a player brings, read once its seat is leased (a room this account just left has written its bullets). */
export async function broughtIn(auth: PvpAuth, store: PvpStore): Promise<{ bullets: number; character: Character }> {
  const { identity } = auth;
  if (identity.kind !== "account") return { bullets: auth.guestBullets, character: auth.character ?? DEFAULT_CHARACTER };
  const progress = await store.ensureProgress(identity.userId);
  return { bullets: bulletsBroughtIn({ guest: false, recorded: progress.totalBullets }), character: auth.character ?? progress.character };
}

/** Puts a seated player into the arena with what it brings (409 when the duel is full meanwhile). */
export async function enterDuel(sid: string, auth: PvpAuth, store: PvpStore, arena: PvpArena): Promise<{ player: PvpPlayer; events: PvpEvent[]; bullets: number }> {
  const brought = await broughtIn(auth, store);
  const joined = arena.join(sid, { username: auth.identity.username, ...brought });
  if (!joined.ok) throw new ServerError(409, "this duel already has two players");
  return { player: joined.player, events: joined.events, bullets: brought.bullets };
}

/** A duel's result for the accounts in it (guests are never stored). */
export function battleRecord(result: BattleResult, roomId: string, userIdOf: (sid: string) => number | null): BattleRecord {
  const accounts: AccountResult[] = [];
  for (const p of result.players) {
    const userId = userIdOf(p.id);
    if (userId === null) continue;
    const other = result.players.find((q) => q.id !== p.id);
    accounts.push({
      userId,
      playerNumber: p.number,
      outcome: outcomeOf(result, p.id),
      shots: p.shots,
      hits: p.hits,
      livesLeft: p.lives,
      opponentName: other?.username ?? "",
      opponentUserId: other ? userIdOf(other.id) : null,
    });
  }
  return { matchId: result.matchId, roomId, reason: result.reason, durationMs: result.durationMs, endedAt: new Date(), accounts };
}

export interface PvpSeat {
  /** The player said it switched away from the game (pvp_player_away). */
  tabAway: boolean;
}

export type PvpSeats = SeatKeeper<"spent", PvpSeat, PvpPlayer, BattleRecord>;

export function seatRules(arena: PvpArena, store: PvpStore): SeatRules<"spent", PvpSeat, PvpPlayer, BattleRecord> {
  return {
    counted: ["spent"],
    player: (seat) => arena.players.get(seat.sid),
    counts: (p) => ({ spent: p.bulletsSpent }),
    write: (entries, battles) => store.record(battles, entries.map((e) => ({ userId: e.userId, bullets: e.delta.spent }))),
  };
}

/** What the room knows of a seat beyond the arena: a guest's flag, whether it said it is away. */
export function seatFacts(seats: PvpSeats): FactsOf {
  return (sid) => {
    const seat = seats.get(sid);
    return { guest: seat?.identity.guest ?? false, away: seat?.data.tabAway ?? false };
  };
}
