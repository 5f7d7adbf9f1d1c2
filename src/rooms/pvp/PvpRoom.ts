// The PvP arena room ("pvp", two players): a thin shell around the pure arena simulation, built on
// the room kit. Matchmaking is Colyseus' joinOrCreate into the oldest room with one waiting player
// (registered with sortBy createdAt, maxClients 2; see docs/pvp.md for why that holds across
// processes). The room admits players, validates and rate-limits their messages and queues moves
// and shots (kit/inputs.ts); each fixed step applies the queued inputs, sends their outcome
// (kit/outbox.ts), advances the arena, relays its events and sends the state patch, so each client
// gets a step's news in one write; it persists accounts' results and bullets.
import { CloseCode, matchMaker, ServerError, type AuthContext, type Client, type IRoomCache } from "@colyseus/core";
import { appContext } from "../../context.js";
import type { Identity } from "../../auth/identity.js";
import { sanitizeChatText } from "../../game/chat.js";
import { DEFAULT_CHARACTER, type Character } from "../../game/progress.js";
import { MAX_PLAYERS, SIMULATION_HZ, BULLET_SPEED } from "../../game/pvp/constants.js";
import { bulletsBroughtIn, outcomeOf, PvpArena, type ActionError, type BattleResult, type PvpEvent, type PvpPlayer } from "../../game/pvp/simulation.js";
import { ErrorCodes, isPointPayload } from "../../protocol/common.js";
import { PVP_ROOM, PvpErrorCodes, pvpInbound, pvpJoinOptionsSchema, type PvpOutbound } from "../../protocol/pvp.js";
import { PvpRoomState } from "../../protocol/pvpState.js";
import { PvpStore, type AccountResult, type BattleRecord } from "../../stores/pvp.js";
import { CHAT_RATE_LIMIT, MessageGuard, sendError, STEERING_RATE_LIMIT } from "../kit/guard.js";
import { InputQueue } from "../kit/inputs.js";
import { TickOutbox } from "../kit/outbox.js";
import { authenticateJoin } from "../kit/join.js";
import { namesThisRoom } from "../kit/roomRef.js";
import { KitRoom } from "../kit/room.js";
import { seatRules, type PvpSeats } from "./seats.js";
import { syncArenaState } from "./state.js";
import { battleEndPayload, bothPlayers, playerView, roomStatePayload, roomStatusPayload, type SeatFacts } from "./views.js";

/** What onAuth hands to onJoin. An account's bullets are read in onJoin, once its seat is leased. */
export interface PvpAuth {
  identity: Identity;
  /** The character asked for in the join options, if any. */
  character?: Character;
  /** A guest's claimed bullets, already capped. */
  guestBullets: number;
}
type PvpClient = Client<{ auth: PvpAuth; messages: PvpOutbound }>;

/** How long a dropped connection keeps its seat; a battle waits meanwhile, then it is a forfeit. */
export const RECONNECT_SECONDS = 20;

const MATCH_READY_MESSAGE = "Both players are in the arena! Press Ready to start.";
const BATTLE_START_MESSAGE = "Battle starting!";

type ErrorMap = Partial<Record<ActionError, [string, string]>>;
const ACTION_ERRORS: ErrorMap = {
  not_in_room: [ErrorCodes.notInRoom, "You are not a player of this duel"],
  battle_active: [PvpErrorCodes.battleActive, "The battle is already running"],
  not_in_battle: [PvpErrorCodes.notInBattle, "There is no battle running"],
  paused: [PvpErrorCodes.battlePaused, "The battle waits for your opponent's connection"],
  disconnected: [PvpErrorCodes.disconnected, "Your connection is not in the battle"],
  no_bullets: [PvpErrorCodes.noBullets, "You have no bullets left"],
  fire_rate: [PvpErrorCodes.fireRate, "Firing too fast"],
  no_direction: [PvpErrorCodes.noDirection, "A shot needs a direction"],
  bad_position: [ErrorCodes.invalidPayload, "A move needs finite coordinates"],
};

export class PvpRoom extends KitRoom<{ state: PvpRoomState; client: PvpClient }> {
  maxClients = MAX_PLAYERS;
  state = new PvpRoomState();
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

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<PvpAuth> {
    const { identity, options: opts = {} } = await authenticateJoin(pvpJoinOptionsSchema, options, context);
    return { identity, character: opts.character, guestBullets: identity.guest ? bulletsBroughtIn({ guest: true, claimed: opts.bullets ?? 0 }) : 0 };
  }

  onCreate() {
    this.seats = this.keepSeats(this.reconnectSeconds, seatRules(this.arena, this.store));
    this.state.room_id = this.roomId;
    this.metadata = { phase: this.arena.phase };
    this.listedPhase = this.arena.phase;
    this.registerMessages();
    this.setTimestep((dt) => this.tick(dt), 1000 / SIMULATION_HZ);
    // The patch goes out at the end of each step, with the step's messages (not on a timer of its own).
    this.patchRate = null;
  }

  async onJoin(client: PvpClient) {
    const auth = this.authOf(client);
    const { identity } = auth;
    const sid = client.sessionId;
    const { joined, bullets } = await this.seats.admit(sid, identity, { tabAway: false }, async () => {
      // Read once seated: a room this account just left has written its bullets.
      const progress = identity.kind === "account" ? await this.store.ensureProgress(identity.userId) : undefined;
      const bullets = progress ? bulletsBroughtIn({ guest: false, recorded: progress.totalBullets }) : auth.guestBullets;
      const joined = this.arena.join(sid, { username: identity.username, character: auth.character ?? progress?.character ?? DEFAULT_CHARACTER, bullets });
      if (!joined.ok) throw new ServerError(409, "this duel already has two players");
      return { joined, bullets };
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
    this.outbox.flush(this.clients);
    this.relayAll(this.arena.step(dtMs));
    this.sync();
    this.broadcastPatch();
  }

  /** Applies one queued input; queues what it tells clients. */
  private readonly applyInput = (client: PvpClient, kind: "move" | "shoot", a: number, b: number): void => {
    const sid = client.sessionId;
    if (kind === "move") {
      const moved = this.arena.move(sid, a, b);
      if (!moved.ok) return this.refuseQueued(client, moved.error, "pvp_move");
      const { x, y } = moved.player;
      this.outbox.to(client, "pvp_self_position", { x, y });
      this.outbox.toOthers(client, "pvp_opponent_position", { x, y });
      return;
    }
    const shot = this.arena.shoot(sid, a, b);
    if (!shot.ok) return this.refuseQueued(client, shot.error, "pvp_shoot");
    const { player, bullet } = shot;
    this.outbox.toOthers(client, "pvp_opponent_shot", {
      bullet_id: bullet.id,
      bulletX: bullet.x,
      bulletY: bullet.y,
      dx: bullet.vx / BULLET_SPEED,
      dy: bullet.vy / BULLET_SPEED,
      speed: BULLET_SPEED,
      character: player.character,
    });
  };

  /** The `error` for an input the arena refused, in order with the step's other messages. */
  private refuseQueued(client: PvpClient, error: ActionError, type: "pvp_move" | "pvp_shoot"): void {
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
        const record = this.battleRecord(result);
        if (record.accounts.length) void this.seats.record(record);
        break;
      }
    }
    this.listPhase();
  }

  /** A battle's result for the accounts in it (guests are never stored). */
  private battleRecord(result: BattleResult): BattleRecord {
    const accounts: AccountResult[] = [];
    for (const p of result.players) {
      const userId = this.seats.get(p.id)?.identity.userId ?? null;
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
        opponentUserId: (other && this.seats.get(other.id)?.identity.userId) ?? null,
      });
    }
    return { matchId: result.matchId, roomId: this.roomId, reason: result.reason, durationMs: result.durationMs, endedAt: new Date(), accounts };
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

  /**
   * Never two half-empty duels while two players wait. Of two rooms with one waiting player each,
   * the newer room's player is sent to the older room: pvp_requeue, then the server closes the
   * connection and the client calls joinOrCreate("pvp") again, which fills the oldest waiting room
   * first. (No lock: a lock that outlives a racing reservation would hide a full room as open.)
   * Runs in a room left with one player (after a join, a leave or a return); an older room asks
   * the newer ones (on any process) to run it, so whichever of two racing rooms looks first, the
   * newer one moves.
   */
  async pairWaitingPlayers(): Promise<void> {
    const player = this.lonePlayer();
    // A reserved seat means an opponent (or a reconnecting player) is on its way: stay.
    if (!player || !player.connected || this.closing || this.hasReachedMaxClients()) return;
    let open: IRoomCache[];
    try {
      open = await matchMaker.query({ name: this.roomName, locked: false, private: false });
    } catch (err) {
      this.log.warn({ err }, "could not look for players waiting elsewhere");
      return;
    }
    const self = open.find((r) => r.roomId === this.roomId);
    const waiting = open.filter((r) => r.roomId !== this.roomId && r.clients === 1);
    if (!self || !waiting.length) return;
    if (waiting.some((r) => isOlder(r, self))) return this.requeue(player);
    await Promise.all(
      waiting.map((r) =>
        matchMaker.remoteRoomCall<PvpRoom>(r.roomId, "pairWaitingPlayers").catch((err: unknown) => this.log.warn({ err, roomId: r.roomId }, "a newer waiting room did not answer")),
      ),
    );
  }

  /** At the next tick, once Colyseus has counted the change (a join, a leave, a freed reconnection seat). */
  private pairAtNextTick(): void {
    this.clock.setTimeout(() => void this.pairWaitingPlayers(), 0);
  }

  private lonePlayer(): PvpPlayer | undefined {
    return this.arena.players.size === 1 ? [...this.arena.players.values()][0] : undefined;
  }

  private async requeue(player: PvpPlayer): Promise<void> {
    const client = this.clients.getById(player.id);
    // Things may have changed while the listing was read: an opponent on its way, a drop.
    if (!client || this.closing || this.lonePlayer() !== player || !player.connected || this.hasReachedMaxClients()) return;
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

/** Whether listing `a` is older than `b` (creation time, then room id: a strict order every process agrees on). */
function isOlder(a: IRoomCache, b: IRoomCache): boolean {
  const ta = new Date(a.createdAt ?? 0).getTime();
  const tb = new Date(b.createdAt ?? 0).getTime();
  return ta !== tb ? ta < tb : a.roomId < b.roomId;
}
