// Validation and rate limits for every message a room accepts, typed by the room's protocol
// module. Colyseus' own `validate()` closes the client (4002) on a bad payload and an unregistered
// type does the same; here a bad payload, an unknown type or a message over the rate limit is
// dropped with an `error` to that client only, and the client stays connected. Every frame a client
// sends (messages, requests, inputs, pings) also counts against a hard frame budget
// (./frameBudget.ts: its sending rate, so neither the server's own pause nor the client's outage
// is taken for a flood); a client over it is cut (4002, an `error`, one info line). A limit with
// `cutAfter` (presence changes) disconnects a client that keeps sending over it.
// Requests (`room.request()`, ROOM_REQUEST frames) count like messages, unknown types included.
// Clients of the original protocols name their room in their messages (`room_id`); a message
// naming another room is refused (`wrong_room`) before its handler runs.
import { ClientState, CloseCode, getMessageBytes, Protocol, ResponseStatus, type Client, type ClientPrivate, type MessageContext, type Room } from "@colyseus/core";
import { decode } from "@colyseus/schema";
import type { z } from "zod";
import { PROTOCOL_CODE_MASK } from "../../net/frameGuard.js";
import type { Logger } from "../../ops/logger.js";
import { ERROR_MESSAGE, ErrorCodes, validationErrorCode, type ErrorPayload, type InboundPayloads, type InboundSchemas } from "../../protocol/common.js";
import { countMessageIn, countRateLimited } from "../../ops/metrics.js";
import { FrameBudget, type FrameBudgetLimit } from "./frameBudget.js";
import "./metrics.js"; // counts what rooms send and how long their steps take

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  take(n = 1): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

export interface RateLimit {
  ratePerSecond: number;
  burst: number;
}

/** A handler's own limit, on top of the room's, keyed by its name (handlers may share one). */
export interface HandlerLimit extends RateLimit {
  name: string;
  /**
   * How many messages over this limit a client may send (refilled at the limit's own rate) before
   * it is cut: an `error`, then the connection closed (4002). Unset: over-limit messages are only dropped.
   */
  cutAfter?: number;
}

/** Every message a client sends counts against this, unless the room sets its own. */
export const MESSAGE_RATE_LIMIT: RateLimit = { ratePerSecond: 30, burst: 60 };
/** For rooms whose clients steer every frame (30 Hz input plus shots and chat on top). */
export const STEERING_RATE_LIMIT: RateLimit = { ratePerSecond: 60, burst: 90 };
/** Chat on top of that: at most 5 messages in a burst, 1 per second sustained. */
export const CHAT_RATE_LIMIT: HandlerLimit = { name: "chat", ratePerSecond: 1, burst: 5 };
/**
 * Presence changes (away/back, leaving and rejoining a lobby) reach every other member: like chat,
 * 5 at once and 1 per second; a client that keeps toggling past that is cut (./presence.ts).
 */
export const PRESENCE_RATE_LIMIT: HandlerLimit = { name: "presence", ratePerSecond: 1, burst: 5, cutAfter: 10 };
/** The hard frame budget's rate (frames per second, all kinds) of a room with the default limit; steering rooms get twice their burst (180). */
export const HARD_MESSAGES_PER_SECOND = 150;
/** The hard budget's burst: this share of a second of its rate, so a flood of 5× the rate is cut within 190 ms. */
const HARD_BURST_SECONDS = 0.75;

/** A room's hard frame budget: past it a client is cut (4002). */
export function hardFrameLimit(limit: RateLimit): FrameBudgetLimit {
  const ratePerSecond = Math.max(HARD_MESSAGES_PER_SECOND, limit.burst * 2);
  return { ratePerSecond, burst: Math.floor(ratePerSecond * HARD_BURST_SECONDS) };
}
/** At most one `rate_limited` notice per client and interval, so a flood is not echoed back. */
const NOTICE_INTERVAL_MS = 1000;
const MAX_ECHOED_TYPE_LENGTH = 64;
/** How a request (`room.request()`) over the limit is answered (REJECTED), where Colyseus would say OK. */
const RATE_LIMITED_REQUEST = Object.freeze({ code: ErrorCodes.rateLimited, message: "Too many messages: this one was dropped" });
const MAX_PROBLEMS_LISTED = 5;

/** Sends the `error` message to one client (the only way rooms report a client's mistake). */
export function sendError(client: Client, code: string, message: string, type?: string | number): void {
  const payload: ErrorPayload = { code, message };
  if (type !== undefined) payload.type = String(type).slice(0, MAX_ECHOED_TYPE_LENGTH);
  client.send(ERROR_MESSAGE, payload);
}

function unknownType(type: string | number): string {
  return `Unknown message type "${String(type).slice(0, MAX_ECHOED_TYPE_LENGTH)}"`;
}

/** "x: Invalid input: expected number, received string; …" */
export function describeIssues(error: z.ZodError): string {
  const problems = error.issues.slice(0, MAX_PROBLEMS_LISTED).map((i) => `${i.path.length ? i.path.join(".") : "payload"}: ${i.message}`);
  return problems.join("; ");
}

/**
 * The payload field a message names its room by, or several (the first one present counts);
 * false: this message's room is not checked.
 */
export type RoomField = string | readonly string[] | false;

export interface HandlerOptions<T = unknown> {
  /** An extra, stricter limit for this message type (e.g. chat), keyed by its name. */
  limit?: HandlerLimit;
  /** Overrides the guard's `roomField` for this message type. */
  roomField?: RoomField;
  /**
   * A cheap exact check for the common case (e.g. a move: two numbers): what it accepts goes to the
   * handler as sent, without the schema's walk and copy; what it does not accept still goes through
   * the schema, so a bad payload gets the schema's error. It must accept nothing the schema refuses.
   */
  fast?: (raw: unknown) => raw is T;
}

export interface GuardOptions {
  /** The per-client limit over all message types of the room. */
  limit?: RateLimit;
  /** Where the room's messages name their room (e.g. "room_id"); none checked when unset. */
  roomField?: RoomField;
  /** Where rate-limited and cut clients are logged (info, warn). */
  log: Logger;
  now?: () => number;
}

/** Whether a message names this room: an absent id does; another id is refused with `wrong_room`. */
export function namesThisRoom(roomId: string, client: Client, named: string | undefined, type: string): boolean {
  if (named === undefined || named === roomId) return true;
  sendError(client, ErrorCodes.wrongRoom, `You are in room ${roomId}, not "${named.slice(0, 64)}"`, type);
  return false;
}

/** The room id a payload carries in `field` (the first of several that holds one). */
function roomNamed(message: unknown, field: string | readonly string[]): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  if (typeof field === "string") return typeof fields[field] === "string" ? (fields[field] as string) : undefined;
  for (const f of field) if (typeof fields[f] === "string") return fields[f] as string;
  return undefined;
}

const WS_OPEN = 1;

/** The part of Colyseus' Room that unknown requests are guarded in (private in its typings). */
interface RoomInternals<C> {
  maxMessagesPerSecond: number;
  _onMessage(client: C, buffer: Uint8Array | undefined): void;
  readonly onMessageEvents: { events: Record<string, unknown[] | undefined> };
}

export class MessageGuard<C extends Client, S extends InboundSchemas> {
  private readonly buckets = new Map<string, Map<string, TokenBucket>>();
  /** Per client: every frame it sends, against the hard budget; and its messages against the room's limit. */
  private readonly frames = new Map<string, FrameBudget>();
  private readonly messages = new Map<string, FrameBudget>();
  /** Connections cut for flooding: their frames still in flight are dropped unread. */
  private readonly flooders = new WeakSet<C>();
  readonly hardLimit: FrameBudgetLimit;
  private readonly lastNotice = new Map<string, number>();
  private readonly handled = new Set<string>();
  private readonly limit: RateLimit;
  private readonly roomField: RoomField;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(
    private readonly room: Room<any>,
    private readonly schemas: S,
    options: GuardOptions,
  ) {
    this.limit = options.limit ?? MESSAGE_RATE_LIMIT;
    this.roomField = options.roomField ?? false;
    this.log = options.log;
    this.now = options.now ?? performance.now.bind(performance);
    this.hardLimit = hardFrameLimit(this.limit);
    // Colyseus' own cap (frames per second of arrival) until rejectUnknown() puts the budget in front.
    room.maxMessagesPerSecond = this.hardLimit.ratePerSecond;
  }

  /**
   * Registers the handler of one inbound message; it only sees payloads the protocol's schema
   * accepts, naming this room (or none).
   */
  on<K extends keyof S & string>(
    type: K,
    handler: (client: C, message: InboundPayloads<S>[K]) => unknown,
    options: HandlerOptions<InboundPayloads<S>[K]> = {},
  ): void {
    const schema = this.schemas[type];
    const fast = options.fast;
    const roomField = options.roomField ?? this.roomField;
    const limit = options.limit;
    const patience = limit?.cutAfter === undefined ? undefined : { name: `${limit.name}:patience`, ratePerSecond: limit.ratePerSecond, burst: limit.cutAfter };
    this.handled.add(type);
    // `request` is Colyseus' reply handle: a no-op for a plain message, the answer to a request.
    this.room.onMessage(type, (client: C, raw: unknown, request?: MessageContext) => {
      countMessageIn(this.room.roomName);
      if (!this.admit(client, type, limit, patience)) return request?.reject(RATE_LIMITED_REQUEST);
      let message: InboundPayloads<S>[K];
      if (fast?.(raw)) message = raw;
      else {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) return sendError(client, validationErrorCode(parsed.error), `Invalid ${type}: ${describeIssues(parsed.error)}`, type);
        message = parsed.data as InboundPayloads<S>[K];
      }
      if (roomField !== false && !namesThisRoom(this.room.roomId, client, roomNamed(message, roomField), type)) return;
      // Returned so the room's onUncaughtException also sees an async handler's rejection.
      return handler(client, message);
    });
  }

  /**
   * Answers every unregistered message type with an error instead of a disconnect. Call it after
   * the handlers; it also checks that every message of the protocol got one.
   */
  rejectUnknown(): void {
    const missing = Object.keys(this.schemas).filter((type) => !this.handled.has(type));
    if (missing.length) throw new Error(`no handler for inbound message(s): ${missing.join(", ")}`);
    this.room.onMessage("*", (client: C, type: string | number) => {
      countMessageIn(this.room.roomName);
      if (!this.admit(client, type)) return;
      sendError(client, ErrorCodes.unknownMessage, unknownType(type), type);
    });
    this.guardFrames();
  }

  /**
   * Every frame of every client passes here before Colyseus reads it (room._onMessage): it is
   * counted against the client's hard frame budget (a client over it is cut), which replaces
   * Colyseus' own cap (frames per second of arrival, which cut every client after a server stall).
   * A request (ROOM_REQUEST frame) of a type without a handler never reaches "*": Colyseus answers
   * it itself, outside this guard's budget. Such a frame is counted here instead: within the budget
   * it is answered with an ERROR response naming the type (code unknown_message), over it with the
   * REJECTED (rate_limited) answer a known type's request gets over the budget. Other frames pass at
   * the cost of one comparison.
   */
  private guardFrames(): void {
    const room = this.room as unknown as RoomInternals<C>;
    if (typeof room._onMessage !== "function") return; // a stand-in room (unit tests)
    room.maxMessagesPerSecond = Infinity;
    const dispatch = room._onMessage.bind(room);
    const it = { offset: 0 };
    // Colyseus binds each client's frames to room._onMessage when it joins, after onCreate.
    room._onMessage = (client, buffer) => {
      if (client.state === ClientState.LEAVING || this.flooders.has(client)) return; // cut: its last frames still arrive
      if (!this.frameBudget(client).take()) return this.cutFlood(client);
      if (buffer === undefined || (buffer[0] & PROTOCOL_CODE_MASK) !== Protocol.ROOM_REQUEST) return dispatch(client, buffer);
      let requestId: number;
      let type: string | number;
      try {
        it.offset = 1;
        requestId = decode.number(buffer, it);
        type = decode.stringCheck(buffer, it) ? decode.string(buffer, it) : decode.number(buffer, it);
      } catch {
        return dispatch(client, buffer); // a malformed frame is the transport guard's business
      }
      if (type !== "*" && room.onMessageEvents.events[type]?.[0] !== undefined) return dispatch(client, buffer);
      countMessageIn(this.room.roomName);
      // Over the budget it is answered as a known type's request is (rejected, rate_limited), so the
      // client's request settles instead of waiting for its timeout.
      if (!this.admit(client, type)) return client.enqueueRaw(getMessageBytes[Protocol.ROOM_RESPONSE](requestId, ResponseStatus.REJECTED, RATE_LIMITED_REQUEST));
      const payload = { name: ErrorCodes.unknownMessage, code: ErrorCodes.unknownMessage, message: unknownType(type) };
      client.enqueueRaw(getMessageBytes[Protocol.ROOM_RESPONSE](requestId, ResponseStatus.ERROR, payload));
    };
  }

  private frameBudget(client: C): FrameBudget {
    let budget = this.frames.get(client.sessionId);
    if (!budget) this.frames.set(client.sessionId, (budget = new FrameBudget(this.hardLimit, this.now)));
    return budget;
  }

  /** Cuts a client over its hard frame budget: an `error` saying why, 4002, one info line. */
  private cutFlood(client: C): void {
    this.flooders.add(client);
    countRateLimited("room_frames");
    const { ratePerSecond, burst } = this.hardLimit;
    const silenceMs = Math.round(this.frames.get(client.sessionId)?.lastSilenceMs ?? 0);
    this.log.info({ sid: client.sessionId, roomId: this.room.roomId, reason: "frame_flood", ratePerSecond, burst, silenceMs }, "cut a client sending frames over its budget");
    sendError(client, ErrorCodes.rateLimited, `More than ${ratePerSecond} frames per second: disconnected`);
    this.room.kickClient(client.sessionId, CloseCode.WITH_ERROR);
    // Not yet among the room's clients (still joining): closed directly.
    if (client.state !== ClientState.LEAVING) client.leave(CloseCode.WITH_ERROR);
  }

  /** Forgets a client's buckets (call from onLeave). */
  forget(client: C): void {
    this.buckets.delete(client.sessionId);
    this.frames.delete(client.sessionId);
    this.messages.delete(client.sessionId);
    this.lastNotice.delete(client.sessionId);
  }

  private admit(client: C, type: string | number, extra?: HandlerLimit, patience?: HandlerLimit): boolean {
    if (!this.messageBudget(client).take()) return this.refuse(client, type);
    if (!extra || this.bucket(client, extra.name, extra).take()) return true;
    if (patience && !this.bucket(client, patience.name, patience).take()) return this.cut(client, type, extra.name);
    return this.refuse(client, type, extra.name);
  }

  /** Disconnects a client that kept sending over a limit, with an `error` saying why (once). */
  private cut(client: C, type: string | number, limit: string): false {
    countRateLimited("room_messages");
    if ((client as C & ClientPrivate).readyState !== WS_OPEN) return false; // already cut: its last frames still arrive
    this.log.warn({ sid: client.sessionId, type: String(type).slice(0, MAX_ECHOED_TYPE_LENGTH), limit }, "cut a client that kept sending over a limit");
    sendError(client, ErrorCodes.rateLimited, `Too many ${limit} messages: disconnected`, type);
    client.leave(CloseCode.WITH_ERROR);
    return false;
  }

  /** Drops a message over a limit: one notice per client and interval, one log line per client. */
  private refuse(client: C, type: string | number, limit = "messages"): false {
    countRateLimited("room_messages");
    const now = this.now();
    const last = this.lastNotice.get(client.sessionId);
    if (last === undefined) this.log.info({ sid: client.sessionId, type: String(type).slice(0, MAX_ECHOED_TYPE_LENGTH), limit }, "rate limited a client's messages");
    if (now - (last ?? -Infinity) >= NOTICE_INTERVAL_MS) {
      this.lastNotice.set(client.sessionId, now);
      sendError(client, ErrorCodes.rateLimited, "Too many messages: some were dropped", type);
    }
    return false;
  }

  /** The room's limit over all its messages: like the frame budget, a silence's messages arriving at once are not dropped. */
  private messageBudget(client: C): FrameBudget {
    let budget = this.messages.get(client.sessionId);
    if (!budget) this.messages.set(client.sessionId, (budget = new FrameBudget(this.limit, this.now)));
    return budget;
  }

  private bucket(client: C, name: string, limit: RateLimit): TokenBucket {
    let perClient = this.buckets.get(client.sessionId);
    if (!perClient) this.buckets.set(client.sessionId, (perClient = new Map()));
    let bucket = perClient.get(name);
    if (!bucket) perClient.set(name, (bucket = new TokenBucket(limit.ratePerSecond, limit.burst, this.now)));
    return bucket;
  }
}
