// The boss battle room ("boss"): a thin shell around the pure simulation. It authenticates and
// admits players, validates and rate-limits their messages, steps the simulation on a fixed
// timestep, relays the outcome as the spec's messages and synchronized state, and persists
// accounts' seats, bullets, stats and victories.
import { CloseCode, Room, ServerError, type AuthContext, type Client } from "@colyseus/core";
import { appContext } from "../context.js";
import type { Logger } from "../logger.js";
import { resolveRoomIdentity, type Identity } from "../auth/identity.js";
import {
  BOSS_RADIUS,
  BULLET_SPEED,
  DEFAULT_CHARACTER,
  GUEST_MAX_BULLETS,
  MAX_PLAYERS,
  MIN_BULLETS_TO_JOIN,
  PLAYER_RADIUS,
  SIMULATION_HZ,
  type Character,
} from "../game/boss/constants.js";
import { BossBattle, type ActionError, type BattleEvent, type BattlePlayer } from "../game/boss/simulation.js";
import { sanitizeChatText } from "../game/chat.js";
import { ErrorCodes, type ErrorCode } from "../protocol/common.js";
import {
  BossIn,
  BossOut,
  bossJoinOptionsSchema,
  chatSendSchema,
  playerMoveSchema,
  playerShootSchema,
  roomRefSchema,
  type BossPlayerView,
  type ChatMessagePayload,
  type DefeatedPayload,
  type PlayerBattleStats,
  type RoomPlayersPayload,
  type RoomStatePayload,
} from "../protocol/boss.js";
import { BossRoomState, syncBattleState, syncPlayer } from "./bossState.js";
import { BossStore, type SeatWrite } from "../stores/boss.js";
import { CHAT_RATE_LIMIT, describeIssues, MessageGuard, sendError } from "./messageGuard.js";
import { SEAT_CLAIM_RENEW_MS } from "./seatClaims.js";
import { logRoomException } from "./roomErrors.js";

/** What onAuth hands to onJoin. */
export interface BossAuth {
  identity: Identity;
  /** Bullets brought into the battle: the account's progress record, or a guest's capped claim. */
  bullets: number;
  character: Character;
}
type BossClient = Client<{ auth: BossAuth }>;

/** How long a dropped connection keeps its seat. */
export const RECONNECT_SECONDS = 20;
export const PLAYER_LIST_INTERVAL_MS = 1000;
/** A finished battle closes this long after the victory, if players are still connected. */
export const FINISHED_ROOM_TTL_MS = 5 * 60_000;

/** Live account seats are written to the database this often, so a crash loses little. */
export const SEAT_CHECKPOINT_MS = SEAT_CLAIM_RENEW_MS;

interface Seat {
  sid: string;
  identity: Identity;
  /** What this seat has already written (account seats), so each write carries only the increase. */
  saved: { damage: number; fired: number; accountSpent: number };
  statsRecorded: boolean;
  diedAt: Date | null;
  /** Pending while a dropped connection may come back. */
  reconnection?: { reject: (reason?: unknown) => void };
}

const SHOT_ERRORS: Record<ActionError, [ErrorCode, string]> = {
  not_in_battle: [ErrorCodes.notInRoom, "You are not in this battle"],
  dead: [ErrorCodes.dead, "You have no lives left"],
  battle_over: [ErrorCodes.battleOver, "The boss is already defeated"],
  no_bullets: [ErrorCodes.noBullets, "You have no bullets left"],
  fire_rate: [ErrorCodes.fireRate, "Firing too fast"],
  no_direction: [ErrorCodes.noDirection, "A shot needs a direction"],
};

export class BossRoom extends Room<{ state: BossRoomState; client: BossClient }> {
  maxClients = MAX_PLAYERS;
  state = new BossRoomState();
  /** The simulation; server-side code (and tests) may reach it through the room instance. */
  battle = new BossBattle();
  private readonly seats = new Map<string, Seat>();
  private readonly store = new BossStore(appContext().prisma);
  private log: Logger = appContext().logger;
  private guard!: MessageGuard<BossClient>;
  private readonly claims = appContext().seatClaims;
  private roomRow?: Promise<number>;

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<BossAuth> {
    const parsed = bossJoinOptionsSchema.safeParse(options ?? undefined);
    if (!parsed.success) throw new ServerError(400, `invalid join options: ${describeIssues(parsed.error)}`);
    const opts = parsed.data ?? {};
    const ctx = appContext();
    const identity = await resolveRoomIdentity(ctx, context.headers?.get("cookie"), opts.username);
    let bullets: number;
    let character: Character = opts.character ?? DEFAULT_CHARACTER;
    if (identity.kind === "account") {
      const progress = await new BossStore(ctx.prisma).ensureProgress(identity.userId);
      bullets = progress.totalBullets;
      character = opts.character ?? progress.character;
    } else {
      bullets = Math.min(opts.bullets ?? 0, GUEST_MAX_BULLETS);
    }
    if (bullets < MIN_BULLETS_TO_JOIN) throw new ServerError(403, `need at least ${MIN_BULLETS_TO_JOIN} bullets, you have ${bullets}`);
    return { identity, bullets, character };
  }

  async onCreate() {
    this.log = this.log.child({ room: "boss", roomId: this.roomId });
    this.metadata = { phase: "battle" };
    this.state.room_id = this.roomId;
    syncBattleState(this.state, this.battle);
    this.registerMessages();
    this.setTimestep((dt) => this.tick(dt), 1000 / SIMULATION_HZ);
    this.clock.setInterval(() => this.broadcast(BossOut.roomPlayers, this.roomPlayersPayload()), PLAYER_LIST_INTERVAL_MS);
    this.clock.setInterval(() => void this.keepSeats(), SEAT_CHECKPOINT_MS);
    await this.bossRoomId().catch(() => undefined);
  }

  async onJoin(client: BossClient) {
    const auth = client.auth;
    if (!auth) throw new ServerError(401, "not authenticated");
    if (this.battle.defeated) throw new ServerError(410, "this battle is over");
    const { identity } = auth;
    if (identity.kind === "account") {
      const claim = await this.claims.claim(identity.userId, this.roomId);
      if (!claim.ok) {
        const where = claim.roomId === this.roomId ? "already has a seat in this battle" : claim.roomId ? `is already in boss room ${claim.roomId}` : "is already in a boss battle";
        throw new ServerError(409, `this account ${where}`);
      }
      if (this.battle.defeated) {
        await this.claims.release(identity.userId, this.roomId);
        throw new ServerError(410, "this battle is over");
      }
    }
    const player = this.battle.addPlayer(client.sessionId, { username: identity.username, character: auth.character, bullets: auth.bullets });
    this.seats.set(client.sessionId, { sid: client.sessionId, identity, saved: { damage: 0, fired: 0, accountSpent: 0 }, statsRecorded: false, diedAt: null });
    syncBattleState(this.state, this.battle);
    this.state.players.get(client.sessionId)!.guest = identity.guest;
    client.send(BossOut.roomState, this.roomStatePayload(client.sessionId));
    this.broadcast(BossOut.playerJoined, { player: this.playerView(player), playerCount: this.battle.players.size }, { except: client });
    this.log.info({ sid: client.sessionId, account: identity.userId, bullets: auth.bullets }, "player joined the boss battle");
    if (identity.kind === "account") {
      try {
        await this.store.recordJoin(await this.bossRoomId(), identity.userId);
      } catch (err) {
        this.log.error({ err, userId: identity.userId }, "could not record the boss room join");
      }
    }
  }

  onDrop(client: BossClient, code?: number) {
    const seat = this.seats.get(client.sessionId);
    const player = this.battle.players.get(client.sessionId);
    // A client the server closed (flooding, failed join) gets no seat back: onLeave follows.
    if (!seat || !player || code === CloseCode.WITH_ERROR) return;
    player.connected = false;
    const reconnection = this.allowReconnection(client, RECONNECT_SECONDS);
    seat.reconnection = reconnection as unknown as Seat["reconnection"];
    reconnection.catch(() => {});
  }

  onReconnect(client: BossClient) {
    const seat = this.seats.get(client.sessionId);
    const player = this.battle.players.get(client.sessionId);
    if (!seat || !player) return;
    seat.reconnection = undefined;
    player.connected = true;
    syncBattleState(this.state, this.battle);
    client.send(BossOut.roomState, this.roomStatePayload(client.sessionId));
  }

  async onLeave(client: BossClient, code?: number) {
    this.guard.forget(client);
    await this.releaseSeat(client.sessionId, code === CloseCode.CONSENTED ? "left" : "disconnected");
  }

  async onDispose() {
    for (const seat of this.seats.values()) this.forgetAccount(seat);
    try {
      await this.store.closeRoom(this.roomId);
    } catch (err) {
      this.log.error({ err }, "could not close the boss room record");
    }
  }

  onUncaughtException(error: Error, method: string) {
    logRoomException(this.log, error, method);
  }

  /**
   * Removes an account from this battle, as POST /api/boss/leave does (also across processes via
   * matchMaker.remoteRoomCall). Returns whether the account had a seat here.
   */
  async removeAccount(userId: number): Promise<boolean> {
    const seat = [...this.seats.values()].find((s) => s.identity.userId === userId);
    if (!seat) return false;
    const client = this.clients.getById(seat.sid);
    const reconnection = seat.reconnection;
    await this.releaseSeat(seat.sid, "left");
    client?.leave(CloseCode.CONSENTED);
    reconnection?.reject(new Error("left through the REST API"));
    return true;
  }

  /** Live numbers for GET /api/boss/room/:room_id. */
  liveSummary() {
    return {
      boss_health: this.battle.health,
      max_health: this.battle.maxHealth,
      phase: this.battle.defeated ? "defeated" : "battle",
      player_count: this.battle.aliveCount(),
      players: [...this.battle.players.values()].map((p) => this.playerView(p)),
    };
  }

  // ----------------------------------------------------------------------------------------------

  private registerMessages(): void {
    const guard = (this.guard = new MessageGuard<BossClient>(this));
    guard.on(BossIn.joinRoom, roomRefSchema, (client, msg) => {
      if (this.inThisRoom(client, msg?.room_id, BossIn.joinRoom) && this.seats.has(client.sessionId)) {
        client.send(BossOut.roomState, this.roomStatePayload(client.sessionId));
      }
    });
    guard.on(BossIn.playerMove, playerMoveSchema, (client, msg) => {
      if (!this.inThisRoom(client, msg.room_id, BossIn.playerMove)) return;
      const moved = this.battle.move(client.sessionId, msg.x, msg.y);
      if (!moved.ok) return; // rule 1: ignored (not in the battle, dead, or over)
      const { x, y } = moved.player;
      const view = this.state.players.get(client.sessionId);
      if (view) syncPlayer(view, moved.player, this.battle.now);
      this.broadcast(BossOut.playerPosition, { sid: client.sessionId, x, y }, { except: client });
      client.send(BossOut.selfPosition, { x, y });
    });
    guard.on(BossIn.playerShoot, playerShootSchema, (client, msg) => {
      if (!this.inThisRoom(client, msg.room_id, BossIn.playerShoot)) return;
      const shot = this.battle.shoot(client.sessionId, msg.dx, msg.dy);
      if (!shot.ok) {
        const [code, message] = SHOT_ERRORS[shot.error];
        return sendError(client, code, message, BossIn.playerShoot);
      }
      const { player, bullet } = shot;
      const view = this.state.players.get(client.sessionId);
      if (view) syncPlayer(view, player, this.battle.now);
      this.broadcast(
        BossOut.playerBullet,
        {
          sid: client.sessionId,
          bulletX: bullet.x,
          bulletY: bullet.y,
          dx: bullet.vx / BULLET_SPEED,
          dy: bullet.vy / BULLET_SPEED,
          speed: BULLET_SPEED,
          character: player.character,
          ...(msg.weapon_type ? { weapon_type: msg.weapon_type } : {}),
        },
        { except: client },
      );
    });
    guard.on(
      BossIn.chatSend,
      chatSendSchema,
      (client, msg) => {
        if (!this.inThisRoom(client, msg.room_id, BossIn.chatSend)) return;
        const player = this.battle.players.get(client.sessionId);
        if (!player) return sendError(client, ErrorCodes.notInRoom, "You are not in this battle", BossIn.chatSend);
        const content = sanitizeChatText(msg.content);
        if (!content) return sendError(client, ErrorCodes.invalidPayload, "Invalid boss_chat_send: content is empty", BossIn.chatSend);
        const payload: ChatMessagePayload = { sid: client.sessionId, username: player.username, character: player.character, content, room_id: this.roomId };
        this.broadcast(BossOut.chatMessage, payload, { except: client });
      },
      { limit: CHAT_RATE_LIMIT },
    );
    const awayHandler = (away: boolean) => (client: BossClient, msg: { room_id?: string } | undefined) => {
      const type = away ? BossIn.playerAway : BossIn.playerReturned;
      if (!this.inThisRoom(client, msg?.room_id, type)) return;
      const player = this.battle.players.get(client.sessionId);
      if (!player || player.away === away) return;
      player.away = away;
      const view = this.state.players.get(client.sessionId);
      if (view) view.away = away;
      const message = away ? `${player.username} switched away from the game` : `${player.username} is back!`;
      this.broadcast(away ? BossOut.playerAway : BossOut.playerReturned, { sid: client.sessionId, username: player.username, message }, { except: client });
    };
    guard.on(BossIn.playerAway, roomRefSchema, awayHandler(true));
    guard.on(BossIn.playerReturned, roomRefSchema, awayHandler(false));
    guard.on(BossIn.getPlayers, roomRefSchema, (client, msg) => {
      if (this.inThisRoom(client, msg?.room_id, BossIn.getPlayers)) client.send(BossOut.roomPlayers, this.roomPlayersPayload());
    });
    guard.on(BossIn.leaveRoom, roomRefSchema, async (client, msg) => {
      if (!this.inThisRoom(client, msg?.room_id, BossIn.leaveRoom)) return;
      await this.releaseSeat(client.sessionId, "left");
      client.leave(CloseCode.CONSENTED);
    });
    guard.rejectUnknown();
  }

  /** Messages may name the room they mean; one naming another room (or an empty id) is refused. */
  private inThisRoom(client: BossClient, roomId: string | undefined, type: string): boolean {
    if (roomId === undefined || roomId === this.roomId) return true;
    sendError(client, ErrorCodes.wrongRoom, `You are in room ${this.roomId}, not "${roomId.slice(0, 64)}"`, type);
    return false;
  }

  private tick(dtMs: number): void {
    for (const event of this.battle.step(dtMs)) this.relay(event);
    syncBattleState(this.state, this.battle);
  }

  private relay(event: BattleEvent): void {
    switch (event.type) {
      case "boss_hit": {
        const attacker = this.battle.players.get(event.playerId);
        this.broadcast(BossOut.healthUpdate, {
          bossHealth: event.bossHealth,
          maxBossHealth: this.battle.maxHealth,
          attacker: attacker?.username ?? "",
          attacker_sid: event.playerId,
          damage: event.damage,
        });
        return;
      }
      case "boss_defeated":
        void this.onDefeated();
        return;
      case "player_damaged": {
        const p = this.battle.players.get(event.playerId);
        if (p) this.broadcast(BossOut.playerDamaged, { player: { sid: p.id, username: p.username, lives: event.lives }, source: event.source });
        return;
      }
      case "player_died": {
        const p = this.battle.players.get(event.playerId);
        const seat = this.seats.get(event.playerId);
        if (seat) seat.diedAt = new Date();
        if (p) {
          this.broadcast(BossOut.playerDied, {
            message: `${p.username} has fallen!`,
            player: { sid: p.id, username: p.username, lives: 0 },
            aliveCount: this.battle.aliveCount(),
            playerCount: this.battle.players.size,
          });
        }
        return;
      }
      case "powerup_spawned": {
        const { id, type, x, y, expiresAt } = event.powerup;
        this.broadcast(BossOut.powerupSpawned, { id, type, x, y, expires_in: expiresAt - this.battle.now });
        return;
      }
      case "powerup_expired":
        this.broadcast(BossOut.powerupExpired, { powerup_id: event.powerupId });
        return;
      case "powerup_collected": {
        const p = this.battle.players.get(event.playerId);
        this.broadcast(BossOut.powerupCollected, {
          powerup_id: event.powerup.id,
          type: event.powerup.type,
          username: p?.username ?? "",
          collector_sid: event.playerId,
          effect: event.effect,
        });
        return;
      }
    }
  }

  private async onDefeated(): Promise<void> {
    syncBattleState(this.state, this.battle);
    const players = [...this.battle.players.values()];
    const payload: DefeatedPayload = {
      message: "The boss has been defeated!",
      players: players.map((p) => this.playerView(p)),
      all_player_stats: this.battle.playerStats().map(({ id, status: _status, ...stats }): PlayerBattleStats => ({ sid: id, ...stats })),
    };
    this.broadcast(BossOut.defeated, payload);
    this.log.info({ players: players.length }, "boss defeated");
    this.clock.setTimeout(() => void this.disconnect(), FINISHED_ROOM_TTL_MS);
    try {
      await this.setMatchmaking({ locked: true, metadata: { phase: "defeated" } });
    } catch (err) {
      this.log.error({ err }, "could not lock the finished boss room");
    }
    const writes: Array<[Seat, SeatWrite]> = [];
    for (const player of players) {
      const seat = this.seats.get(player.id);
      // Taking part means being seated at the victory having landed at least one hit.
      if (seat) {
        const write = this.seatWrite(seat, player, { endOfBattle: true, victory: player.damageDealt > 0 });
        if (write) writes.push([seat, write]);
      }
    }
    await this.persist(writes, new Date());
  }

  /** Takes a seat out of the battle; persists the account's part. Idempotent. */
  private async releaseSeat(sid: string, reason: "left" | "disconnected"): Promise<boolean> {
    const seat = this.seats.get(sid);
    if (!seat) return false;
    this.seats.delete(sid);
    this.forgetAccount(seat);
    const player = this.battle.removePlayer(sid);
    syncBattleState(this.state, this.battle);
    if (!player) return true;
    this.broadcast(BossOut.playerLeft, { player: { sid, username: player.username }, playerCount: this.battle.players.size, reason });
    const write = this.seatWrite(seat, player, { endOfBattle: true, leftAt: new Date() });
    if (write) await this.persist([[seat, write]]);
    return true;
  }

  /** Frees the account's seat lease (shared by every process when scaled out). */
  private forgetAccount(seat: Seat): void {
    const userId = seat.identity.userId;
    if (userId === null) return;
    this.claims.release(userId, this.roomId).catch((err) => this.log.error({ err, userId }, "could not release the boss seat claim"));
  }

  /**
   * Every SEAT_CHECKPOINT_MS: keeps the accounts' seat leases alive and writes what each account
   * seat spent and dealt since its last write, so a crashed process loses at most that much.
   */
  async keepSeats(): Promise<void> {
    const accounts = [...this.seats.values()].filter((s) => s.identity.userId !== null);
    if (!accounts.length) return;
    try {
      await this.claims.renew(accounts.map((s) => s.identity.userId!), this.roomId);
    } catch (err) {
      this.log.error({ err }, "could not renew the boss seat claims");
    }
    const writes: Array<[Seat, SeatWrite]> = [];
    for (const seat of accounts) {
      const player = this.battle.players.get(seat.sid);
      if (!player || !this.hasUnsaved(seat, player)) continue;
      const write = this.seatWrite(seat, player, { endOfBattle: false });
      if (write) writes.push([seat, write]);
    }
    await this.persist(writes);
  }

  private hasUnsaved(seat: Seat, p: BattlePlayer): boolean {
    return p.damageDealt !== seat.saved.damage || p.bulletsFired !== seat.saved.fired || p.accountBulletsSpent !== seat.saved.accountSpent;
  }

  /** The seat's changes since its last write (accounts only); marks them as written. */
  private seatWrite(seat: Seat, p: BattlePlayer, opts: { endOfBattle: boolean; leftAt?: Date; victory?: boolean }): SeatWrite | undefined {
    const userId = seat.identity.userId;
    if (userId === null) return undefined;
    const write: SeatWrite = {
      userId,
      lives: p.lives,
      alive: p.status === "alive",
      diedAt: seat.diedAt,
      damageDelta: p.damageDealt - seat.saved.damage,
      bulletsFiredDelta: p.bulletsFired - seat.saved.fired,
      accountBulletsDelta: p.accountBulletsSpent - seat.saved.accountSpent,
      leftAt: opts.leftAt,
      victory: opts.victory,
    };
    if (opts.endOfBattle && !seat.statsRecorded) {
      write.stats = { damage: p.damageDealt, bullets: p.bulletsFired, died: p.status === "dead", won: opts.victory === true };
      seat.statsRecorded = true;
    }
    seat.saved = { damage: p.damageDealt, fired: p.bulletsFired, accountSpent: p.accountBulletsSpent };
    return write;
  }

  /** Writes seats; on failure logs, and rolls the seats' ledgers back so a later write retries. */
  private async persist(writes: Array<[Seat, SeatWrite]>, completedAt?: Date): Promise<void> {
    if (!writes.length && !completedAt) return;
    try {
      await this.store.writeSeats(await this.bossRoomId(), writes.map(([, w]) => w), completedAt);
    } catch (err) {
      this.log.error({ err, seats: writes.map(([, w]) => w.userId) }, "could not persist the boss battle");
      for (const [seat, w] of writes) {
        seat.saved.damage -= w.damageDelta;
        seat.saved.fired -= w.bulletsFiredDelta;
        seat.saved.accountSpent -= w.accountBulletsDelta;
        if (w.stats) seat.statsRecorded = false;
      }
    }
  }

  /** The BossRoom row's id, created once (retried after a failure). */
  private bossRoomId(): Promise<number> {
    this.roomRow ??= this.store.ensureRoom(this.roomId).catch((err) => {
      this.roomRow = undefined;
      this.log.error({ err }, "could not create the boss room record");
      throw err;
    });
    return this.roomRow;
  }

  private playerView(p: BattlePlayer): BossPlayerView {
    return {
      sid: p.id,
      username: p.username,
      character: p.character,
      x: p.x,
      y: p.y,
      lives: p.lives,
      bullets: p.bullets,
      damage_dealt: p.damageDealt,
      bullets_fired: p.bulletsFired,
      bullets_hit: p.bulletsHit,
      powerups_collected: [...p.powerupsCollected],
      status: p.status,
      connected: p.connected,
      away: p.away,
      guest: this.seats.get(p.id)?.identity.guest ?? false,
    };
  }

  private roomPlayersPayload(): RoomPlayersPayload {
    const players = [...this.battle.players.values()].map((p) => this.playerView(p));
    return { room_id: this.roomId, players, playerCount: players.length };
  }

  private roomStatePayload(sid: string): RoomStatePayload {
    const players = [...this.battle.players.values()].map((p) => this.playerView(p));
    return {
      room_id: this.roomId,
      bossHealth: this.battle.health,
      maxBossHealth: this.battle.maxHealth,
      playerCount: players.length,
      players,
      powerups: [...this.battle.powerups.values()].map(({ id, type, x, y }) => ({ id, type, x, y })),
      self: players.find((p) => p.sid === sid)!,
      bounds: { ...this.battle.bounds },
      boss: { x: this.battle.boss.x, y: this.battle.boss.y, pattern: this.battle.boss.pattern, radius: BOSS_RADIUS },
      player_radius: PLAYER_RADIUS,
      phase: this.battle.defeated ? "defeated" : "battle",
    };
  }
}
