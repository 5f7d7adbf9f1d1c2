// What a room's onUncaughtException logs. Colyseus reports every rejected lifecycle call there,
// including the refusals a room means to send (a ServerError thrown from onJoin: a full room, a
// seat the account already holds elsewhere). Those are answered to the client and are not the
// server's faults: info, no stack. Anything else is a bug: error, with the stack.
import { ServerError } from "@colyseus/core";
import type { Logger } from "../../ops/logger.js";
import { isDatabaseUnreachable } from "../../db/unreachable.js";

export function logRoomException(log: Logger, error: Error, method: string): void {
  const cause = (error as { cause?: unknown }).cause;
  const refusal = error instanceof ServerError ? error : cause instanceof ServerError ? cause : undefined;
  if (refusal) {
    // 4xx: the client's own doing; Colyseus' 5xx matchmaking codes (a seat that expired, a client
    // gone mid-join) are worth a warning, still without a stack.
    log[refusal.code < 500 ? "info" : "warn"]({ method, code: refusal.code, reason: refusal.message }, "refused a client's request");
    return;
  }
  log.error({ err: error, method }, "room handler failed");
}

/**
 * A room's write to the database failed. An unreachable database is already counted in the
 * dependency tracker's one error line per interval (src/db/health.ts): debug here, not a line per
 * room and checkpoint. Anything else is an error with its stack.
 */
export function logStoreFailure(log: Logger, err: unknown, fields: Record<string, unknown>, message: string): void {
  if (isDatabaseUnreachable(err)) log.debug({ ...fields, dependency: "database" }, `${message} (database unreachable)`);
  else log.error({ err, ...fields }, message);
}
