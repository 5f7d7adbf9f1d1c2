// The Colyseus SDK client for this page: same origin, so the browser sends the session cookie on the
// matchmaking request and on the WebSocket upgrade by itself.
import { Client, MatchMakeError } from "@colyseus/sdk";

/**
 * A protocol's room type plus its join options, for `client.joinOrCreate<Joinable<…>>(name, options)`:
 * the SDK takes the options' type from the room's `onJoin`, which `TypedRoom` does not declare.
 */
export type Joinable<R, Options> = R & { onJoin(client: unknown, options?: Options): void };

let client: Client | undefined;

export function colyseus(): Client {
  return (client ??= new Client(location.origin));
}

/** A readable sentence for a failed join (403 not enough bullets, 409 seat elsewhere, …). */
export function joinErrorMessage(err: unknown): string {
  if (err instanceof MatchMakeError) return err.message || `The server refused the join (${err.code})`;
  return (err as Error)?.message || "Could not join the room";
}
