// Parties: players who join with the same party code play in the same arena. The code is the
// capability (unguessable, made by the server); an arena holds a few seats for a party's next
// members while the party is fresh, so friends joining a minute later are not split from it.
// Pure bookkeeping: the room makes the codes (crypto) and publishes code → arena for every process.
import { MAX_PLAYERS } from "./constants.js";

/** Crockford's base32: no I, L, O, U, so a code read aloud or typed is unambiguous. */
export const PARTY_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** 10 characters: 50 random bits. */
export const PARTY_CODE_LENGTH = 10;
export const PARTY_CODE_PATTERN = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{10}$/;
/** Seats an arena keeps free for a party's next members … */
export const PARTY_HELD_SEATS = 3;
/** … until this long after the party's latest join or leave. */
export const PARTY_HOLD_MS = 60_000;

/** A party code from (at least PARTY_CODE_LENGTH) random bytes: 5 bits of each byte. */
export function partyCodeFrom(randomBytes: Uint8Array): string {
  if (randomBytes.length < PARTY_CODE_LENGTH) throw new Error(`a party code needs ${PARTY_CODE_LENGTH} random bytes`);
  let code = "";
  for (let i = 0; i < PARTY_CODE_LENGTH; i++) code += PARTY_CODE_ALPHABET[randomBytes[i] & 31];
  return code;
}

export interface Party {
  readonly code: string;
  readonly leader: string;
  readonly members: Set<string>;
  /** Seats stay held for the party until then (ms, the room's clock). */
  holdUntil: number;
}

export class PartyBook {
  private readonly parties = new Map<string, Party>();
  private readonly memberOf = new Map<string, string>();

  get size(): number {
    return this.parties.size;
  }

  get(code: string): Party | undefined {
    return this.parties.get(code);
  }

  partyOf(playerId: string): Party | undefined {
    const code = this.memberOf.get(playerId);
    return code === undefined ? undefined : this.parties.get(code);
  }

  codes(): string[] {
    return [...this.parties.keys()];
  }

  /** A new party led by `leader` (who must not be in another). */
  create(code: string, leader: string, now: number): Party {
    if (this.parties.has(code)) throw new Error("party code already in use");
    this.leave(leader, now);
    const party: Party = { code, leader, members: new Set([leader]), holdUntil: now + PARTY_HOLD_MS };
    this.parties.set(code, party);
    this.memberOf.set(leader, code);
    return party;
  }

  /** Adds a member to an existing party; undefined for an unknown code. */
  join(code: string, playerId: string, now: number): Party | undefined {
    const party = this.parties.get(code);
    if (!party) return undefined;
    if (this.memberOf.get(playerId) !== code) this.leave(playerId, now);
    party.members.add(playerId);
    this.memberOf.set(playerId, code);
    party.holdUntil = now + PARTY_HOLD_MS;
    return party;
  }

  /** Takes a player out of its party; the party ends with its last member. */
  leave(playerId: string, now: number): { party: Party; ended: boolean } | undefined {
    const party = this.partyOf(playerId);
    if (!party) return undefined;
    this.memberOf.delete(playerId);
    party.members.delete(playerId);
    if (party.members.size === 0) {
      this.parties.delete(party.code);
      return { party, ended: true };
    }
    // The seat stays held a while, so the player can come back to its friends.
    party.holdUntil = now + PARTY_HOLD_MS;
    return { party, ended: false };
  }

  /** Seats held for the parties whose hold is still open. */
  heldSeats(now: number): number {
    let held = 0;
    for (const p of this.parties.values()) if (now < p.holdUntil) held += PARTY_HELD_SEATS;
    return held;
  }
}

/** Seats an arena offers to players outside its parties. */
export function publicSeats(occupied: number, held: number, max = MAX_PLAYERS): number {
  return Math.max(0, max - occupied - held);
}

/** What matchmaking may route to an arena: a public player, a new party (leader + held seats). */
export function seatAvailability(occupied: number, held: number, max = MAX_PLAYERS): { open: boolean; roomForParty: boolean } {
  const free = publicSeats(occupied, held, max);
  return { open: free >= 1, roomForParty: free >= 1 + PARTY_HELD_SEATS };
}
