// The boss battle room ("boss"): a thin shell around the pure simulation, built on the room kit.
// It admits players (./seats.ts, kit/keeper.ts) and takes their moves and shots (kit/shooterControls.ts;
// every other message: ./messages.ts); each fixed step applies the queued inputs, advances the
// simulation and sends what happened as the spec's messages (./relay.ts, kit/outbox.ts) followed
// by the state patch, so each client gets a step's news in one write.
import { CloseCode, ServerError, type AuthContext } from "@colyseus/core";
import { appContext } from "../../context.js";
import { MAX_PLAYERS, SIMULATION_HZ } from "../../game/boss/constants.js";
import { BOSS_TARGET_ID, BossBattle } from "../../game/boss/simulation.js";
import { isPointPayload } from "../../protocol/common.js";
import { BOSS_ROOM, bossInbound, type BossOutbound } from "../../protocol/boss.js";
import { BossRoomState } from "../../protocol/bossState.js";
import { ShooterInput } from "../../protocol/shooterInput.js";
import { ShooterControls, type InputSource } from "../kit/shooterControls.js";
import type { BossLiveSummary, BossRoomCalls } from "../../shared/roomCalls.js";
import { BossStore } from "../../stores/boss.js";
import { dismiss } from "../kit/dismiss.js";
import { MessageGuard } from "../kit/guard.js";
import { TickOutbox } from "../kit/outbox.js";
import { KitRoom } from "../kit/room.js";
import { MatchDrain } from "../kit/drain.js";
import type { PresenceFeed } from "../kit/presence.js";
import { handleBossMessages } from "./messages.js";
import { BossRoomRecord } from "./record.js";
import { relayBattleEvent, type RelayHooks } from "./relay.js";
import { authenticateBossJoin, broughtIn, seatRules, type BossAuth, type BossClient, type BossSeats } from "./seats.js";
import { syncBattleState } from "./state.js";
import { bulletPayload, defeatedPayload, liveSummary, playerView, roomPlayersPayload, roomStatePayload, SHOT_ERRORS } from "./views.js";
import { chooseUpdates, StateReaders } from "../kit/channels.js";

/** How long a dropped connection keeps its seat. */
export const RECONNECT_SECONDS = 20;
export const PLAYER_LIST_INTERVAL_MS = 1000;
/** A finished battle closes this long after the victory, if players are still connected. */
export const FINISHED_ROOM_TTL_MS = 5 * 60_000;

export class BossRoom extends KitRoom<{ state: BossRoomState; client: BossClient; input: ShooterInput }> implements BossRoomCalls {
  maxClients = MAX_PLAYERS;
  state = new BossRoomState();
  /** Colyseus' input channel (`room.input({ type: ShooterInput })`): moves and shots with the client's render-time stamp. */
  inputs = this.defineInput(ShooterInput);
  /** The simulation; server-side code (and tests) may reach it through the room instance. */
  battle = new BossBattle();
  private readonly store = new BossStore(appContext().prisma);
  /** Account seats' writes, from lease to release (src/rooms/kit/keeper.ts). */
  seats!: BossSeats;
  /** Away and back, told to the others (coalesced). */
  private awayNotices!: PresenceFeed<string>;
  private record!: BossRoomRecord;
  /** Clients that read state only: left out of the position mirror. */
  private readonly stateReaders = new StateReaders<BossClient>();
  /** Moves and shots, as messages (a shot's weapon_type rides along) or on the input channel. */
  private readonly controls = this.forgetOnLeave(
    new ShooterControls<BossClient, string>(this, this.inputs, { move: (c, x, y) => this.move(c, x, y), shoot: (...shot) => this.shoot(...shot) }),
  );
  /** What the current step tells clients; sent at its end, before the patch. */
  private readonly outbox = new TickOutbox<BossClient, BossOutbound>(BOSS_ROOM, { readsStateOnly: (c) => this.stateReaders.has(c) });
  /** A stopping process lets a battle in progress play to its end (or the drain limit); kit/drain.ts. */
  private readonly drain = new MatchDrain(this, () => !this.battle.defeated && this.battle.players.size > 0, () => {});

  static onAuth(_token: string | undefined, options: unknown, context: AuthContext): Promise<BossAuth> {
    return authenticateBossJoin(options, context);
  }

  async onCreate() {
    this.record = new BossRoomRecord(this.store, this.roomId, this.log);
    this.seats = this.keepSeats(RECONNECT_SECONDS, seatRules(this.battle, this.store, () => this.record.key()));
    this.metadata = { phase: "battle" };
    this.state.room_id = this.roomId;
    syncBattleState(this.state, this.battle);
    this.registerMessages();
    // Colyseus records the boss's synchronized position at every patch; a player's bullet hits
    // the boss where that player saw it (docs/netcode.md). The boss's projectiles stay server-time.
    const boss = this.state.boss;
    this.battle.past = this.rewindPositions((rewind) => rewind.attach(boss, { fields: ["x", "y"] }), (id) => (id === BOSS_TARGET_ID ? boss : undefined));
    this.stepAndPatch((dt) => this.tick(dt), SIMULATION_HZ);
    this.clock.setInterval(() => this.broadcast("boss_room_players", roomPlayersPayload(this.roomId, this.battle, this.isGuest)), PLAYER_LIST_INTERVAL_MS);
    await this.record.key().catch(() => undefined);
  }

  async onJoin(client: BossClient) {
    const auth = this.authOf(client);
    if (this.battle.defeated) throw new ServerError(410, "this battle is over");
    const { identity } = auth;
    const brought = await this.seats.admit(client.sessionId, identity, { diedAt: null }, () => broughtIn(auth, this.store, this.battle));
    chooseUpdates(client, client.auth?.updates, this.stateReaders);
    const player = this.battle.addPlayer(client.sessionId, { username: identity.username, ...brought });
    syncBattleState(this.state, this.battle);
    this.state.players.get(client.sessionId)!.guest = identity.guest;
    client.send("boss_room_state", roomStatePayload(this.roomId, this.battle, this.isGuest, client.sessionId));
    this.broadcast("boss_player_joined", { player: playerView(player, identity.guest), playerCount: this.battle.players.size }, { except: client });
    this.log.info({ sid: client.sessionId, account: identity.userId, bullets: brought.bullets }, "player joined the boss battle");
    if (identity.kind === "account") await this.record.recordJoin(identity.userId);
  }

  onDrop(client: BossClient, code?: number) {
    this.controls.drop(client);
    const player = this.battle.players.get(client.sessionId);
    if (player && this.seats.hold(client, code)) player.connected = false;
  }

  onReconnect(client: BossClient) {
    chooseUpdates(client, client.auth?.updates, this.stateReaders);
    const player = this.battle.players.get(client.sessionId);
    if (!this.seats.returned(client.sessionId) || !player) return;
    player.connected = true;
    syncBattleState(this.state, this.battle);
    client.send("boss_room_state", roomStatePayload(this.roomId, this.battle, this.isGuest, client.sessionId));
  }

  async onLeave(client: BossClient, code?: number) {
    this.stateReaders.remove(client);
    await this.release(client.sessionId, code === CloseCode.CONSENTED ? "left" : "disconnected");
  }

  /** At server shutdown a battle in progress plays on to the boss's defeat, at most until the drain limit. */
  onBeforeShutdown() {
    this.drain.begin();
  }

  /** Disposal (also at server shutdown): every seat still here is written, away ones included. */
  async onDispose() {
    await this.seats.dispose();
    await this.record.close();
  }

  /**
   * Removes an account from this battle, as POST /api/boss/leave does (also across processes via
   * matchMaker.remoteRoomCall). Returns whether the account had a seat here.
   */
  async removeAccount(userId: number): Promise<boolean> {
    const seat = this.seats.ofAccount(userId);
    if (seat) await dismiss(this.clients, seat.sid, () => this.release(seat.sid, "left"));
    return seat !== undefined;
  }

  /** Live numbers for GET /api/boss/room/:room_id. */
  liveSummary(): BossLiveSummary {
    return liveSummary(this.battle, this.isGuest);
  }

  // ----------------------------------------------------------------------------------------------

  private readonly isGuest = (sid: string) => this.seats.get(sid)?.identity.guest ?? false;

  /** Moves and shots are queued for the step; every other message is handled in ./messages.ts. */
  private registerMessages(): void {
    const guard = this.forgetOnLeave(new MessageGuard<BossClient, typeof bossInbound>(this, bossInbound, { roomField: "room_id", log: this.log }));
    const dismissing = (sid: string) => dismiss(this.clients, sid, () => this.release(sid, "left"));
    this.awayNotices = handleBossMessages(guard, {
      roomId: this.roomId,
      battle: this.battle,
      state: this.state,
      seats: this.seats,
      isGuest: this.isGuest,
      broadcast: this.broadcaster,
      clock: this.clock,
      client: (sid) => this.clients.getById(sid),
      dismiss: dismissing,
    });
    guard.on("boss_player_move", (client, msg) => this.controls.queueMove(client, msg.x, msg.y), { fast: isPointPayload });
    guard.on("boss_player_shoot", (client, msg) => this.controls.queueShot(client, msg.dx, msg.dy, msg.weapon_type));
    guard.rejectUnknown();
  }

  /**
   * One fixed step: the inputs queued since the last one, in arrival order, then the simulation;
   * then what they caused leaves, each client's messages in one write with the state patch.
   */
  private tick(dtMs: number): void {
    // Messages, then the input channel's moves and shots, same rules; a shot hits the boss where its sender saw it.
    this.controls.apply();
    for (const event of this.battle.step(dtMs)) relayBattleEvent(event, this.battle, this.outbox, this.relayHooks);
    syncBattleState(this.state, this.battle);
    this.outbox.flush(this.clients);
    this.broadcastPatch();
  }

  private readonly relayHooks: RelayHooks = {
    died: (sid) => {
      const seat = this.seats.get(sid);
      if (seat) seat.data.diedAt = new Date();
    },
    defeated: () => void this.onDefeated(),
  };

  /** A move; returns whether the speed cap cut it short. */
  private move(client: BossClient, x: number, y: number): boolean {
    const sid = client.sessionId;
    const moved = this.battle.move(sid, x, y);
    if (!moved.ok) return false; // rule 1: ignored (not in the battle, dead, or over)
    const { x: px, y: py } = moved.player;
    this.outbox.toOthers(client, "boss_player_position", { sid, x: px, y: py }, true);
    this.outbox.to(client, "boss_self_position", { x: px, y: py }, true);
    return moved.outcome.limited;
  }

  /** A shot whose bullet hits the boss where the shooter saw it `lagMs` ago. */
  private shoot(client: BossClient, dx: number, dy: number, lagMs: number, source: InputSource, ageMs: number, weaponType?: string): void {
    const sid = client.sessionId;
    const shot = this.battle.shoot(sid, dx, dy, lagMs, ageMs);
    if (!shot.ok) {
      const [code, message] = SHOT_ERRORS[shot.error];
      return this.outbox.to(client, "error", { code, message, type: source === "input" ? "input" : "boss_player_shoot" });
    }
    const { player, bullet } = shot;
    this.outbox.toOthers(client, "boss_player_bullet", bulletPayload(sid, player.character, bullet, weaponType));
  }

  private async onDefeated(): Promise<void> {
    syncBattleState(this.state, this.battle);
    const players = [...this.battle.players.values()];
    this.outbox.toAll("boss_defeated", defeatedPayload(this.battle, this.isGuest));
    this.log.info({ players: players.length }, "boss defeated");
    this.clock.setTimeout(() => void this.disconnect(), FINISHED_ROOM_TTL_MS);
    try {
      await this.setMatchmaking({ locked: true, metadata: { phase: "defeated" } });
    } catch (err) {
      this.log.error({ err }, "could not lock the finished boss room");
    }
    // Taking part means being seated at the victory having landed at least one hit.
    for (const seat of this.seats.all()) seat.data.victory = (this.battle.players.get(seat.sid)?.damageDealt ?? 0) > 0;
    await this.seats.finish(new Date());
    // The victory is written: a stopping process lets its players go now.
    this.drain.check();
  }

  /** Takes a seat out of the battle (idempotent): its last write, then its lease. Disposal waits for it. */
  private async release(sid: string, reason: "left" | "disconnected"): Promise<void> {
    const written = this.seats.leave(sid, reason);
    const player = this.battle.removePlayer(sid);
    this.awayNotices.forget(sid);
    if (player) {
      syncBattleState(this.state, this.battle);
      this.broadcast("boss_player_left", { player: { sid, username: player.username }, playerCount: this.battle.players.size, reason });
    }
    await written;
  }
}
