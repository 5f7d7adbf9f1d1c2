// Validation and rate limits for every message a room accepts, typed by the room's protocol
// module. Colyseus' own `validate()` closes the client (4002) on a bad payload and an unregistered
// type does the same; here a bad payload, an unknown type or a message over the rate limit is
// dropped with an `error` to that client only, and the client stays connected. Colyseus' hard
// limit (maxMessagesPerSecond) still disconnects a client that floods far beyond the limit.
// Clients of the original protocols name their room in their messages (`room_id`); a message
// naming another room is refused (`wrong_room`) before its handler runs.
import type { Client, Room } from "@colyseus/core";
import type { z } from "zod";
import { ERROR_MESSAGE, ErrorCodes, type ErrorPayload, type InboundPayloads, type InboundSchemas } from "../../protocol/common.js";
import { countMessageIn, countRateLimited } from "../../metrics.js";
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

/** Every message a client sends counts against this, unless the room sets its own. */
export const MESSAGE_RATE_LIMIT: RateLimit = { ratePerSecond: 30, burst: 60 };
/** For rooms whose clients steer every frame (30 Hz input plus shots and chat on top). */
export const STEERING_RATE_LIMIT: RateLimit = { ratePerSecond: 60, burst: 90 };
/** Chat on top of that: at most 5 messages in a burst, 1 per second sustained. */
export const CHAT_RATE_LIMIT = { name: "chat", ratePerSecond: 1, burst: 5 };
/** Beyond this many messages within one second Colyseus disconnects the client (4002). */
export const HARD_MESSAGES_PER_SECOND = 150;
/** At most one `rate_limited` notice per client and interval, so a flood is not echoed back. */
const NOTICE_INTERVAL_MS = 1000;
const MAX_ECHOED_TYPE_LENGTH = 64;
const MAX_PROBLEMS_LISTED = 5;

/** Sends the `error` message to one client (the only way rooms report a client's mistake). */
export function sendError(client: Client, code: string, message: string, type?: string | number): void {
  const payload: ErrorPayload = { code, message };
  if (type !== undefined) payload.type = String(type).slice(0, MAX_ECHOED_TYPE_LENGTH);
  client.send(ERROR_MESSAGE, payload);
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
  limit?: RateLimit & { name: string };
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

export class MessageGuard<C extends Client, S extends InboundSchemas> {
  private readonly buckets = new Map<string, Map<string, TokenBucket>>();
  private readonly lastNotice = new Map<string, number>();
  private readonly handled = new Set<string>();
  private readonly limit: RateLimit;
  private readonly roomField: RoomField;
  private readonly now: () => number;

  constructor(
    private readonly room: Room<any>,
    private readonly schemas: S,
    options: GuardOptions = {},
  ) {
    this.limit = options.limit ?? MESSAGE_RATE_LIMIT;
    this.roomField = options.roomField ?? false;
    this.now = options.now ?? Date.now;
    room.maxMessagesPerSecond = Math.max(HARD_MESSAGES_PER_SECOND, this.limit.burst * 2);
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
    this.handled.add(type);
    this.room.onMessage(type, (client: C, raw: unknown) => {
      countMessageIn(this.room.roomName);
      if (!this.admit(client, type, options.limit)) return;
      let message: InboundPayloads<S>[K];
      if (fast?.(raw)) message = raw;
      else {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) return sendError(client, ErrorCodes.invalidPayload, `Invalid ${type}: ${describeIssues(parsed.error)}`, type);
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
      sendError(client, ErrorCodes.unknownMessage, `Unknown message type "${String(type).slice(0, MAX_ECHOED_TYPE_LENGTH)}"`, type);
    });
  }

  /** Forgets a client's buckets (call from onLeave). */
  forget(client: C): void {
    this.buckets.delete(client.sessionId);
    this.lastNotice.delete(client.sessionId);
  }

  private admit(client: C, type: string | number, extra?: RateLimit & { name: string }): boolean {
    if (this.bucket(client, "*", this.limit).take() && (!extra || this.bucket(client, extra.name, extra).take())) return true;
    countRateLimited("room_messages");
    const now = this.now();
    if (now - (this.lastNotice.get(client.sessionId) ?? -Infinity) >= NOTICE_INTERVAL_MS) {
      this.lastNotice.set(client.sessionId, now);
      sendError(client, ErrorCodes.rateLimited, "Too many messages: some were dropped", type);
    }
    return false;
  }

  private bucket(client: C, name: string, limit: RateLimit): TokenBucket {
    let perClient = this.buckets.get(client.sessionId);
    if (!perClient) this.buckets.set(client.sessionId, (perClient = new Map()));
    let bucket = perClient.get(name);
    if (!bucket) perClient.set(name, (bucket = new TokenBucket(limit.ratePerSecond, limit.burst, this.now)));
    return bucket;
  }
}
