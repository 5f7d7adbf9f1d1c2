// A SlitherRush arena's parties (the pure book, src/game/slitherrush/parties.ts), published for
// every process (./matchmaking.ts): each code in presence (code → arena room id; Redis when scaled
// out) so a party join finds this arena, and the seats parties hold in the arena's listing. A code
// that cannot be renewed or deleted is logged and expires with its TTL.
import { randomBytes } from "node:crypto";
import type { Presence } from "@colyseus/core";
import type { Logger } from "../../logger.js";
import { PartyBook, partyCodeFrom, seatAvailability, PARTY_CODE_LENGTH, type Party } from "../../game/slitherrush/parties.js";
import { PARTY_KEY_TTL_SECONDS, PARTY_MOVING, partyKey, type ArenaMetadata } from "./matchmaking.js";

export class ArenaParties extends PartyBook {
  /** The process is stopping: the codes stay, marked as moving, for the parties to reopen elsewhere. */
  private moving = false;

  constructor(
    private readonly presence: Presence,
    private readonly arenaId: string,
    private readonly log: Logger,
  ) {
    super();
  }

  /** A new party led by `leader`, its code published before anyone can be told it. */
  async open(leader: string, now: number): Promise<Party> {
    const code = partyCodeFrom(randomBytes(PARTY_CODE_LENGTH));
    await this.presence.setex(partyKey(code), this.arenaId, PARTY_KEY_TTL_SECONDS);
    return this.create(code, leader, now);
  }

  /** The party `code`, moved from a stopping process, opened again here by its first member back. */
  async reopen(code: string, member: string, now: number): Promise<Party> {
    await this.presence.setex(partyKey(code), this.arenaId, PARTY_KEY_TTL_SECONDS);
    return this.create(code, member, now);
  }

  /** The arena's process is stopping: every party's code now says its party is moving (kept until its TTL). */
  async moveAll(): Promise<void> {
    this.moving = true;
    await Promise.all(
      this.codes().map((code) =>
        this.presence.setex(partyKey(code), PARTY_MOVING, PARTY_KEY_TTL_SECONDS).catch((err: unknown) => this.log.error({ err, code }, "could not mark the party as moving")),
      ),
    );
  }

  /** A member goes; the party's code goes with its last member. */
  async depart(playerId: string, now: number): Promise<void> {
    const left = this.leave(playerId, now);
    if (left?.ended) await this.unpublish(left.party.code);
  }

  /** Keeps the live parties' codes from expiring (call well inside PARTY_KEY_TTL_SECONDS). */
  async renewCodes(): Promise<void> {
    for (const code of this.codes()) {
      try {
        await this.presence.setex(partyKey(code), this.arenaId, PARTY_KEY_TTL_SECONDS);
      } catch (err) {
        this.log.error({ err, code }, "could not renew the party code");
      }
    }
  }

  /** The listing to publish with `occupied` seats, or undefined when `current` already says it. */
  listing(occupied: number, now: number, current: ArenaMetadata | undefined): ArenaMetadata | undefined {
    const next = seatAvailability(occupied, this.heldSeats(now));
    if (current && current.open === next.open && current.roomForParty === next.roomForParty) return undefined;
    return { arena: this.arenaId, ...next };
  }

  /** The arena closes: every code stops working. */
  async unpublishAll(): Promise<void> {
    await Promise.all(this.codes().map((code) => this.unpublish(code)));
  }

  private async unpublish(code: string): Promise<void> {
    if (this.moving) return;
    try {
      await this.presence.del(partyKey(code));
    } catch (err) {
      this.log.error({ err, code }, "could not delete the party code");
    }
  }
}
