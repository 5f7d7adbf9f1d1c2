// What a room's onUncaughtException logs. Colyseus reports every rejected lifecycle call there,
// including the refusals a room means to send (a ServerError thrown from onJoin: a full room, a
// seat the account already holds elsewhere). Those are answered to the client and are not the
// server's faults: info, no stack. Anything else is a bug: error, with the stack.
import { ServerError } from "@colyseus/core";
import type { Logger } from "../../logger.js";

export function logRoomException(log: Logger, error: Error, method: string): void {
  const cause = (error as { cause?: unknown }).cause;
  const refusal = error instanceof ServerError ? error : cause instanceof ServerError ? cause : undefined;
  if (refusal) {
    log.info({ method, code: refusal.code, reason: refusal.message }, "refused a client's request");
    return;
  }
  log.error({ err: error, method }, "room handler failed");
}
