// A SlitherRush arena's parties (the pure book, src/game/slitherrush/parties.ts), published for
// every process (./matchmaking.ts): each code in presence (code → arena room id; Redis when scaled
// out) so a party join finds this arena, and the seats parties hold in the arena's listing. A code
// that cannot be renewed or deleted is logged and expires with its TTL; when Redis comes back (empty
// perhaps) the arena writes its codes again at once.
import { randomBytes } from "node:crypto";
import type { Presence } from "@colyseus/core";
import type { Logger } from "../../ops/logger.js";
import { PartyBook, partyCodeFrom, seatAvailability, PARTY_CODE_LENGTH, type Party } from "../../game/slitherrush/parties.js";
import type { Dependencies } from "../../dependencies.js";
import { CREATE_PARTY } from "../../protocol/slitherrush.js";
import { PARTY_KEY_TTL_SECONDS, PARTY_MOVING, partyKey, partyOpenerKey, partyStillMoving, unknownParty, type ArenaMetadata } from "./matchmaking.js";

export class ArenaParties extends PartyBook {
  /** The process is stopping: the codes stay, marked as moving, for the parties to reopen elsewhere. */
  private moving = false;
  /** Stops the republishing on Redis' return. */
  private readonly unsubscribe: () => void;

  constructor(
    private readonly presence: Presence,
    private readonly arenaId: string,
    private readonly log: Logger,
    dependencies: Pick<Dependencies, "onRecovered">,
  ) {
    super();
    this.unsubscribe = dependencies.onRecovered("redis", () => this.renewCodes());
  }

  /**
   * Whether a join with `party` ("create", a code, none) may enter: a code must be here, unless this
   * join opens its moving party (`moving`: what the code holds until then, see ./matchmaking.ts routeJoin).
   */
  admits(party: string | undefined, moving: string | undefined): boolean {
    return party === undefined || party === CREATE_PARTY || moving !== undefined || this.get(party) !== undefined;
  }

  /** The party a seated player enters: a new one ("create"), its code's (opened again if `moving`), or none. */
  async enter(player: string, party: string | undefined, moving: string | undefined, now: number): Promise<Party | undefined> {
    if (party === undefined) return undefined;
    if (party === CREATE_PARTY) return this.open(player, now);
    const entered = moving !== undefined ? await this.reopen(party, player, now, moving) : this.join(party, player, now);
    if (!entered) throw unknownParty(party);
    return entered;
  }

  /** A new party led by `leader`, its code published before anyone can be told it. */
  async open(leader: string, now: number): Promise<Party> {
    const code = partyCodeFrom(randomBytes(PARTY_CODE_LENGTH));
    await this.presence.setex(partyKey(code), this.arenaId, PARTY_KEY_TTL_SECONDS);
    return this.create(code, leader, now);
  }

  /**
   * The party `code`, moved from a stopping or dead process, opened again here by the member its
   * members elected (./matchmaking.ts). Idempotent: a party already here is joined. A party the code
   * says is in another arena than `replaces` (PARTY_MOVING or the dead arena's id: an opener elected
   * after another that was only slow) is not taken over: 503, and the member's retry finds that
   * arena by the code.
   */
  async reopen(code: string, member: string, now: number, replaces: string = PARTY_MOVING): Promise<Party> {
    if (!this.get(code)) {
      const arena = (await this.presence.get(partyKey(code))) as string | null;
      if (arena !== null && arena !== PARTY_MOVING && arena !== replaces && arena !== this.arenaId) throw partyStillMoving();
    }
    const here = this.join(code, member, now);
    if (here) return here;
    const party = this.create(code, member, now);
    try {
      await this.presence.setex(partyKey(code), this.arenaId, PARTY_KEY_TTL_SECONDS);
    } catch (err) {
      this.leave(member, now);
      throw err;
    }
    return party;
  }

  /** The arena's process is stopping: every party's code now says its party is moving (kept until its TTL). */
  async moveAll(): Promise<void> {
    this.moving = true;
    const mark = async (code: string) => {
      await this.presence.del(partyOpenerKey(code)); // a party moved before elects its opener afresh
      await this.presence.setex(partyKey(code), PARTY_MOVING, PARTY_KEY_TTL_SECONDS);
    };
    await Promise.all(this.codes().map((code) => mark(code).catch((err: unknown) => this.log.error({ err, code }, "could not mark the party as moving"))));
  }

  /** A member goes; the party's code goes with its last member. */
  async depart(playerId: string, now: number): Promise<void> {
    const left = this.leave(playerId, now);
    if (left?.ended) await this.unpublish(left.party.code);
  }

  /** Keeps the live parties' codes from expiring (call well inside PARTY_KEY_TTL_SECONDS), and writes them again after a Redis outage. */
  async renewCodes(): Promise<void> {
    for (const code of this.codes()) {
      try {
        await this.presence.setex(partyKey(code), this.moving ? PARTY_MOVING : this.arenaId, PARTY_KEY_TTL_SECONDS);
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
    this.unsubscribe();
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
