// One WebSocket connection's bounds (issue 30; docs/security.md "Slow and silent clients"): the
// bytes the server holds for it (the transport's outbox, ws' user-space buffer, what Colyseus queues
// before the join is acknowledged) never pass MAX_CLIENT_BACKLOG_BYTES (past it: cut 4005, one warn
// line), and its JOIN_ROOM must be acknowledged within JOIN_ACK_TIMEOUT_MS (or cut 4006). The
// transport (./transport.ts) makes one Link per connection and checks it around every write.
import type { Socket } from "node:net";
import { ClientState, Room, type Client } from "@colyseus/core";
import type WebSocket from "ws";
import { PingState, type Heartbeat } from "./heartbeat.js";
import type { Logger } from "../ops/logger.js";
import { BACKLOG_FULL, JOIN_NOT_ACKNOWLEDGED } from "../protocol/closeCodes.js";

/** What a Link needs of the transport's outbox for this connection (./transport.ts). */
export interface HeldFrames {
  readonly frames: { readonly length: number; take(): unknown };
}

/** How long a client has to acknowledge the server's JOIN_ROOM (the SDK does at once). */
export const JOIN_ACK_TIMEOUT_MS = 10_000;

/** What a transport's connections share: its limits, its logger, its heartbeat. */
export interface LinkSettings {
  logger: Logger | undefined;
  maxBacklogBytes: number;
  joinAckMs: number;
  heartbeat: Heartbeat;
}

/** One connection: what it holds, its pings, its join. */
export class Link {
  box?: HeldFrames;
  readonly pings = new PingState();
  /** Bytes Colyseus queued for it before its join was acknowledged (JoinQueue). */
  joinBytes = 0;
  joinQueue?: Uint8Array[];
  joinTimer?: NodeJS.Timeout;
  /** Set once the server cut it: the code the room is told. */
  cutCode?: number;

  constructor(
    readonly ws: WebSocket,
    readonly socket: Socket,
    readonly settings: LinkSettings,
    readonly roomId: string | undefined,
    readonly sid: string | undefined,
    readonly address: string | undefined,
  ) {}

  /** Bytes the server holds for this client in user space. */
  get held(): number {
    return this.ws.bufferedAmount + (this.box?.frames.length ?? 0) + this.joinBytes;
  }

  /**
   * Cuts the connection when what it holds, plus `more` bytes about to be written while the
   * kernel takes nothing more (bytes already wait in user space), passes the cap. True: cut.
   */
  check(more = 0): boolean {
    if (this.cutCode !== undefined) return true;
    const held = this.held;
    if (more > 0 && this.ws.bufferedAmount === 0) more = 0; // the kernel may take them: written, then checked
    if (held + more <= this.settings.maxBacklogBytes) return false;
    this.settings.logger?.warn(
      { roomId: this.roomId, sid: this.sid, address: this.address, heldBytes: held, refusedBytes: more, maxBytes: this.settings.maxBacklogBytes, code: BACKLOG_FULL },
      "cut a client that does not read what the server sends (its backlog passed MAX_CLIENT_BACKLOG_BYTES)",
    );
    this.cut(BACKLOG_FULL, "backlog full");
    return true;
  }

  /**
   * Closes the connection now, dropping what it holds: the close frame is written (a client that
   * still reads gets the code), the socket destroyed at once (one that does not read would hold it
   * 30 s in ws' closing handshake), and the room told `code` instead of 1006.
   */
  cut(code: number, reason: string): void {
    if (this.cutCode !== undefined) return;
    this.cutCode = code;
    this.box?.frames.take();
    if (this.joinQueue) this.joinQueue.length = 0;
    this.joinBytes = 0;
    clearTimeout(this.joinTimer);
    try {
      this.ws.close(code, reason);
    } catch {
      // not open yet or already closing: terminate below is enough
    }
    this.ws.terminate();
  }

  /** The server sent JOIN_ROOM: the client acknowledges it within joinAckMs (time the server stalled excluded). */
  awaitJoinAck(): void {
    clearTimeout(this.joinTimer);
    const startedAt = performance.now();
    const expire = () => {
      // A stall since the start (or a late timer) is not the client's delay: it gets the full time again.
      if (this.settings.heartbeat.lastStallEnd > startedAt) return void (this.joinTimer = setTimeout(expire, this.settings.joinAckMs).unref());
      this.settings.logger?.info(
        { roomId: this.roomId, sid: this.sid, address: this.address, code: JOIN_NOT_ACKNOWLEDGED, waitedMs: this.settings.joinAckMs },
        "cut a client that did not acknowledge its join; its seat is freed",
      );
      this.cut(JOIN_NOT_ACKNOWLEDGED, "join not acknowledged");
    };
    this.joinTimer = setTimeout(expire, this.settings.joinAckMs).unref();
  }

  /** The client acknowledged JOIN_ROOM: Colyseus sent what it had queued and dropped its queue. */
  joinAcknowledged(): void {
    clearTimeout(this.joinTimer);
    this.joinTimer = undefined;
    this.joinQueue = undefined;
    this.joinBytes = 0;
  }
}

/** Each connection's Link, by its WebSocket. */
export const links = new WeakMap<WebSocket, Link>();

/**
 * Colyseus' queue of a client's messages before its join is acknowledged (`_enqueuedMessages`),
 * counting its bytes into the connection's backlog.
 */
class JoinQueue extends Array<Uint8Array> {
  link?: Link;

  override push(...items: Uint8Array[]): number {
    const link = this.link;
    if (link?.cutCode !== undefined) return this.length; // cut: nothing more is held for it
    const n = super.push(...items);
    if (link) {
      for (const item of items) link.joinBytes += item.byteLength;
      link.check();
    }
    return n;
  }
}

interface JoiningClient {
  ref?: unknown;
  _enqueuedMessages?: Uint8Array[];
}

/** Replaces a joining client's queue (Colyseus' `_enqueuedMessages`) with one its connection's cap bounds. */
export function boundJoinQueue(client: JoiningClient): void {
  const link = links.get(client.ref as WebSocket);
  if (!link || !Array.isArray(client._enqueuedMessages)) return;
  const queue = new JoinQueue();
  queue.link = link;
  for (const item of client._enqueuedMessages) queue.push(item);
  client._enqueuedMessages = queue;
  link.joinQueue = queue;
}

// Every room's joining clients get the bounded queue (before Colyseus' _onJoin queues anything).
{
  const proto = Room.prototype as unknown as { _onJoin(client: Client, ...rest: unknown[]): Promise<unknown> };
  const onJoin = proto._onJoin;
  proto._onJoin = function (this: Room, client: Client, ...rest: unknown[]) {
    if (client.state === ClientState.JOINING) boundJoinQueue(client as unknown as JoiningClient);
    return onJoin.call(this, client, ...rest);
  };
}
