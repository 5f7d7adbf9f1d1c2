// The Colyseus SDK client for this page: same origin, so the browser sends the session cookie on the
// matchmaking request and on the WebSocket upgrade by itself.
import { Client, MatchMakeError, type Room } from "@colyseus/sdk";
import type { ServerDrainingPayload } from "../../../src/protocol/common.js";
import { MAY_TRY_RECONNECT } from "../../../src/protocol/closeCodes.js";

/**
 * A protocol's room type plus its join options, for `client.joinOrCreate<Joinable<…>>(name, options)`:
 * the SDK takes the options' type from the room's `onJoin`, which `TypedRoom` does not declare.
 */
export type Joinable<R, Options> = R & { onJoin(client: unknown, options?: Options): void };

let client: Client | undefined;

export function colyseus(): Client {
  if (!client) {
    client = new Client(location.origin);
    // Every room this page joins (or rejoins) watches its link.
    const consume = client.consumeSeatReservation.bind(client);
    client.consumeSeatReservation = (async (...args: Parameters<typeof consume>) => {
      const room = await consume(...args);
      watchLink(room);
      return room;
    }) as typeof consume;
  }
  return client;
}

/** The client heartbeat: a ping every LINK_PING_MS while none is unanswered… */
export const LINK_PING_MS = 500;
/** …and a ping unanswered this long is a dead link: noticed 3.5–4 s after it died (docs/messages.md). */
export const LINK_DEAD_MS = 3500;

/**
 * Notices a dead link, which the SDK does not: a browser learns of a silent network (a tunnel, a
 * Wi-Fi hand-over) only when TCP gives up, minutes later. The room is pinged (Colyseus' PING, answered
 * by every room); a ping unanswered for LINK_DEAD_MS drops the socket with 4010, on which the SDK
 * reconnects into the seat at once (and keeps retrying while the link is down). Returns a stop.
 */
export function watchLink(room: Pick<Room, "ping" | "connection" | "onReconnect" | "onLeave">, now = () => performance.now()): () => void {
  let pingedAt = 0; // 0: no ping unanswered
  const timer = setInterval(() => {
    if (!room.connection?.isOpen) return; // reconnecting: the SDK's own retries run
    const t = now();
    if (pingedAt === 0) {
      pingedAt = t;
      const sent = t;
      room.ping(() => void (pingedAt === sent && (pingedAt = 0)));
    } else if (t - pingedAt >= LINK_DEAD_MS) {
      pingedAt = 0;
      room.connection.close(MAY_TRY_RECONNECT, "no answer to pings");
    }
  }, LINK_PING_MS);
  room.onReconnect(() => void (pingedAt = 0));
  const stop = () => clearInterval(timer);
  room.onLeave(stop);
  return stop;
}

/** A readable sentence for a failed join (403 not enough bullets, 409 seat elsewhere, …). */
export function joinErrorMessage(err: unknown): string {
  if (err instanceof MatchMakeError) return err.message || `The server refused the join (${err.code})`;
  return (err as Error)?.message || "Could not join the room";
}

/** How long matchmaking keeps trying while a server restarts or hands over to another process. */
const MATCHMAKE_PATIENCE_MS = 30_000;

/**
 * Matchmaking that outlasts a deploy: a stopping process answers 503 and a restarting one does not
 * answer at all; both are tried again (backing off to 4 s) for up to 30 s. Other refusals (403, 409,
 * …) are the player's to read at once.
 */
export async function matchmake<T>(join: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + MATCHMAKE_PATIENCE_MS;
  for (let wait = 250; ; wait = Math.min(wait * 2, 4000)) {
    try {
      return await join();
    } catch (err) {
      const retriable = !(err instanceof MatchMakeError) || err.code === 503;
      if (!retriable || Date.now() + wait > giveUpAt) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Text for a player whose server is stopping (`server_draining`). */
export const DRAINING_NOTICE = "This server is restarting: moving you to another one…";

/**
 * A room whose server is stopping sends `server_draining` and closes (4001): `follow` runs after
 * the payload's retry_after_ms, to matchmake again (same room, same options: it lands on another
 * process). Returns whether the room's close is such a move (then it is no error to show).
 */
export function followServerDraining(
  room: { onMessage(type: "server_draining", cb: (payload: ServerDrainingPayload) => void): unknown },
  notice: (text: string) => void,
  follow: () => void,
): () => boolean {
  let moving = false;
  room.onMessage("server_draining", (payload) => {
    moving = true;
    notice(DRAINING_NOTICE);
    setTimeout(follow, payload.retry_after_ms);
  });
  return () => moving;
}
