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
import { ErrorCodes } from "../../protocol/common.js";
import { CREATE_PARTY, SLITHERRUSH_ROOM, slitherrushInbound, slitherrushJoinOptionsSchema, type DeathPayload, type SlitherRushOutbound } from "../../protocol/slitherrush.js";
import { SlitherRushState } from "../../protocol/slitherrushState.js";
import { liveStatus } from "../../shared/modeStatus.js";
import { SlitherRushStore } from "../../stores/slitherrush.js";
import { MessageGuard, STEERING_RATE_LIMIT, sendError } from "../kit/guard.js";
import { dismiss } from "../kit/dismiss.js";
import { authenticateJoin } from "../kit/join.js";
import { SEAT_CHECKPOINT_MS } from "../kit/keeper.js";
import { KitRoom } from "../kit/room.js";
import { refuseIfSeated } from "../kit/seats.js";
import { moveAlong } from "../kit/drain.js";
import { partyArenaFull, routeJoin, unknownParty, type ArenaMetadata } from "./matchmaking.js";
import { ArenaParties } from "./partyCodes.js";
import { seatRules, type SlitherSeats } from "./seats.js";
import { joinedPayload } from "./views.js";

/** What onAuth hands to onJoin. */
export interface SlitherRushAuth {
  identity: Identity;
  /** "create", a party code, or none. */
  party?: string;
  /** The party code's arena was on a process that stopped: this join opens the party again. */
  partyMoving?: boolean;
  direction?: { x: number; y: number };
}
type SlitherClient = Client<{ auth: SlitherRushAuth; messages: SlitherRushOutbound }>;

/**
 * How long a dropped connection keeps its snake (it flies on, not shooting): the server cuts a dark
 * client 6–9 s into an outage, the client notices within 5 s (its heartbeat, web/play/src/net.ts),
 * and 5 s more are margin for the reconnection itself: 9 + 5 + 5 ≤ 20 (docs/security.md).
 */
export const RECONNECT_SECONDS = 20;
/** slitherrush_get_status per client, on top of the steering limit. */
const STATUS_RATE_LIMIT = { name: "status", ratePerSecond: 1, burst: 3 };
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
  private guard!: MessageGuard<SlitherClient, typeof slitherrushInbound>;
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
    return { identity, party: opts.party, direction: opts.direction, partyMoving: route === "moving" };
  }

  onCreate(options: Partial<Pick<ArenaMetadata, "arena">> = {}) {
    // Matchmaking found no seat in a party's arena: never open another arena for a party member.
    if (options.arena !== undefined) throw partyArenaFull();
    this.seats = this.keepSeats(RECONNECT_SECONDS, seatRules(this.arena, this.store));
    this.parties = new ArenaParties(this.presence, this.roomId, this.log);
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
    const code = auth.party !== undefined && auth.party !== CREATE_PARTY ? auth.party : undefined;
    // A moving party is opened again here by its first member back (./matchmaking.ts).
    const reopen = code !== undefined && auth.partyMoving === true && !this.parties.get(code);
    if (code !== undefined && !reopen && !this.parties.get(code)) throw unknownParty(code);
    // Seats held for parties are not for anyone else (also via joinById).
    if (code === undefined && publicSeats(this.seats.size, this.parties.heldSeats(now)) < 1) {
      throw new ServerError(409, "this arena's free seats are held for a party: join again");
    }
    const { snake, party } = await this.seats.admit(client.sessionId, auth.identity, { joinedTick: this.arena.tick }, async (seat) => {
      const party =
        code !== undefined
          ? reopen
            ? await this.parties.reopen(code, client.sessionId, now)
            : this.parties.join(code, client.sessionId, now)
          : auth.party === CREATE_PARTY
            ? await this.parties.open(client.sessionId, now)
            : undefined;
      if (code !== undefined && !party) throw unknownParty(code);
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
    this.guard.forget(client);
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
    const guard = (this.guard = new MessageGuard<SlitherClient, typeof slitherrushInbound>(this, slitherrushInbound, options));
    const playing = (client: SlitherClient, type: string) => {
      if (this.arena.players.has(client.sessionId)) return true;
      sendError(client, ErrorCodes.notInRoom, "You have no snake in this arena", type);
      return false;
    };
    guard.on("slitherrush_input", (client, msg) => {
      if (playing(client, "slitherrush_input")) this.arena.setInput(client.sessionId, { direction: msg.direction, shoot: msg.shoot });
    });
    guard.on("slitherrush_play_again", (client) => {
      if (playing(client, "slitherrush_play_again")) this.encoder.resync(client.sessionId);
    });
    guard.on("slitherrush_leave", ({ sessionId: sid }) => dismiss(this.clients, sid, () => this.release(sid, "left")));
    // Each answer queries every room listing (Redis when scaled out): a few per client, not a stream.
    guard.on(
      "slitherrush_get_status",
      async (client) => {
        const { modes } = await liveStatus();
        client.send("slitherrush_status", modes.slitherrush);
      },
      { limit: STATUS_RATE_LIMIT },
    );
    guard.on("slitherrush_join", (client) => {
      const snake = this.arena.players.get(client.sessionId);
      if (snake) client.send("slitherrush_joined", joinedPayload(this.roomId, snake, this.parties.partyOf(client.sessionId), false));
    });
    guard.rejectUnknown();
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
