// What every room has, written once: a logger naming the room, the logging of its uncaught
// exceptions (./errors.ts), the auth its onAuth gave a client, its seats' keeper (./keeper.ts)
// wired to the deployment's live-match leases, the refusal of a reconnection to a seat whose
// client is still connected, the shared state patch (./patches.ts), the per-client state its parts
// drop when a client leaves, its lag-compensation history (./rewind.ts) and a fixed step that sends
// its patch, and a short window for a seat reservation its matchmaker gave up on (./reservations.ts).
// Rooms extend this instead of Room.
import { matchMaker, Room, SchemaSerializer, ServerError, type AuthContext, type Client, type ExtractRoomClient, type Rewind, type RoomOptions } from "@colyseus/core";
import { resolveRoomIdentity, type Identity } from "../../auth/identity.js";
import { ACCOUNT_LOCKED, SESSION_ENDED } from "../../protocol/closeCodes.js";
import { sendError } from "./guard.js";
import { joinRefusal } from "./join.js";
import { sessionSeatsOf, type SessionBoundRoom, type SessionEndReason, type SessionSeats } from "./sessionSeats.js";
import type { PastPositions } from "../../game/lagCompensation.js";
import { appContext } from "../../context.js";
import type { Logger } from "../../ops/logger.js";
import { logRoomException } from "./errors.js";
import { SharedPatchSerializer } from "./patches.js";
import { SeatKeeper, type SeatRules } from "./keeper.js";
import { shortenLateReservations } from "./reservations.js";
import { REWIND_HISTORY_MS, rewoundPositions, type Positioned } from "./rewind.js";
import { identityOf, monitorLabel, sessionIdOfLabel } from "./monitorLabel.js";
import { RoomOnline } from "../../shared/online.js";

/** What @colyseus/monitor adds to Room.prototype when it is mounted (its ext/Room.cjs). */
interface MonitorHooks {
  getInspectData?(this: Room): Promise<{ clients?: Array<{ sessionId: string }> }>;
  _forceClientDisconnect?(this: Room, sessionId: string): Promise<void>;
  _sendMessageToClient?(this: Room, sessionId: string, type: string, data: unknown): Promise<void>;
}
const monitorHooks = Room.prototype as unknown as MonitorHooks;

/** A room's `broadcast`, typed by its outbound messages, for the mode's side files (relay, messages). */
export type Broadcast<M> = <K extends keyof M & string>(type: K, payload: M[K], options?: { except: Client }) => void;

/** The listing metadata every kit room carries: players connected (a seat reserved but never taken is none). */
export interface PlayerCount {
  players: number;
}

/** A part of a room that keeps something per client (a message guard's budgets, queued inputs). */
export interface ForgetsClients<C> {
  forget(client: C): void;
}

/** What Colyseus hands its (private) `_onJoin`: a reconnection carries the seat's token. */
type JoinStep = (client: Client, authContext: AuthContext, connectionOptions?: { reconnectionToken?: string | null }) => Promise<void>;

/** What a locked account's room connections are told: the `error` code, then the close reason (4008). */
export const ACCOUNT_LOCKED_CODE = "account_locked";
export const ACCOUNT_LOCKED_REASON = "account_locked: a teacher or an admin locked this account; ask them to unlock it, then sign in again";

/** The refusal a reconnection into another account's seat gets (sent as an `error`, then closed 4003). */
export const SEAT_OF_ANOTHER_ACCOUNT = "seat_of_another_account: this seat belongs to an account; reconnect signed in as that account";

export abstract class KitRoom<T extends RoomOptions = RoomOptions> extends Room<T> implements SessionBoundRoom {
  private roomLog?: Logger;
  /** The keeper of this room's seats, once `keepSeats` made it. */
  private seatKeeper?: SeatKeeper<string, unknown, unknown, unknown>;
  /** onCreate finished: Colyseus also calls onDispose for a room whose onCreate threw. */
  private created = false;
  /** Clients that connected and have not left (dropped ones awaiting reconnection included). */
  private players = 0;
  /** Parts told first thing in onLeave that a client is gone (./guard.ts, ./shooterControls.ts). */
  private readonly perClient: ForgetsClients<ExtractRoomClient<T>>[] = [];

  constructor() {
    super();
    // Colyseus wrapped the lifecycle calls in its constructor; these wraps go around them.
    const create = this.onCreate?.bind(this);
    const dispose = this.onDispose?.bind(this);
    const leave = this.onLeave?.bind(this);
    if (create) {
      this.onCreate = async (...args: unknown[]) => {
        await (create as (...a: unknown[]) => unknown)(...args);
        this.created = true;
      };
    }
    // A room whose creation failed holds nothing to release, and its fields may not exist.
    if (dispose) this.onDispose = () => (this.created ? dispose() : undefined);
    if (dispose) {
      const disposing = this.onDispose!;
      this.onDispose = () => {
        this.sessionSeats.unbindRoom(this);
        return disposing();
      };
    }
    if (leave) {
      this.onLeave = (client: ExtractRoomClient<T>, code?: number) => {
        this.sessionSeats.unbind(this, client.sessionId);
        for (const part of this.perClient) part.forget(client);
        return leave(client, code);
      };
    }
    // Every connection is bound to its account's session; a reconnection must present the seat's account.
    const target = this as unknown as { _onJoin: JoinStep };
    const join = target._onJoin.bind(this);
    target._onJoin = async (client, authContext, connectionOptions) => {
      const presented = connectionOptions?.reconnectionToken ? await this.checkReconnectingAccount(client.sessionId, authContext) : undefined;
      await join(client, authContext, connectionOptions);
      this.bindSession(client, presented);
    };
    // A reservation landing after the matchmaker gave up on it holds its seat seconds, not 15 (./reservations.ts).
    shortenLateReservations(this, (sid, lateMs) => this.log.info({ sid, lateMs }, "a seat reservation landed after the matchmaker's patience: held briefly"));
    // The listing counts seat reservations as clients; status pages count players (src/shared/modeStatus.ts).
    const events = (this as unknown as { _events: { on(event: string, listener: () => void): void } })._events;
    events.on("join", () => this.countPlayers(+1));
    events.on("leave", () => this.countPlayers(-1));
    // Which account is online in which mode, for its teachers' dashboard (src/shared/online.ts).
    const ev = events as unknown as { on(event: string, listener: (client?: Client) => void): void };
    ev.on("join", (client) => {
      const identity = client ? identityOf(client) : undefined;
      if (client && identity?.kind === "account") this.online.joined(client.sessionId, identity.userId);
    });
    ev.on("leave", (client) => client && this.online.left(client.sessionId));
    ev.on("dispose", () => this.onlineAccounts?.dispose());
  }

  private onlineAccounts?: RoomOnline;
  private get online(): RoomOnline {
    return (this.onlineAccounts ??= new RoomOnline(matchMaker.presence, this.roomId, this.roomName, (err) => this.log.warn({ err }, "could not record who is online in this room")));
  }

  /** Listing metadata always carries the player count, whatever else a room lists. */
  override setMetadata(meta: Partial<T["metadata"]>, persist = true): Promise<void> {
    return super.setMetadata({ ...meta, players: this.players } as T["metadata"], persist);
  }

  /**
   * The same for setMatchmaking: Colyseus persists its `updates` as they are (driver.update $set),
   * so metadata given there without the count would replace the listing's count with none, and a
   * locked, finished room would read 0 players for as long as its players stay.
   */
  override setMatchmaking(updates: Parameters<Room<T>["setMatchmaking"]>[0]): Promise<void> {
    if (!updates.metadata) return super.setMatchmaking(updates);
    return super.setMatchmaking({ ...updates, metadata: { ...updates.metadata, players: this.players } as T["metadata"] });
  }

  private countPlayers(delta: number): void {
    this.players = Math.max(0, this.players + delta);
    if (this.created) void this.setMetadata({ ...this.metadata }).catch((err: unknown) => this.log.warn({ err }, "could not update the room listing's player count"));
  }

  /** This room's logger: every line names the room type and id (known from onCreate on). */
  protected get log(): Logger {
    return (this.roomLog ??= appContext().logger.child({ room: this.roomName, roomId: this.roomId }));
  }

  /** Colyseus picks the schema serializer when the state is assigned: the kit's sends patches without a frame per client (./patches.ts). */
  override setSerializer(serializer: Parameters<Room["setSerializer"]>[0]): void {
    super.setSerializer(serializer instanceof SchemaSerializer && !(serializer instanceof SharedPatchSerializer) ? new SharedPatchSerializer() : serializer);
  }

  onUncaughtException(error: Error, method: string) {
    logRoomException(this.log, error, method);
  }

  /** `broadcast` as a function the mode's side files (relay.ts, messages.ts) are handed. */
  protected readonly broadcaster: Broadcast<ExtractRoomClient<T>["~messages"]> = (type, payload, options) => this.broadcast(type, payload, options);

  /** What onAuth returned for this client (a client reaches onJoin only through onAuth). */
  protected authOf<A>(client: Client<{ auth: A }>): A {
    if (!client.auth) throw new ServerError(401, "not authenticated");
    return client.auth;
  }

  /**
   * /matchmake/reconnect asks this with the token of the seat to take back. For a token whose
   * client is still connected, Colyseus closes that client (4002, for a connection a proxy left
   * half-open) and hands the seat over; a 4002 close leaves no reconnection window here
   * (./seats.ts), so the attempt failed anyway and the live player was kicked. Such a token is
   * refused (524 "reconnection token invalid or expired") and the live client is left alone; a
   * connection that is in fact dead is found by the transport's pings (src/server.ts) within
   * seconds, and its token then works within the window (the SDK keeps retrying meanwhile).
   */
  checkReconnectionToken(reconnectionToken: string): string {
    const live = this.clients.find((client) => client.reconnectionToken === reconnectionToken);
    if (live) {
      this.log.info({ sid: live.sessionId }, "refused a reconnection to a seat whose client is connected");
      return undefined as unknown as string; // Colyseus types it `string`; undefined is its "no such seat"
    }
    return super.checkReconnectionToken(reconnectionToken);
  }

  private get sessionSeats(): SessionSeats {
    const ctx = appContext();
    return sessionSeatsOf(ctx.sessions, ctx.logger);
  }

  /**
   * A reconnection into a seat: an account's seat takes it back only with a live session of that
   * account (the cookie of the WebSocket upgrade, as a join reads it); a guest's seat by its token
   * alone. Refused before Colyseus touches the seat: the seat keeps its window, nothing is spent.
   * Returns the presenter's identity, whose session the connection is then bound to.
   */
  private async checkReconnectingAccount(sid: string, authContext: AuthContext): Promise<Identity | undefined> {
    const internals = this as unknown as { _reservedSeats: Record<string, [unknown, unknown, ...unknown[]] | undefined> };
    const ownerAuth = internals._reservedSeats[sid]?.[1] ?? this.clients.getById(sid)?.auth;
    const owner = (ownerAuth as { identity?: Identity } | undefined)?.identity;
    if (owner?.kind !== "account") return undefined;
    let presenter: Identity;
    try {
      presenter = await resolveRoomIdentity(appContext(), authContext?.headers?.get("cookie"));
    } catch (err) {
      throw joinRefusal(err);
    }
    if (presenter.kind === "account" && presenter.userId === owner.userId) return presenter;
    this.log.warn(
      { sid, owner: owner.userId, presenter: presenter.kind === "account" ? presenter.userId : "none (no live session)" },
      "refused a reconnection into an account's seat: the presenter is not signed in as that account",
    );
    throw new ServerError(403, SEAT_OF_ANOTHER_ACCOUNT);
  }

  /** A connection that joined (or came back) is bound to its session, which ends it (./sessionSeats.ts). */
  private bindSession(client: Client, presented: Identity | undefined): void {
    const identity = presented ?? (client.auth as { identity?: Identity } | undefined)?.identity;
    if (identity?.kind !== "account" || !identity.session || !this.clients.getById(client.sessionId)) return;
    this.sessionSeats.bind(this, client.sessionId, identity.userId, identity.session);
  }

  /**
   * The session of `sid`'s connection ended: an open connection is closed with SESSION_ENDED and
   * its seat leaves as on a normal leave (written, then freed); a reconnection window ends now.
   */
  endSession(sid: string, why: SessionEndReason): void {
    this.seatKeeper?.endSession(sid);
    const client = this.clients.getById(sid);
    if (!client) return;
    if (why !== "account locked") return client.leave(SESSION_ENDED, why);
    sendError(client, ACCOUNT_LOCKED_CODE, ACCOUNT_LOCKED_REASON);
    client.leave(ACCOUNT_LOCKED, ACCOUNT_LOCKED_REASON);
  }

  /** `part` forgets each client leaving this room, before the room's onLeave runs. */
  protected forgetOnLeave<P extends ForgetsClients<ExtractRoomClient<T>>>(part: P): P {
    this.perClient.push(part);
    return part;
  }

  /**
   * Lag compensation (docs/netcode.md): Colyseus records what `attach` attaches at every patch; the
   * simulation reads it as PastPositions, `entityOf(id)` being the synchronized entity of `id`.
   */
  protected rewindPositions(attach: (rewind: Rewind) => void, entityOf: (id: string) => Positioned | undefined): PastPositions {
    const rewind = this.allowRewindState({ maxRewindMs: REWIND_HISTORY_MS });
    attach(rewind);
    return rewoundPositions(rewind, () => this.clock.elapsedTime, entityOf);
  }

  /** A fixed step of `hz` whose end sends the state patch, with the step's messages (not on a timer of its own). */
  protected stepAndPatch(step: (dtMs: number) => void, hz: number): void {
    this.setTimestep(step, 1000 / hz);
    this.patchRate = null;
  }

  /** The monitor's room view, each client named by who it is (./monitorLabel.ts). */
  async getInspectData(): Promise<unknown> {
    const data = await monitorHooks.getInspectData?.call(this);
    if (!data?.clients) return data;
    const labels = new Map(this.clients.map((c) => [c.sessionId, monitorLabel(c.sessionId, identityOf(c))]));
    return { ...data, clients: data.clients.map((c) => ({ ...c, sessionId: labels.get(c.sessionId) ?? c.sessionId })) };
  }

  /** The monitor's "disconnect" hands back the label of getInspectData. */
  async _forceClientDisconnect(label: string): Promise<void> {
    await monitorHooks._forceClientDisconnect?.call(this, sessionIdOfLabel(label));
  }

  /** The monitor's "send" hands back the label of getInspectData. */
  async _sendMessageToClient(label: string, type: string, data: unknown): Promise<void> {
    await monitorHooks._sendMessageToClient?.call(this, sessionIdOfLabel(label), type, data);
  }

  /** The keeper of this room's seats, from lease to release. */
  protected keepSeats<K extends string, D, P, R>(reconnectSeconds: number, rules: SeatRules<K, D, P, R>): SeatKeeper<K, D, P, R> {
    const keeper = new SeatKeeper(this, { leases: appContext().matchSeats, log: this.log, reconnectSeconds, ...rules });
    this.seatKeeper = keeper as unknown as SeatKeeper<string, unknown, unknown, unknown>;
    return keeper;
  }
}
