// A room's static onAuth in one call: validate the join options against the room's schema (400
// with the problems listed), then resolve the session cookie into an account or a guest. And what a
// join is told when the database cannot be reached.
import { ServerError, type AuthContext } from "@colyseus/core";
import type { z } from "zod";
import { appContext } from "../../context.js";
import { resolveRoomIdentity, type Identity } from "../../auth/identity.js";
import { isDatabaseUnreachable } from "../../db/unreachable.js";
import { describeIssues } from "./guard.js";

/**
 * What a client whose join needed the database (an account's seat: its bullets, its record) is
 * told while it cannot be reached: 503 (the SDK's MatchMakeError code; the docs' client retries on
 * 503) and the code `database_unavailable` at the head of a plain message, never the driver's text,
 * host or port. The /matchmake edge answers the same as `{ error: { code: "database_unavailable" } }`.
 */
export const DATABASE_UNAVAILABLE_JOIN = "database_unavailable: the database is not answering, so this seat cannot be set up. Join again shortly";

/** `err` as a room join's refusal: an unreachable database becomes the 503 above, anything else is left as it is. */
export function joinRefusal(err: unknown): unknown {
  return isDatabaseUnreachable(err) ? new ServerError(503, DATABASE_UNAVAILABLE_JOIN) : err;
}

export async function authenticateJoin<S extends z.ZodType>(
  schema: S,
  options: unknown,
  context: AuthContext,
): Promise<{ identity: Identity; options: z.output<S> }> {
  const parsed = schema.safeParse(options ?? undefined);
  if (!parsed.success) throw new ServerError(400, `invalid join options: ${describeIssues(parsed.error)}`);
  const requestedName = (parsed.data as { username?: unknown } | undefined)?.username;
  const identity = await resolveRoomIdentity(appContext(), context.headers?.get("cookie"), requestedName);
  return { identity, options: parsed.data };
}
