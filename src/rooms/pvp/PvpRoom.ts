// The PvP arena room ("pvp", two players): a thin shell around the pure arena simulation, built on
// the room kit. Matchmaking is Colyseus' joinOrCreate into the oldest room with one waiting player
// (sortBy createdAt, maxClients 2; docs/pvp.md), then ./pairing.ts. The room admits players and
// takes their moves and shots (kit/shooterControls.ts; other messages: ./messages.ts); each fixed step
// applies them, sends their outcome (kit/outbox.ts), advances the arena, relays its events
// (./relay.ts) and sends the state patch, so each client gets a step's news in one write.
import { CloseCode, type AuthContext } from "@colyseus/core";
import { appContext } from "../../context.js";
import { MAX_PLAYERS, SIMULATION_HZ } from "../../game/pvp/constants.js";
import { PvpArena, type ActionError } from "../../game/pvp/simulation.js";
import { ErrorCodes, isPointPayload } from "../../protocol/common.js";
import { PVP_ROOM, pvpInbound, type PvpOutbound } from "../../protocol/pvp.js";
import { PvpRoomState } from "../../protocol/pvpState.js";
import { ShooterInput } from "../../protocol/shooterInput.js";
import { ShooterControls, type InputSource } from "../kit/shooterControls.js";
import { PvpStore } from "../../stores/pvp.js";
import { dismiss } from "../kit/dismiss.js";
import { MessageGuard, STEERING_RATE_LIMIT } from "../kit/guard.js";
import { TickOutbox } from "../kit/outbox.js";
import { PresenceFeed } from "../kit/presence.js";
import { KitRoom } from "../kit/room.js";
import { MatchDrain } from "../kit/drain.js";
import { handlePvpMessages, type PvpMessagesRoom } from "./messages.js";
import { DuelPairing } from "./pairing.js";
import { DuelRelay } from "./relay.js";
import { authenticatePvpJoin, enterDuel, seatFacts, seatRules, type PvpAuth, type PvpClient, type PvpSeats } from "./seats.js";
import { syncArenaState } from "./state.js";
import { ACTION_ERRORS, roomStatePayload, roomStatusPayload, shotPayload, type FactsOf } from "./views.js";

/** How long a dropped connection keeps its seat; a battle waits meanwhile, then it is a forfeit. */
export const RECONNECT_SECONDS = 20;

export class PvpRoom extends KitRoom<{ state: PvpRoomState; client: PvpClient; input: ShooterInput }> {
  maxClients = MAX_PLAYERS;
  state = new PvpRoomState();
  /** Colyseus' input channel (`room.input({ type: ShooterInput })`): moves and shots with the client's render-time stamp. */
  inputs = this.defineInput(ShooterInput);
  /** The simulation; server-side code (and tests) may reach it through the room instance. */
  arena = new PvpArena();
  /** Seconds a dropped connection may take to come back (tests shorten it in a subclass). */
  protected reconnectSeconds = RECONNECT_SECONDS;
  private readonly store = new PvpStore(appContext().prisma);
  /** Account seats' bullets and the duels' results, from lease to release (src/rooms/kit/keeper.ts). */
  seats!: PvpSeats;
  /** What the room knows of a seat beyond the arena (guest, away). */
  private factsOf!: FactsOf;
  /** Away and back, told to the opponent (coalesced). */
  private awayNotices!: PresenceFeed<string>;
  /** A dropped connection and its return, told to the opponent (coalesced like away and back). */
  private readonly connectionNotices = new PresenceFeed<string>(this.clock, {
    tell: (sid, username, dropped) => {
      const sender = this.clients.getById(sid);
      const except = sender ? { except: sender } : undefined;
      if (dropped) this.broadcast("pvp_opponent_disconnected", { sid, username, reconnect_seconds: this.reconnectSeconds }, except);
      else this.broadcast("pvp_opponent_reconnected", { sid, username }, except);
    },
  });
  /** What the duel tells its clients besides answers and positions (./relay.ts). */
  private relay!: DuelRelay;
  private pairing!: DuelPairing;
  private closing = false;
  /** A stopping process lets a running battle play to its end (or the drain limit); kit/drain.ts. */
  private readonly drain = new MatchDrain(this, () => this.arena.phase === "battle", () => (this.closing = true));
  /** Moves and shots, as messages or on the input channel. */
  private readonly controls = this.forgetOnLeave(
    new ShooterControls<PvpClient>(this, this.inputs, { move: (...move) => this.move(...move), shoot: (c, dx, dy, lagMs, source, ageMs) => this.shoot(c, dx, dy, lagMs, source, ageMs) }),
  );
  /** The outcome of the step's inputs; sent before the step's events and the patch. */
  private readonly outbox = new TickOutbox<PvpClient, PvpOutbound>(PVP_ROOM);

  static onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<PvpAuth> {
    return authenticatePvpJoin(options, context);
  }

  onCreate() {
    this.seats = this.keepSeats(this.reconnectSeconds, seatRules(this.arena, this.store));
    this.factsOf = seatFacts(this.seats);
    this.state.room_id = this.roomId;
    this.metadata = { phase: this.arena.phase };
    // What the side files (./relay.ts, ./pairing.ts, ./messages.ts) need of the room.
    const duel = {
      roomName: this.roomName,
      roomId: this.roomId,
      log: this.log,
      clock: this.clock,
      arena: this.arena,
      seats: this.seats,
      factsOf: this.factsOf,
      broadcast: this.broadcaster,
      client: (sid: string) => this.clients.getById(sid),
      dismiss: (sid: string) => dismiss(this.clients, sid, () => this.release(sid, "left")),
      closing: () => this.closing,
      sync: () => this.sync(),
    };
    this.relay = new DuelRelay({ ...duel, list: (metadata) => this.setMetadata(metadata) });
    this.pairing = new DuelPairing({ ...duel, open: () => !this.closing && !this.hasReachedMaxClients(), pairWaitingPlayers: () => this.pairWaitingPlayers() });
    this.registerMessages({ ...duel, relay: this.relay });
    // Bullets are judged against the players' positions as the shooter saw them (docs/netcode.md).
    const players = this.state.players;
    this.arena.past = this.rewindPositions((rewind) => rewind.attachAll(players, { fields: ["x", "y"] }), (id) => players.get(id));
    this.stepAndPatch((dt) => this.tick(dt), SIMULATION_HZ);
  }

  async onJoin(client: PvpClient) {
    const auth = this.authOf(client);
    const { identity } = auth;
    const sid = client.sessionId;
    const { player, events, bullets } = await this.seats.admit(sid, identity, { tabAway: false }, () => enterDuel(sid, auth, this.store, this.arena));
    this.sync();
    client.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, player));
    client.send("pvp_room_status", roomStatusPayload(this.roomId, this.arena));
    const opponent = this.relay.joined(player);
    this.log.info({ sid, account: identity.userId, number: player.number, bullets }, "player joined a duel");
    this.relay.events(events);
    if (!opponent) this.pairing.soon();
  }

  onDrop(client: PvpClient, code?: number) {
    this.controls.drop(client);
    if (!this.arena.players.has(client.sessionId) || !this.seats.hold(client, code)) return;
    this.arena.setConnected(client.sessionId, false);
    this.sync();
    this.connectionNotices.set(client.sessionId, this.arena.players.get(client.sessionId)!.username, true);
  }

  onReconnect(client: PvpClient) {
    const player = this.arena.players.get(client.sessionId);
    if (!this.seats.returned(client.sessionId) || !player) return;
    const events = this.arena.setConnected(client.sessionId, true);
    this.sync();
    client.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, player));
    this.connectionNotices.set(client.sessionId, player.username, false);
    this.relay.events(events);
    if (this.arena.players.size === 1) this.pairing.soon();
  }

  async onLeave(client: PvpClient, code?: number) {
    const reason = code === CloseCode.SERVER_SHUTDOWN || this.closing ? "shutdown" : code === CloseCode.CONSENTED ? "left" : "disconnected";
    await this.release(client.sessionId, reason);
    if (reason !== "shutdown") this.pairing.soon();
  }

  /**
   * At server shutdown a running battle plays on to its end; at the drain limit it is called off (no
   * forfeit for anyone). Players not in a battle are told to matchmake again at once.
   */
  onBeforeShutdown() {
    this.drain.begin();
  }

  /** Disposal (also at server shutdown): every seat still here is written, away ones included. */
  async onDispose() {
    this.closing = true;
    await this.seats.dispose();
  }

  // ----------------------------------------------------------------------------------------------

  /** Moves and shots are queued for the step; every other message is handled in ./messages.ts. */
  private registerMessages(duel: PvpMessagesRoom): void {
    const guard = this.forgetOnLeave(new MessageGuard<PvpClient, typeof pvpInbound>(this, pvpInbound, { limit: STEERING_RATE_LIMIT, roomField: "room_id", log: this.log }));
    this.awayNotices = handlePvpMessages(guard, duel);
    guard.on("pvp_move", (client, msg) => this.controls.queueMove(client, msg.x, msg.y), { fast: isPointPayload });
    guard.on("pvp_shoot", (client, msg) => this.controls.queueShot(client, msg.dx, msg.dy));
    guard.rejectUnknown();
  }

  /**
   * One fixed step: the inputs queued since the last one, in arrival order, and their outcome (as
   * if each had been answered on arrival); then the arena's step and its events; then the patch.
   * All of it in one event-loop turn: one write per client.
   */
  private tick(dtMs: number): void {
    // Messages, then the input channel's moves and shots, same rules; a shot judged as its sender saw (docs/netcode.md).
    this.controls.apply((client) => client.auth?.lagCompensation ?? true);
    this.outbox.flush(this.clients);
    this.relay.events(this.arena.step(dtMs));
    this.sync();
    this.broadcastPatch();
    this.drain.check();
  }

  /** A move; returns whether the speed cap cut it short. */
  private move(client: PvpClient, x: number, y: number, source: InputSource): boolean {
    const moved = this.arena.move(client.sessionId, x, y);
    if (!moved.ok) {
      this.refuseQueued(client, moved.error, source === "input" ? "input" : "pvp_move");
      return false;
    }
    // One payload object for both messages: the outbox encodes it once per message at the step's end.
    const position = { x: moved.player.x, y: moved.player.y };
    this.outbox.to(client, "pvp_self_position", position);
    this.outbox.toOthers(client, "pvp_opponent_position", position);
    return moved.outcome.limited;
  }

  /** A shot whose bullet is judged against the opponent `lagMs` in the past. */
  private shoot(client: PvpClient, dx: number, dy: number, lagMs: number, source: InputSource, ageMs: number): void {
    const shot = this.arena.shoot(client.sessionId, dx, dy, lagMs, ageMs);
    if (!shot.ok) return this.refuseQueued(client, shot.error, source === "input" ? "input" : "pvp_shoot");
    this.outbox.toOthers(client, "pvp_opponent_shot", shotPayload(shot.player.character, shot.bullet));
  }

  /** The `error` for an input the arena refused, in order with the step's other messages. */
  private refuseQueued(client: PvpClient, error: ActionError, type: "pvp_move" | "pvp_shoot" | "input"): void {
    const [code, message] = ACTION_ERRORS[error] ?? [ErrorCodes.invalidPayload, error];
    this.outbox.to(client, "error", { code, message, type });
  }

  /**
   * Takes a player out (idempotent): a leave or a drop past the window during a battle is a forfeit
   * (not a server shutdown). Its results and bullets are written before its lease goes, so the
   * next room it joins reads them. Disposal waits for this.
   */
  private async release(sid: string, reason: "left" | "disconnected" | "shutdown"): Promise<void> {
    const player = this.arena.players.get(sid);
    this.awayNotices.forget(sid);
    this.connectionNotices.forget(sid);
    if (player && reason !== "shutdown") {
      const forfeit = this.arena.phase === "battle";
      // The battle's end is recorded while the seat is still here (its account and guest flag).
      this.relay.events(this.arena.leave(sid));
      this.sync();
      this.relay.left(player, reason, forfeit);
    }
    await this.seats.leave(sid, reason, player);
    this.relay.listPhase();
  }

  /** Runs pairing (./pairing.ts); rooms call it on each other. */
  async pairWaitingPlayers(): Promise<void> {
    await this.pairing.run();
  }

  private sync(): void {
    syncArenaState(this.state, this.arena, this.factsOf);
  }
}
