// The PvP arena room ("pvp", two players): a thin shell around the pure arena simulation, built on
// the room kit. Matchmaking is Colyseus' joinOrCreate into the oldest room with one waiting player
// (registered with sortBy createdAt, maxClients 2; see docs/pvp.md for why that holds across
// processes). The room admits players, validates and rate-limits their messages and queues moves
// and shots (kit/inputs.ts); each fixed step applies the queued inputs, sends their outcome
// (kit/outbox.ts), advances the arena, relays its events and sends the state patch, so each client
// gets a step's news in one write; it persists accounts' results and bullets.
import { CloseCode, ServerError, type AuthContext, type Client } from "@colyseus/core";
import { appContext } from "../../context.js";
import { sanitizeChatText } from "../../game/chat.js";
import { MAX_PLAYERS, SIMULATION_HZ } from "../../game/pvp/constants.js";
import { PvpArena, type ActionError, type PvpEvent, type PvpPlayer } from "../../game/pvp/simulation.js";
import { ErrorCodes, isPointPayload } from "../../protocol/common.js";
import { PVP_ROOM, PvpErrorCodes, pvpInbound, type PvpOutbound } from "../../protocol/pvp.js";
import { PvpRoomState } from "../../protocol/pvpState.js";
import { ShooterInput } from "../../protocol/shooterInput.js";
import { REWIND_HISTORY_MS, rewoundPositions } from "../kit/rewind.js";
import { ShooterInputs } from "../kit/shooterInputs.js";
import { PvpStore } from "../../stores/pvp.js";
import { CHAT_RATE_LIMIT, MessageGuard, sendError, STEERING_RATE_LIMIT } from "../kit/guard.js";
import { InputQueue } from "../kit/inputs.js";
import { TickOutbox } from "../kit/outbox.js";
import { namesThisRoom } from "../kit/roomRef.js";
import { KitRoom } from "../kit/room.js";
import { pairWaitingPlayers } from "./pairing.js";
import { authenticatePvpJoin, battleRecord, broughtIn, seatRules, type PvpAuth, type PvpSeats } from "./seats.js";
import { syncArenaState } from "./state.js";
import { ACTION_ERRORS, battleEndPayload, bothPlayers, playerView, roomStatePayload, roomStatusPayload, shotPayload, type SeatFacts } from "./views.js";

type PvpClient = Client<{ auth: PvpAuth; messages: PvpOutbound }>;

/** How long a dropped connection keeps its seat; a battle waits meanwhile, then it is a forfeit. */
export const RECONNECT_SECONDS = 20;

const MATCH_READY_MESSAGE = "Both players are in the arena! Press Ready to start.";
const BATTLE_START_MESSAGE = "Battle starting!";

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
  private guard!: MessageGuard<PvpClient, typeof pvpInbound>;
  private closing = false;
  private listedPhase = "";
  /** Moves and shots waiting for the next step. */
  private readonly queuedInputs = new InputQueue<PvpClient, "move" | "shoot">();
  /** The outcome of the step's inputs; sent before the step's events and the patch. */
  private readonly outbox = new TickOutbox<PvpClient, PvpOutbound>(PVP_ROOM);

  static onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<PvpAuth> {
    return authenticatePvpJoin(options, context);
  }

  onCreate() {
    this.seats = this.keepSeats(this.reconnectSeconds, seatRules(this.arena, this.store));
    this.state.room_id = this.roomId;
    this.metadata = { phase: this.arena.phase };
    this.listedPhase = this.arena.phase;
    this.registerMessages();
    // Colyseus records the players' synchronized positions at every patch; bullets are judged
    // against them as the shooter saw them (docs/netcode.md).
    const rewind = this.allowRewindState({ maxRewindMs: REWIND_HISTORY_MS });
    rewind.attachAll(this.state.players, { fields: ["x", "y"] });
    this.arena.past = rewoundPositions(rewind, () => this.clock.elapsedTime, (id) => this.state.players.get(id));
    this.setTimestep((dt) => this.tick(dt), 1000 / SIMULATION_HZ);
    // The patch goes out at the end of each step, with the step's messages (not on a timer of its own).
    this.patchRate = null;
  }

  async onJoin(client: PvpClient) {
    const auth = this.authOf(client);
    const { identity } = auth;
    const sid = client.sessionId;
    const { joined, bullets } = await this.seats.admit(sid, identity, { tabAway: false }, async () => {
      const brought = await broughtIn(auth, this.store);
      const joined = this.arena.join(sid, { username: identity.username, ...brought });
      if (!joined.ok) throw new ServerError(409, "this duel already has two players");
      return { joined, bullets: brought.bullets };
    });
    const player = joined.player;
    this.sync();
    client.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, player));
    client.send("pvp_room_status", roomStatusPayload(this.roomId, this.arena));
    const opponent = this.arena.opponentOf(player);
    const other = opponent && this.clients.getById(opponent.id);
    if (opponent && other) {
      other.send("pvp_opponent_joined", { opponent: playerView(player, this.factsOf(sid)), playerCount: this.arena.players.size });
      other.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, opponent));
    }
    this.log.info({ sid, account: identity.userId, number: player.number, bullets }, "player joined a duel");
    this.relayAll(joined.events);
    if (!opponent) this.pairAtNextTick();
  }

  onDrop(client: PvpClient, code?: number) {
    this.queuedInputs.forget(client);
    if (!this.arena.players.has(client.sessionId) || !this.seats.hold(client, code)) return;
    this.arena.setConnected(client.sessionId, false);
    this.sync();
    const player = this.arena.players.get(client.sessionId)!;
    this.broadcast("pvp_opponent_disconnected", { sid: player.id, username: player.username, reconnect_seconds: this.reconnectSeconds }, { except: client });
  }

  onReconnect(client: PvpClient) {
    const player = this.arena.players.get(client.sessionId);
    if (!this.seats.returned(client.sessionId) || !player) return;
    const events = this.arena.setConnected(client.sessionId, true);
    this.sync();
    client.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, player));
    this.broadcast("pvp_opponent_reconnected", { sid: player.id, username: player.username }, { except: client });
    this.relayAll(events);
    if (this.arena.players.size === 1) this.pairAtNextTick();
  }

  async onLeave(client: PvpClient, code?: number) {
    this.guard.forget(client);
    this.queuedInputs.forget(client);
    this.shooterInputs.forget(client.sessionId);
    const reason = code === CloseCode.SERVER_SHUTDOWN || this.closing ? "shutdown" : code === CloseCode.CONSENTED ? "left" : "disconnected";
    await this.release(client.sessionId, reason);
    if (reason !== "shutdown") this.pairAtNextTick();
  }

  /** At server shutdown the battle is called off (no forfeit for anyone); then Colyseus' own disconnect. */
  onBeforeShutdown() {
    this.closing = true;
    super.onBeforeShutdown();
  }

  /** Disposal (also at server shutdown): every seat still here is written, away ones included. */
  async onDispose() {
    this.closing = true;
    await this.seats.dispose();
  }

  // ----------------------------------------------------------------------------------------------

  private readonly factsOf = (sid: string): SeatFacts => {
    const seat = this.seats.get(sid);
    return { guest: seat?.identity.guest ?? false, away: seat?.data.tabAway ?? false };
  };

  private registerMessages(): void {
    const guard = (this.guard = new MessageGuard<PvpClient, typeof pvpInbound>(this, pvpInbound, { limit: STEERING_RATE_LIMIT }));
    const here = (client: PvpClient, named: string | undefined, type: string) => namesThisRoom(this.roomId, client, named, type);
    const refuse = (client: PvpClient, error: ActionError, type: string) => {
      const [code, message] = ACTION_ERRORS[error] ?? [ErrorCodes.invalidPayload, error];
      sendError(client, code, message, type);
    };

    guard.on("pvp_join", (client, msg) => {
      if (!here(client, msg?.room_id ?? msg?.roomId, "pvp_join")) return;
      const player = this.arena.players.get(client.sessionId);
      if (!player) return refuse(client, "not_in_room", "pvp_join");
      client.send("pvp_room_state", roomStatePayload(this.roomId, this.arena, this.factsOf, player));
      client.send("pvp_room_status", roomStatusPayload(this.roomId, this.arena));
    });
    guard.on("pvp_ready", (client, msg) => {
      if (!here(client, msg?.room_id, "pvp_ready")) return;
      const ready = this.arena.ready(client.sessionId);
      if (!ready.ok) return refuse(client, ready.error, "pvp_ready");
      this.sync();
      this.broadcast("pvp_player_ready", { sid: client.sessionId, player_number: ready.player.number });
      this.relayAll(ready.events);
    });
    guard.on(
      "pvp_move",
      (client, msg) => {
        if (here(client, msg.room_id, "pvp_move")) this.queuedInputs.push(client, "move", msg.x, msg.y);
      },
      { fast: isPointPayload },
    );
    guard.on("pvp_shoot", (client, msg) => {
      if (here(client, msg.room_id, "pvp_shoot")) this.queuedInputs.push(client, "shoot", msg.dx, msg.dy);
    });
    guard.on("pvp_hit_opponent", (client) =>
      sendError(client, PvpErrorCodes.serverAuthoritative, "Hits are decided by the server: nothing changed", "pvp_hit_opponent"),
    );
    guard.on("pvp_stats_update", (client) =>
      sendError(client, PvpErrorCodes.serverAuthoritative, "Bullets and lives are kept by the server: nothing changed", "pvp_stats_update"),
    );
    guard.on(
      "pvp_chat_send",
      (client, msg) => {
        if (!here(client, msg.room_id, "pvp_chat_send")) return;
        const player = this.arena.players.get(client.sessionId);
        if (!player) return refuse(client, "not_in_room", "pvp_chat_send");
        const content = sanitizeChatText(msg.content);
        if (!content) return sendError(client, ErrorCodes.invalidPayload, "Invalid pvp_chat_send: content is empty", "pvp_chat_send");
        this.broadcast("pvp_chat_message", { sid: player.id, username: player.username, character: player.character, content }, { except: client });
      },
      { limit: CHAT_RATE_LIMIT },
    );
    const presence = (away: boolean) => (client: PvpClient, msg: { room_id?: string } | undefined) => {
      const type = away ? "pvp_player_away" : "pvp_player_returned";
      if (!here(client, msg?.room_id, type)) return;
      const seat = this.seats.get(client.sessionId);
      const player = this.arena.players.get(client.sessionId);
      if (!seat || !player) return refuse(client, "not_in_room", type);
      if (seat.data.tabAway === away) return;
      seat.data.tabAway = away;
      this.sync();
      this.broadcast(type, { sid: player.id, username: player.username }, { except: client });
    };
    guard.on("pvp_player_away", presence(true));
    guard.on("pvp_player_returned", presence(false));
    guard.on("pvp_get_status", (client, msg) => {
      if (here(client, msg?.room_id, "pvp_get_status")) client.send("pvp_room_status", roomStatusPayload(this.roomId, this.arena));
    });
    guard.on("pvp_leave", async (client, msg) => {
      if (!here(client, msg?.room_id, "pvp_leave")) return;
      await this.release(client.sessionId, "left");
      client.leave(CloseCode.CONSENTED);
    });
    guard.rejectUnknown();
  }

  /**
   * One fixed step: the inputs queued since the last one, in arrival order, and their outcome (as
   * if each had been answered on arrival); then the arena's step and its events; then the patch.
   * All of it in one event-loop turn: one write per client.
   */
  private tick(dtMs: number): void {
    this.queuedInputs.drain(this.applyInput);
    // The input channel's moves and shots, same rules; a shot judged as its sender saw (docs/netcode.md).
    this.shooterInputs.apply((client) => client.auth?.lagCompensation ?? true);
    this.outbox.flush(this.clients);
    this.relayAll(this.arena.step(dtMs));
    this.sync();
    this.broadcastPatch();
  }

  /** Applies one queued input (a message: no render-time stamp, so its shot is judged live); queues what it tells clients. */
  private readonly applyInput = (client: PvpClient, kind: "move" | "shoot", a: number, b: number): void => {
    if (kind === "move") this.move(client, a, b, "pvp_move");
    else this.shoot(client, a, b, 0, "pvp_shoot");
  };

  private readonly shooterInputs = new ShooterInputs<PvpClient>(this, this.inputs, {
    move: (client, x, y) => this.move(client, x, y, "input"),
    shoot: (client, dx, dy, lagMs) => this.shoot(client, dx, dy, lagMs, "input"),
  });

  /** A move; returns whether the speed cap cut it short. */
  private move(client: PvpClient, x: number, y: number, type: "pvp_move" | "input"): boolean {
    const moved = this.arena.move(client.sessionId, x, y);
    if (!moved.ok) {
      this.refuseQueued(client, moved.error, type);
      return false;
    }
    // One payload object for both messages: the outbox encodes it once per message at the step's end.
    const position = { x: moved.player.x, y: moved.player.y };
    this.outbox.to(client, "pvp_self_position", position);
    this.outbox.toOthers(client, "pvp_opponent_position", position);
    return moved.outcome.limited;
  }

  /** A shot whose bullet is judged against the opponent `lagMs` in the past. */
  private shoot(client: PvpClient, dx: number, dy: number, lagMs: number, type: "pvp_shoot" | "input"): void {
    const shot = this.arena.shoot(client.sessionId, dx, dy, lagMs);
    if (!shot.ok) return this.refuseQueued(client, shot.error, type);
    this.outbox.toOthers(client, "pvp_opponent_shot", shotPayload(shot.player.character, shot.bullet));
  }

  /** The `error` for an input the arena refused, in order with the step's other messages. */
  private refuseQueued(client: PvpClient, error: ActionError, type: "pvp_move" | "pvp_shoot" | "input"): void {
    const [code, message] = ACTION_ERRORS[error] ?? [ErrorCodes.invalidPayload, error];
    this.outbox.to(client, "error", { code, message, type });
  }

  private relayAll(events: PvpEvent[]): void {
    for (const event of events) this.relay(event);
  }

  /** The simulation's events, as messages (and, at a battle's end, a record to write). */
  private relay(event: PvpEvent): void {
    switch (event.type) {
      case "match_ready": {
        const both = bothPlayers(this.arena, this.factsOf);
        if (both) this.broadcast("pvp_match_ready", { message: MATCH_READY_MESSAGE, playerCount: this.arena.players.size, ...both });
        break;
      }
      case "battle_start": {
        const both = bothPlayers(this.arena, this.factsOf);
        if (both) this.broadcast("pvp_battle_start", { message: BATTLE_START_MESSAGE, match_id: event.matchId, ...both });
        this.log.info({ matchId: event.matchId }, "duel started");
        break;
      }
      case "player_hit":
        this.broadcast("pvp_player_hit", { target: event.targetId, lives: event.lives, shooter: event.shooterId });
        break;
      case "battle_end": {
        const { result } = event;
        this.broadcast("pvp_battle_end", battleEndPayload(result, this.factsOf));
        this.log.info({ matchId: result.matchId, reason: result.reason, winner: result.winnerId }, "duel ended");
        const record = battleRecord(result, this.roomId, (sid) => this.seats.get(sid)?.identity.userId ?? null);
        if (record.accounts.length) void this.seats.record(record);
        break;
      }
    }
    this.listPhase();
  }

  /**
   * Takes a player out (idempotent): a leave or a drop past the window during a battle is a forfeit
   * (not a server shutdown). Its results and bullets are written before its lease goes, so the
   * next room it joins reads them. Disposal waits for this.
   */
  private async release(sid: string, reason: "left" | "disconnected" | "shutdown"): Promise<void> {
    const player = this.arena.players.get(sid);
    if (player && reason !== "shutdown") {
      const forfeit = this.arena.phase === "battle";
      // The battle's end is recorded while the seat is still here (its account and guest flag).
      this.relayAll(this.arena.leave(sid));
      this.sync();
      const leaving = this.clients.getById(sid);
      const payload = { sid, username: player.username, reason, forfeit, playerCount: this.arena.players.size };
      this.broadcast("pvp_opponent_left", payload, leaving ? { except: leaving } : undefined);
      this.log.info({ sid, reason, forfeit }, "player left a duel");
    }
    await this.seats.leave(sid, reason, player);
    this.listPhase();
  }

  /** Sends a lone waiting player to an older waiting room (src/rooms/pvp/pairing.ts); rooms call it on each other. */
  async pairWaitingPlayers(): Promise<void> {
    await pairWaitingPlayers({ roomName: this.roomName, roomId: this.roomId, log: this.log, waitingAlone: () => this.waitingAlone(), requeue: (p) => this.requeue(p) });
  }

  /** At the next tick, once Colyseus has counted the change (a join, a leave, a freed reconnection seat). */
  private pairAtNextTick(): void {
    this.clock.setTimeout(() => void this.pairWaitingPlayers(), 0);
  }

  /** A reserved seat means an opponent (or a reconnecting player) is on its way: not alone then. */
  private waitingAlone(): PvpPlayer | undefined {
    const player = this.arena.players.size === 1 ? [...this.arena.players.values()][0] : undefined;
    return player?.connected && !this.closing && !this.hasReachedMaxClients() ? player : undefined;
  }

  private async requeue(player: PvpPlayer): Promise<void> {
    const client = this.clients.getById(player.id);
    // Things may have changed while the listing was read: an opponent on its way, a drop.
    if (!client || this.waitingAlone() !== player) return;
    client.send("pvp_requeue", { message: "Another player is waiting for an opponent: joining them", reason: "waiting_player_elsewhere" });
    this.log.info({ sid: player.id }, "player sent to an older waiting duel");
    await this.release(player.id, "left");
    client.leave(CloseCode.CONSENTED);
  }

  private sync(): void {
    syncArenaState(this.state, this.arena, this.factsOf);
  }

  /** Keeps the listing's metadata.phase current (mode status and operators read it). */
  private listPhase(): void {
    const phase = this.arena.phase;
    if (phase === this.listedPhase || this.closing) return;
    this.listedPhase = phase;
    this.setMetadata({ phase }).catch((err: unknown) => this.log.warn({ err }, "could not update the room listing"));
  }

}
