// What every room's protocol shares: the shape of a protocol module (inbound zod schemas and
// outbound payload types, both keyed by message name), the `error` message every room may send,
// and the typed room a Colyseus SDK client can join. Clients can import this module.
import { z } from "zod";
import { text } from "./text.js";

export const MAX_ROOM_ID_LENGTH = 64;
/** Coordinates and directions far outside any arena are malformed, not merely out of bounds. */
export const MAX_COORDINATE = 100_000;

/** The `room_id` a message may carry (checked against the room by the kit's MessageGuard). */
export const roomIdSchema = text({ max: MAX_ROOM_ID_LENGTH, kind: "identifier" });
/** A display name a client proposes (guests play under it; accounts under their account name). */
export const displayNameSchema = text({ max: 64, kind: "line" });
/** A character or weapon name the original clients send along (ignored or checked against a list). */
export const itemNameSchema = text({ max: 32, kind: "identifier" });
/** A finite coordinate or direction component within ±MAX_COORDINATE (zod 4 refuses NaN and ±Infinity). */
export const coordinateSchema = z.number().min(-MAX_COORDINATE).max(MAX_COORDINATE);

/** A position a client asks for: `{ x, y, room_id? }` (the boss and PvP moves). */
export interface PointPayload {
  x: number;
  y: number;
  room_id?: string;
}

const inRange = (v: unknown): v is number => typeof v === "number" && v >= -MAX_COORDINATE && v <= MAX_COORDINATE; // NaN fails both

/**
 * The common case of a move, checked without a schema walk or a copy: an object whose x and y are
 * coordinates and whose room_id, if any, is a room id. Accepts nothing the zod schema
 * `{ room_id: roomIdSchema.optional(), x: coordinateSchema, y: coordinateSchema }` refuses (extra
 * keys stay on the object; handlers read only these three); anything else goes to the schema.
 */
export function isPointPayload(raw: unknown): raw is PointPayload {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const p = raw as Record<string, unknown>;
  const roomId = p.room_id;
  return inRange(p.x) && inRange(p.y) && (roomId === undefined || (typeof roomId === "string" && roomId.length <= MAX_ROOM_ID_LENGTH));
}

/** A room's inbound messages: message name → the zod schema its payload must pass. */
export type InboundSchemas = Record<string, z.ZodType>;

/** Message name → the payload a handler receives once the schema accepted it. */
export type InboundPayloads<S extends InboundSchemas> = { [K in keyof S]: z.output<S[K]> };

export const ERROR_MESSAGE = "error";

/**
 * Join option of the rooms that tell their clients everything twice, as messages and as state
 * patches: the channel the client reads. "messages": no state patches; "state": no message mirror
 * of what the state carries. A client that says nothing gets both.
 */
export const updatesOption = z.enum(["messages", "state"]).optional();
export type Updates = z.output<typeof updatesOption>;

/** Error codes every room uses; a room's own codes live in its protocol module. */
export const ErrorCodes = {
  /** The payload failed validation (types, finite numbers, ranges, lengths). */
  invalidPayload: "invalid_payload",
  /** The room has no such message type. */
  unknownMessage: "unknown_message",
  /** Too many messages: this one was dropped. */
  rateLimited: "rate_limited",
  /** The message names another room than the one the client is in. */
  wrongRoom: "wrong_room",
  /** The sender is not (or no longer) a member/player here. */
  notInRoom: "not_in_room",
  /** A teacher or an admin muted the sender's account: its chat line was not sent to anyone. */
  muted: "muted",
} as const;
export type CommonErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/**
 * A shot's direction check as a refinement that names its own error code: `dx = dy = 0` is
 * answered `no_direction` (the code the rooms' protocols list), not `invalid_payload`.
 */
export const DIRECTION_REQUIRED: { message: string; path: string[]; params: { code: string } } = {
  message: "dx and dy must not both be zero",
  path: ["dx"],
  params: { code: "no_direction" },
};

/** The error code a failed validation answers with: a refinement's own (`params.code`) when it is the only problem. */
export function validationErrorCode(error: z.ZodError): string {
  const [only, ...more] = error.issues;
  const own = only?.code === "custom" && !more.length ? (only.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof own === "string" ? own : ErrorCodes.invalidPayload;
}

export interface ErrorPayload<Code extends string = string> {
  code: Code;
  message: string;
  /** The message type that caused the error, when there is one. */
  type?: string;
}

export const SERVER_DRAINING = "server_draining";

/**
 * `server_draining`, every room: this process is stopping (a deploy, a restart). It takes no new
 * rooms or seats; the client leaves and matchmakes again (same room name and options), which lands
 * on another process, or on the restarted one. Sent before the room closes (close code 4001).
 */
export interface ServerDrainingPayload {
  /** "shutdown": the process is stopping; "drain_limit": a running match was cut short at the drain limit. */
  reason: "shutdown" | "drain_limit";
  /** Matchmake again after this long; a process that is stopping answers matchmaking with 503 meanwhile. */
  retry_after_ms: number;
}

/** The message every room's outbound map has for a stopping process. */
export interface DrainingOutbound {
  server_draining: ServerDrainingPayload;
}

/** Every room's outbound map includes the `error` message. */
export interface CommonOutbound {
  error: ErrorPayload;
}

/**
 * A room as the Colyseus SDK sees it, built from a protocol module alone (no server code):
 * `client.joinOrCreate<TypedRoom<typeof bossInbound, BossOutbound, BossRoomState>>("boss")` types
 * `room.send(name, payload)`, `room.onMessage(name, cb)` and `room.state`.
 */
export interface TypedRoom<In extends InboundSchemas, Out, State = unknown> {
  "~state": State;
  state: State;
  /** Lets `joinOrCreate<…RoomType>(name, options)` keep its types when join options are passed. */
  onJoin?: (client: unknown, options?: Record<string, unknown>) => void;
  messages: { [K in keyof In]: (client: unknown, payload: z.input<In[K]>) => void };
  "~client": { "~messages": Out & CommonOutbound };
}
