// A room's static onAuth in one call: validate the join options against the room's schema (400
// with the problems listed), then resolve the session cookie into an account or a guest.
import { ServerError, type AuthContext } from "@colyseus/core";
import type { z } from "zod";
import { appContext } from "../../context.js";
import { resolveRoomIdentity, type Identity } from "../../auth/identity.js";
import { describeIssues } from "./guard.js";

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
