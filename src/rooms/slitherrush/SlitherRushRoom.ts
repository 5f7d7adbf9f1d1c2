// A SlitherRush arena ("slitherrush", up to 32 players): a thin shell around the pure simulation
// (src/game/slitherrush/), built on the room kit. It steps the arena at exactly 30 Hz (Colyseus'
// fixed-timestep accumulator), sends every client its own binary snapshot after every second tick
// (15/s) and the leaderboard every 450 ms, keeps parties together (./matchmaking.ts, partyCodes.ts),
// and leaves accounts' results to its seat keeper (./seats.ts).
import { CloseCode, ServerError, type AuthContext, type Client } from "@colyseus/core";
import { appContext } from "../../context.js";
import type { Identity } from "../../auth/identity.js";
import { SlitherArena } from "../../game/slitherrush/arena.js";
import { LEADERBOARD_INTERVAL_MS, MAX_PLAYERS, TICK_RATE, TICKS_PER_SNAPSHOT } from "../../game/slitherrush/constants.js";
import { publicSeats } from "../../game/slitherrush/parties.js";
import { SnapshotEncoder } from "../../game/slitherrush/snapshotEncoder.js";
import { CREATE_PARTY, SLITHERRUSH_ROOM, slitherrushInbound, slitherrushJoinOptionsSchema, type DeathPayload, type SlitherRushOutbound } from "../../protocol/slitherrush.js";
import { SlitherRushState } from "../../protocol/slitherrushState.js";
import { SlitherRushStore } from "../../stores/slitherrush.js";
import { MessageGuard, STEERING_RATE_LIMIT } from "../kit/guard.js";
import { dismiss } from "../kit/dismiss.js";
import { authenticateJoin } from "../kit/join.js";
import { SEAT_CHECKPOINT_MS } from "../kit/keeper.js";
import { KitRoom } from "../kit/room.js";
import { refuseIfSeated } from "../kit/seats.js";
import { moveAlong } from "../kit/drain.js";
import { partyArenaFull, routeJoin, unknownParty, type ArenaMetadata } from "./matchmaking.js";
import { ArenaParties } from "./partyCodes.js";
import { handleSlitherMessages } from "./messages.js";
import { seatRules, type SlitherSeats } from "./seats.js";
import { joinedPayload } from "./views.js";

/** What onAuth hands to onJoin. */
export interface SlitherRushAuth {
  identity: Identity;
  /** "create", a party code, or none. */
  party?: string;
  /**
   * The party code's arena was on a process that stopped or died: this join opens the party again,
   * replacing what the code holds meanwhile (PARTY_MOVING or the dead arena's id).
   */
  partyMoving?: string;
  direction?: { x: number; y: number };
}
type SlitherClient = Client<{ auth: SlitherRushAuth; messages: SlitherRushOutbound }>;

/**
 * How long a dropped connection keeps its snake (it flies on, not shooting): the server cuts a dark
 * client 6–9 s into an outage, the client notices within 5 s (its heartbeat, web/play/src/net.ts),
 * and 5 s more are margin for the reconnection itself: 9 + 5 + 5 ≤ 20 (docs/security.md).
 */
export const RECONNECT_SECONDS = 20;
/** Party holds expire on their own: the listing is refreshed this often. */
const AVAILABILITY_REFRESH_MS = 1000;

export class SlitherRushRoom extends KitRoom<{ state: SlitherRushState; client: SlitherClient; metadata: ArenaMetadata }> {
  maxClients = MAX_PLAYERS;
  /** Patches go out with the snapshots (after every second tick), not on a timer of their own. */
  patchRate = null;
  state = new SlitherRushState();
  /** The simulation; server-side code (and tests) may reach it through the room instance. */
  arena = new SlitherArena();
  private readonly encoder = new SnapshotEncoder(this.arena);
  private parties!: ArenaParties;
  private readonly store = new SlitherRushStore(appContext().prisma);
  private readonly connected = new Map<string, SlitherClient>();
  /** Account seats' results, from lease to release (src/rooms/kit/keeper.ts). */
  seats!: SlitherSeats;
  private lastSnapshotTick = 0;
  private flushQueued = false;
  /** Deaths of the steps since the last flush. */
  private readonly pendingDeaths: DeathPayload[] = [];
  private disposed = false;

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<SlitherRushAuth> {
    const { identity, options: opts = {} } = await authenticateJoin(slitherrushJoinOptionsSchema, options, context);
    // Refused before matchmaking when the account plays elsewhere (onJoin's lease decides).
    await refuseIfSeated(appContext().matchSeats, identity, SLITHERRUSH_ROOM);
    const route = options && typeof options === "object" ? await routeJoin(options as Record<string, unknown>, opts.party) : undefined;
    return { identity, party: opts.party, direction: opts.direction, partyMoving: route };
  }

  onCreate(options: Partial<Pick<ArenaMetadata, "arena">> = {}) {
    // Matchmaking found no seat in a party's arena: never open another arena for a party member.
    if (options.arena !== undefined) throw partyArenaFull();
    this.seats = this.keepSeats(RECONNECT_SECONDS, seatRules(this.arena, this.store));
    this.parties = new ArenaParties(this.presence, this.roomId, this.log, appContext().dependencies);
    this.metadata = { arena: this.roomId, open: true, roomForParty: true };
    this.state.arena_id = this.roomId;
    this.state.max_players = MAX_PLAYERS;
    this.state.tick_rate = TICK_RATE;
    this.state.snapshot_rate = TICK_RATE / TICKS_PER_SNAPSHOT;
    this.registerMessages();
    this.setFixedTimestep(() => this.tick(), TICK_RATE);
    // With patchRate null and no loop yet, Colyseus started a 60 Hz clock ticker at construction;
    // it would eat the clock deltas setFixedTimestep's accumulator adds up (6 ticks/s instead of 30).
    // Setting it again now that the loop exists stops that ticker.
    this.patchRate = null;
    this.clock.setInterval(() => this.broadcastLeaderboard(), LEADERBOARD_INTERVAL_MS);
    this.clock.setInterval(() => void this.parties.renewCodes(), SEAT_CHECKPOINT_MS);
    this.clock.setInterval(() => void this.refreshAvailability(), AVAILABILITY_REFRESH_MS);
  }

  async onJoin(client: SlitherClient) {
    const auth = this.authOf(client);
    const now = this.clock.currentTime;
    // A code must be known here, unless this join was elected to open its moving party (./matchmaking.ts).
    if (!this.parties.admits(auth.party, auth.partyMoving)) throw unknownParty(auth.party!);
    // Seats held for parties are not for anyone else (also via joinById).
    if (auth.party === undefined && publicSeats(this.seats.size, this.parties.heldSeats(now)) < 1) {
      throw new ServerError(409, "this arena's free seats are held for a party: join again");
    }
    const { snake, party } = await this.seats.admit(client.sessionId, auth.identity, { joinedTick: this.arena.tick }, async (seat) => {
      const party = await this.parties.enter(client.sessionId, auth.party, auth.partyMoving, now);
      const snake = this.arena.addPlayer(client.sessionId, { username: auth.identity.username, direction: auth.direction });
      if (!snake) {
        await this.parties.depart(client.sessionId, now);
        throw new ServerError(409, "this arena is full");
      }
      seat.data.joinedTick = this.arena.tick;
      return { snake, party };
    });
    this.connected.set(client.sessionId, client);
    this.encoder.addViewer(client.sessionId);
    client.send("slitherrush_joined", joinedPayload(this.roomId, snake, party, party?.leader === client.sessionId && auth.party === CREATE_PARTY));
    this.state.player_count = this.arena.playerCount;
    this.log.info({ sid: client.sessionId, account: auth.identity.userId, party: party?.code }, "player joined the arena");
    await this.refreshAvailability();
  }

  onDrop(client: SlitherClient, code?: number) {
    if (!this.seats.hold(client, code)) return;
    this.connected.delete(client.sessionId);
    this.encoder.removeViewer(client.sessionId);
    // A snake whose player is away keeps flying but stops firing.
    this.arena.setInput(client.sessionId, { shoot: false });
  }

  onReconnect(client: SlitherClient) {
    if (!this.seats.returned(client.sessionId)) return;
    const snake = this.arena.players.get(client.sessionId);
    if (!snake) return;
    this.connected.set(client.sessionId, client);
    this.encoder.addViewer(client.sessionId);
    const party = this.parties.partyOf(client.sessionId);
    client.send("slitherrush_joined", joinedPayload(this.roomId, snake, party, false));
  }

  async onLeave(client: SlitherClient, code?: number) {
    await this.release(client.sessionId, code === CloseCode.CONSENTED ? "left" : "disconnect");
  }

  /**
   * A stopping process: the parties' codes are kept as moving, then the players are told to
   * matchmake again, on another process (kit/drain.ts); a party's members join with its code again.
   */
  async onBeforeShutdown() {
    await this.parties.moveAll();
    await moveAlong(this);
  }

  /** Disposal (also at server shutdown): every seat still here is written, away ones included. */
  async onDispose() {
    this.disposed = true;
    await this.seats.dispose("arena closed");
    await this.parties.unpublishAll();
  }

  /** Sends every client its snapshot (Room.broadcastPatch calls this before the state patch). */
  onBeforePatch() {
    if (this.disposed || this.arena.tick === this.lastSnapshotTick) return;
    this.lastSnapshotTick = this.arena.tick;
    this.encoder.encode((sid, bytes) => this.connected.get(sid)?.sendBytes("slitherrush_state", bytes));
  }

  // ----------------------------------------------------------------------------------------------

  private registerMessages(): void {
    const options = { limit: STEERING_RATE_LIMIT, roomField: "arena_id", log: this.log };
    handleSlitherMessages(this.forgetOnLeave(new MessageGuard<SlitherClient, typeof slitherrushInbound>(this, slitherrushInbound, options)), {
      roomId: this.roomId,
      arena: this.arena,
      partyOf: (sid) => this.parties.partyOf(sid),
      resync: (sid) => this.encoder.resync(sid),
      dismiss: (sid) => dismiss(this.clients, sid, () => this.release(sid, "left")),
    });
  }

  /**
   * One fixed step. What it tells clients goes out right after this callback (the step stays pure
   * simulation): deaths at once, snapshots when the step reached an even tick. Counting even ticks
   * reached (not ticks since the last snapshot) keeps 15/s when the accumulator runs two steps in
   * one callback.
   */
  private tick(): void {
    const events = this.arena.step();
    if (events.hits.length) this.encoder.noteHits(events.hits.map((h) => h.bulletId));
    for (const d of events.deaths) this.pendingDeaths.push({ player_id: d.playerId, killer_id: d.killerId, reason: d.reason });
    const due = Math.floor(this.arena.tick / TICKS_PER_SNAPSHOT) > Math.floor(this.lastSnapshotTick / TICKS_PER_SNAPSHOT);
    if ((due || this.pendingDeaths.length) && !this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.disposed) return;
    for (const death of this.pendingDeaths.splice(0)) this.broadcast("slitherrush_death", death);
    if (Math.floor(this.arena.tick / TICKS_PER_SNAPSHOT) > Math.floor(this.lastSnapshotTick / TICKS_PER_SNAPSHOT)) this.broadcastPatch();
  }

  private broadcastLeaderboard(): void {
    if (this.arena.playerCount === 0) return;
    this.broadcast("slitherrush_leaderboard_update", { leaderboard: this.arena.leaderboard(), player_count: this.arena.playerCount });
  }

  /** Publishes whether this arena takes a public player or a new party (holds expire by time). */
  private async refreshAvailability(): Promise<void> {
    const listing = this.disposed ? undefined : this.parties.listing(this.seats.size, this.clock.currentTime, this.metadata);
    if (listing) await this.setMetadata(listing).catch((err: unknown) => this.log.error({ err }, "could not update the arena listing"));
  }

  /** Takes a player out (idempotent): its seat (final write, then lease), the arena, its party, the death notice. */
  private async release(sid: string, reason: DeathPayload["reason"]): Promise<void> {
    // Everything up to the first await happens at once, so a second call (the leave message, then
    // onLeave) finds nothing left to do.
    const written = this.seats.leave(sid, reason);
    const snake = this.arena.removePlayer(sid);
    this.connected.delete(sid);
    this.encoder.removeViewer(sid);
    const departed = this.parties.depart(sid, this.clock.currentTime);
    if (snake) {
      this.state.player_count = this.arena.playerCount;
      this.broadcast("slitherrush_death", { player_id: sid, killer_id: null, reason });
    }
    await departed;
    await this.refreshAvailability();
    await written;
  }
}
