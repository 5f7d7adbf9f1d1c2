// Where `joinOrCreate("slitherrush", options)` puts a player, on any process. The room type is
// registered with `.filterBy(ROUTE_KEYS).sortBy({ createdAt: 1 })`: matchmaking takes the oldest
// arena whose listing matches the routing key the join's onAuth sets (the client never sets them):
//   - a plain join:          { open: true }          an arena with a seat not held for a party;
//   - `party: "create"`:     { roomForParty: true }  an arena with room for the leader and the
//                                                    seats it holds for the party's next members;
//   - `party: CODE`:         { arena: <room id> }    the party's arena, found through presence
//                                                    (Redis when scaled out) by its code.
// No matching arena: a plain or create join opens a new one; a party join never does (the room
// refuses to be created for it), so a party is never split silently.
// A moving party (its arena's process is stopping) is opened again by exactly one of its members,
// however many join with its code at the same instant, on one process or several: the first to
// claim it (an atomic counter in presence) goes where a new party would and opens it; the others
// wait for the code to name that arena and join it there. A party whose arena's process died
// (kill -9: the code still names the arena, whose listing is gone or whose process no longer
// answers) moves the same way, its members elected among those who join with the code.
import { matchMaker, ServerError, type IRoomCache, type Presence } from "@colyseus/core";
import { CREATE_PARTY } from "../../protocol/slitherrush.js";

export const ROUTE_KEYS = ["open", "roomForParty", "arena"] as const;

/** The arena's matchmaking listing metadata. */
export interface ArenaMetadata {
  /** The room id, so a party join can target it. */
  arena: string;
  /** A seat is free that no party holds. */
  open: boolean;
  /** Room for a new party: its leader plus the seats it holds. */
  roomForParty: boolean;
}

/** code → arena room id, in presence; the arena renews it while the party lives. */
export const partyKey = (code: string) => `slitherrush:party:${code}`;
/**
 * A party key's value while its arena's process is stopping (server_draining): the party moves.
 * The first member to join with the code opens it again, same code, in an arena elsewhere; the
 * others then find that arena by the code as usual. It expires with the key's TTL.
 */
export const PARTY_MOVING = "moving";
export const PARTY_KEY_TTL_SECONDS = 120;
/**
 * A moving party's opener claims: a hash of counters, one per round (`r0`, `r1`, …); the first to
 * count 1 opens. `from` is the value the code holds until the party is open again: PARTY_MOVING,
 * or the id of the arena that died with its process (one election per dead arena).
 */
export const partyOpenerKey = (code: string, from: string = PARTY_MOVING) =>
  from === PARTY_MOVING ? `slitherrush:party:${code}:opener` : `slitherrush:party:${code}:opener:${from}`;
/** How long the others wait for the opener to name the arena before a new round elects another. */
export const OPENER_WAIT_MS = 3000;
/** Rounds before a member is told to join again (503): openers that vanished (their client never came). */
const OPENER_ROUNDS = 3;
const OPENER_POLL_MS = 50;

/** Join errors a client sees as MatchMakeError(code, message). */
export const unknownParty = (code: string) => new ServerError(404, `unknown party code ${code}: no SlitherRush party has it (it may have ended)`);
export const partyArenaFull = () => new ServerError(409, "the party's arena is full (32 players): try again when a seat frees up");
/** Retriable (clients retry 503): the party is still being opened again, or in another arena than this join's. */
export const partyStillMoving = () => new ServerError(503, "the party is moving to another server: join again");

/**
 * Sets the routing key of a join on the options Colyseus matchmakes with (onAuth runs before the
 * arena is looked up, on the same options object). Throws a clear error for a party that does not
 * exist or whose arena has no seat. For a party whose arena's process is stopping or dead, when this
 * join is elected to open it again, returns the value its code holds meanwhile (PARTY_MOVING or the
 * dead arena's id; ArenaParties.reopen replaces exactly that): the join goes where a new party
 * would, and opens the party there again.
 */
export async function routeJoin(options: Record<string, unknown>, party: string | undefined): Promise<string | undefined> {
  for (const key of ROUTE_KEYS) delete options[key];
  if (party === undefined) {
    options.open = true;
    return;
  }
  if (party === CREATE_PARTY) {
    options.roomForParty = true;
    return;
  }
  let arena = (await matchMaker.presence.get(partyKey(party))) as string | null;
  let listing: IRoomCache | undefined;
  // A stopping process's party moves; so does a dead one's, whose code names a gone arena. Checked
  // again after a move: the arena its opener opened may have died since.
  for (let moves = 0; arena !== null; moves++) {
    if (arena !== PARTY_MOVING) {
      listing = await matchMaker.getRoomById(arena);
      if (listing && (await processAlive(listing.processId))) break;
      listing = undefined;
    }
    if (moves === 2) throw partyStillMoving();
    const from: string = arena;
    arena = await followMovingParty(matchMaker.presence, party, OPENER_WAIT_MS, from);
    if (arena === PARTY_MOVING) {
      options.roomForParty = true;
      return from;
    }
  }
  if (!arena || !listing) throw unknownParty(party);
  if (listing.clients >= listing.maxClients) throw partyArenaFull();
  options.arena = arena;
  return undefined;
}

/**
 * Whether the process hosting a listed room lives: this one, one subscribed to its Colyseus channel
 * (Redis drops a dead process's subscription as soon as its connections close), or, when the
 * subscription is missing (a process reconnecting to Redis), one that answers Colyseus' health
 * check within 2 s (a failed check also removes the process's listings).
 */
async function processAlive(processId: string): Promise<boolean> {
  if (processId === matchMaker.processId) return true;
  const channels = await matchMaker.presence.channels(`p:${processId}`);
  if (channels.length > 0) return true;
  return matchMaker.healthCheckProcessId(processId);
}

/**
 * A member of a moving party (its code holds `from`: PARTY_MOVING, or its dead arena's id):
 * PARTY_MOVING when this join is elected to open it again, else the arena its opener opened it in
 * (null: the party ended meanwhile). Each round elects one opener (the first to count 1); a round
 * whose opener named no arena within OPENER_WAIT_MS gives way to the next, which every waiting
 * member enters at once, so exactly one of them opens again.
 */
export async function followMovingParty(presence: Presence, code: string, waitMs = OPENER_WAIT_MS, from: string = PARTY_MOVING): Promise<string | null> {
  for (let round = 0; round < OPENER_ROUNDS; round++) {
    const claims = await presence.hincrbyex(partyOpenerKey(code, from), `r${round}`, 1, PARTY_KEY_TTL_SECONDS);
    if (claims === 1) return PARTY_MOVING;
    for (const deadline = Date.now() + waitMs; Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, OPENER_POLL_MS));
      const arena = ((await presence.get(partyKey(code))) as string | undefined) ?? null;
      // The arena opened in place of a dead one is on a stopping process already: that move now.
      if (arena === PARTY_MOVING && from !== PARTY_MOVING) return followMovingParty(presence, code, waitMs);
      if (arena !== from) return arena;
    }
  }
  throw partyStillMoving();
}
