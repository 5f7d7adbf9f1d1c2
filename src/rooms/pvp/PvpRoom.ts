// The PvP arena room ("pvp", two players): a thin shell around the pure arena simulation, built on
// the room kit. Matchmaking is Colyseus' joinOrCreate into the oldest room with one waiting player
// (registered with sortBy createdAt, maxClients 2; see docs/pvp.md for why that holds across
// processes). The room admits players, validates and rate-limits their messages, steps the arena
// on a fixed timestep, relays the outcome as messages and synchronized state, and persists
// accounts' results and bullets.
import { CloseCode, matchMaker, Room, ServerError, type AuthContext, type Client, type IRoomCache, type Rewind } from "@colyseus/core";
import { appContext } from "../../context.js";
import type { Logger } from "../../logger.js";
import type { Identity } from "../../auth/identity.js";
import { sanitizeChatText } from "../../game/chat.js";
import { DEFAULT_CHARACTER, type Character } from "../../game/progress.js";
import { MAX_PLAYERS, SIMULATION_HZ, BULLET_SPEED } from "../../game/pvp/constants.js";
import { bulletsBroughtIn, outcomeOf, PvpArena, type ActionError, type BattleResult, type PvpEvent, type PvpPlayer } from "../../game/pvp/simulation.js";
import { ErrorCodes } from "../../protocol/common.js";
import { PvpErrorCodes, pvpInbound, pvpJoinOptionsSchema, type PvpOutbound } from "../../protocol/pvp.js";
import { PvpRoomState } from "../../protocol/pvpState.js";
import { ShooterInput } from "../../protocol/shooterInput.js";
import { SEAT_CLAIM_RENEW_MS } from "../../shared/matchSeats.js";
import { PvpStore, type AccountResult, type BattleRecord, type BulletSpend } from "../../stores/pvp.js";
import { CHAT_RATE_LIMIT, MessageGuard, sendError, STEERING_RATE_LIMIT } from "../kit/guard.js";
import { authenticateJoin } from "../kit/join.js";
import { Ledger, type LedgerEntry } from "../kit/ledger.js";
import { namesThisRoom } from "../kit/roomRef.js";
import { SeatBook } from "../kit/seats.js";
import { syncArenaState, syncPlayer } from "./state.js";
import { battleEndPayload, bothPlayers, playerView, roomStatePayload, roomStatusPayload, type SeatFacts } from "./views.js";
import { logRoomException } from "../kit/errors.js";
import { REWIND_HISTORY_MS, rewoundPositions } from "../kit/rewind.js";
import { ShooterInputs } from "../kit/shooterInputs.js";

/** What onAuth hands to onJoin. An account's bullets are read in onJoin, once its seat is leased. */
export interface PvpAuth {
  identity: Identity;
  /** The character asked for in the join options, if any. */
  character?: Character;
  /** A guest's claimed bullets, already capped. */
  guestBullets: number;
  /** The player's shots are judged as it saw them (false only for the aim load test's baseline). */
  lagCompensation: boolean;
}
type PvpClient = Client<{ auth: PvpAuth; messages: PvpOutbound }>;

/** How long a dropped connection keeps its seat; a battle waits meanwhile, then it is a forfeit. */
export const RECONNECT_SECONDS = 20;
/** Bullets spent are written this often, so a crash loses at most this much. */
export const SEAT_CHECKPOINT_MS = SEAT_CLAIM_RENEW_MS;

const MATCH_READY_MESSAGE = "Both players are in the arena! Press Ready to start.";
const BATTLE_START_MESSAGE = "Battle starting!";

interface PvpSeat {
  /** The player said it switched away from the game (pvp_player_away). */
  tabAway: boolean;
}

/** An account's bullets spent in this room and what of them was written; kept until written. */
interface AccountSpend {
  userId: number;
  ledger: Ledger<"spent">;
  spent: number;
  seated: boolean;
}

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

export class PvpRoom extends Room<{ state: PvpRoomState; client: PvpClient; input: ShooterInput }> {
  maxClients = MAX_PLAYERS;
  state = new PvpRoomState();
  /** Colyseus' input channel (`room.input()`): moves and shots with the client's render-time stamp. */
  inputs = this.defineInput(ShooterInput);
  /** The simulation; server-side code (and tests) may reach it through the room instance. */
  arena = new PvpArena();
  /** Seconds a dropped connection may take to come back (tests shorten it in a subclass). */
  protected reconnectSeconds = RECONNECT_SECONDS;
  private readonly store = new PvpStore(appContext().prisma);
  private log: Logger = appContext().logger;
  private seats!: SeatBook<PvpSeat>;
  private guard!: MessageGuard<PvpClient, typeof pvpInbound>;
  private readonly spends = new Map<string, AccountSpend>();
  private pendingBattles: BattleRecord[] = [];
  private writeChain: Promise<void> = Promise.resolve();
  /** Writes under way, so disposal waits for them before the database closes. */
  private readonly writing = new Set<Promise<void>>();
  private closing = false;
  private listedPhase = "";
  private rewind!: Rewind;
  private readonly shooterInputs = new ShooterInputs<PvpClient>(this, this.inputs, {
    move: (client, x, y) => this.move(client, x, y, "input"),
    shoot: (client, dx, dy, lagMs) => this.shoot(client, dx, dy, lagMs, "input"),
  });

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<PvpAuth> {
    const { identity, options: opts = {} } = await authenticateJoin(pvpJoinOptionsSchema, options, context);
    return {
      identity,
      character: opts.character,
      guestBullets: identity.guest ? bulletsBroughtIn({ guest: true, claimed: opts.bullets ?? 0 }) : 0,
      lagCompensation: opts.lag_compensation ?? true,
    };
  }

  onCreate() {
    this.log = this.log.child({ room: this.roomName, roomId: this.roomId });
    this.seats = new SeatBook(this, appContext().matchSeats, this.log, this.reconnectSeconds);
    this.state.room_id = this.roomId;
    this.metadata = { phase: this.arena.phase };
    this.listedPhase = this.arena.phase;
    this.registerMessages();
    // Colyseus records the players' synchronized positions at every patch; bullets are judged
    // against them as the shooter saw them (docs/netcode.md).
    this.rewind = this.allowRewindState({ maxRewindMs: REWIND_HISTORY_MS });
    this.rewind.attachAll(this.state.players, { fields: ["x", "y"] });
    this.arena.past = rewoundPositions(this.rewind, () => this.clock.elapsedTime, (id) => this.state.players.get(id));
    this.setTimestep((dt) => this.tick(dt), 1000 / SIMULATION_HZ);
    this.clock.setInterval(() => void this.checkpoint(), SEAT_CHECKPOINT_MS);
  }

  async onJoin(client: PvpClient) {
    const auth = client.auth;
    if (!auth) throw new ServerError(401, "not authenticated");
    const { identity } = auth;
    const sid = client.sessionId;
    await this.seats.take(sid, identity, { tabAway: false });
    let bullets = auth.guestBullets;
    let character: Character = auth.character ?? DEFAULT_CHARACTER;
    if (identity.kind === "account") {
      // Read after the lease is taken: a room this account just left has written its bullets.
      try {
        const progress = await this.store.ensureProgress(identity.userId);
        bullets = bulletsBroughtIn({ guest: false, recorded: progress.totalBullets });
        character = auth.character ?? progress.character;
      } catch (err) {
        await this.seats.abandon(sid);
        throw err;
      }
    }
    const joined = this.arena.join(sid, { username: identity.username, character, bullets });
    if (!joined.ok) {
      await this.seats.abandon(sid);
      throw new ServerError(409, "this duel already has two players");
    }
    if (identity.kind === "account") this.spends.set(sid, { userId: identity.userId, ledger: new Ledger(["spent"]), spent: 0, seated: true });
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
    this.shooterInputs.forget(client.sessionId);
    const reason = code === CloseCode.SERVER_SHUTDOWN || this.closing ? "shutdown" : code === CloseCode.CONSENTED ? "left" : "disconnected";
    await this.releaseSeat(client.sessionId, reason);
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
    for (const seat of this.seats.all()) this.noteSpent(seat.sid, false);
    await this.flush();
    await Promise.all(this.writing);
    for (const seat of this.seats.all()) await this.seats.remove(seat.sid, "room closed");
  }

  onUncaughtException(error: Error, method: string) {
    logRoomException(this.log, error, method);
  }

  /** Every SEAT_CHECKPOINT_MS: keeps the accounts' leases alive and writes the bullets spent since the last write. */
  async checkpoint(): Promise<void> {
    await this.seats.renewLeases();
    for (const seat of this.seats.accounts()) this.noteSpent(seat.sid, true);
    await this.flush();
  }

  // ----------------------------------------------------------------------------------------------

  private readonly factsOf = (sid: string): SeatFacts => {
    const seat = this.seats.get(sid);
    return { guest: seat?.identity.guest ?? false, away: seat?.data.tabAway ?? false };
  };

  private registerMessages(): void {
    const guard = (this.guard = new MessageGuard<PvpClient, typeof pvpInbound>(this, pvpInbound, { limit: STEERING_RATE_LIMIT }));
    const here = (client: PvpClient, named: string | undefined, type: string) => namesThisRoom(this.roomId, client, named, type);
    const refuse = (client: PvpClient, error: ActionError, type: string) => this.refuse(client, error, type);

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
    guard.on("pvp_move", (client, msg) => {
      if (here(client, msg.room_id, "pvp_move")) this.move(client, msg.x, msg.y, "pvp_move");
    });
    // A message carries no render-time stamp: its shot is judged live.
    guard.on("pvp_shoot", (client, msg) => {
      if (here(client, msg.room_id, "pvp_shoot")) this.shoot(client, msg.dx, msg.dy, 0, "pvp_shoot");
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
      await this.releaseSeat(client.sessionId, "left");
      client.leave(CloseCode.CONSENTED);
    });
    guard.rejectUnknown();
  }

  /** A move intent (`pvp_move`, or an input): the arena's rules, then the positions to both players. Returns whether the speed cap cut it short. */
  private move(client: PvpClient, x: number, y: number, type: string): boolean {
    const moved = this.arena.move(client.sessionId, x, y);
    if (!moved.ok) {
      this.refuse(client, moved.error, type);
      return false;
    }
    const { player } = moved;
    const view = this.state.players.get(player.id);
    if (view) syncPlayer(view, player, this.factsOf(player.id));
    client.send("pvp_self_position", { x: player.x, y: player.y });
    this.broadcast("pvp_opponent_position", { x: player.x, y: player.y }, { except: client });
    return moved.outcome.limited;
  }

  /** A shot (`pvp_shoot`, or an input) whose bullet is judged `lagMs` in the past. */
  private shoot(client: PvpClient, dx: number, dy: number, lagMs: number, type: string): void {
    const shot = this.arena.shoot(client.sessionId, dx, dy, lagMs);
    if (!shot.ok) return this.refuse(client, shot.error, type);
    const { player, bullet } = shot;
    this.noteSpent(player.id, true);
    this.sync();
    this.broadcast(
      "pvp_opponent_shot",
      {
        bullet_id: bullet.id,
        bulletX: bullet.x,
        bulletY: bullet.y,
        dx: bullet.vx / BULLET_SPEED,
        dy: bullet.vy / BULLET_SPEED,
        speed: BULLET_SPEED,
        character: player.character,
      },
      { except: client },
    );
  }

  private refuse(client: PvpClient, error: ActionError, type: string): void {
    const [code, message] = ACTION_ERRORS[error] ?? [ErrorCodes.invalidPayload, error];
    sendError(client, code, message, type);
  }

  private tick(dtMs: number): void {
    // Moves and shots of the input channel, with the same rules as the messages (and the
    // render-time stamp, for shots: docs/netcode.md).
    this.shooterInputs.apply((client) => client.auth?.lagCompensation ?? true);
    this.relayAll(this.arena.step(dtMs));
    this.sync();
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
        if (record.accounts.length) this.pendingBattles.push(record);
        for (const p of result.players) this.noteSpent(p.id, true);
        void this.flush();
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
  private releaseSeat(sid: string, reason: "left" | "disconnected" | "shutdown"): Promise<void> {
    return this.track(this.removeAndWrite(sid, reason));
  }

  private async removeAndWrite(sid: string, reason: "left" | "disconnected" | "shutdown"): Promise<void> {
    const player = this.arena.players.get(sid);
    this.noteSpent(sid, false);
    if (player && reason !== "shutdown") {
      const forfeit = this.arena.phase === "battle";
      const events = this.arena.leave(sid);
      this.relayAll(events);
      this.sync();
      const leaving = this.clients.getById(sid);
      const payload = { sid, username: player.username, reason, forfeit, playerCount: this.arena.players.size };
      this.broadcast("pvp_opponent_left", payload, leaving ? { except: leaving } : undefined);
      this.log.info({ sid, reason, forfeit }, "player left a duel");
    }
    await this.flush();
    await this.seats.remove(sid, reason);
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
    await this.releaseSeat(player.id, "left");
    client.leave(CloseCode.CONSENTED);
  }

  /** Records an account's current bullets spent (and whether it still sits here) for the next write. */
  private noteSpent(sid: string, seated: boolean): void {
    const book = this.spends.get(sid);
    if (!book) return;
    const player = this.arena.players.get(sid);
    if (player) book.spent = player.bulletsSpent;
    book.seated &&= seated;
  }

  /** Writes pending battle results and unwritten bullets; one write at a time, in order. */
  private flush(): Promise<void> {
    const next = this.writeChain.then(() => this.flushNow());
    this.writeChain = next.catch(() => {});
    return this.track(next);
  }

  private async flushNow(): Promise<void> {
    const battles = this.pendingBattles.splice(0);
    const taken: Array<[AccountSpend, LedgerEntry<"spent">]> = [];
    for (const book of this.spends.values()) {
      if (book.ledger.hasUnsaved({ spent: book.spent })) taken.push([book, book.ledger.take({ spent: book.spent })]);
    }
    const spends: BulletSpend[] = taken.map(([book, entry]) => ({ userId: book.userId, bullets: entry.delta.spent }));
    if (battles.length || spends.length) {
      try {
        await this.store.record(battles, spends);
      } catch (err) {
        this.log.error({ err, battles: battles.map((b) => b.matchId), spends }, "could not persist the duel");
        this.pendingBattles.unshift(...battles);
        for (const [book, entry] of taken) book.ledger.rollback(entry);
        return;
      }
    }
    for (const [sid, book] of this.spends) if (!book.seated && !book.ledger.hasUnsaved({ spent: book.spent })) this.spends.delete(sid);
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

  private track(write: Promise<void>): Promise<void> {
    this.writing.add(write);
    return write.finally(() => this.writing.delete(write));
  }
}

/** Whether listing `a` is older than `b` (creation time, then room id: a strict order every process agrees on). */
function isOlder(a: IRoomCache, b: IRoomCache): boolean {
  const ta = new Date(a.createdAt ?? 0).getTime();
  const tb = new Date(b.createdAt ?? 0).getTime();
  return ta !== tb ? ta < tb : a.roomId < b.roomId;
}
