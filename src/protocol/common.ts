// What every room may send: the `error` message, sent only to the client whose message failed.
// Clients can import this module (plain constants and types, zod schemas for inbound payloads).

export const ERROR_MESSAGE = "error";

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
  /** The sender's player is dead. */
  dead: "dead",
  /** The battle is over. */
  battleOver: "battle_over",
  noBullets: "no_bullets",
  /** Shots beyond the fire rate. */
  fireRate: "fire_rate",
  /** A shot without a direction. */
  noDirection: "no_direction",
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  /** The message type that caused the error, when there is one. */
  type?: string;
}
