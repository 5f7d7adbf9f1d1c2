// The WebSocket transport: Colyseus' ws transport with each connection's outgoing messages of one
// event-loop turn written to its socket at once. Every message stays its own WebSocket frame, in
// order; what changes is the cost around it:
// - a connection's frames of the turn are framed straight into one buffer the connection keeps
//   (header + payload copied, no buffer per frame, no concatenation), instead of ws building and
//   writing each frame on its own;
// - that buffer leaves in one socket write (one system call) at the end of the turn
//   (setImmediate). In a 10-player boss room a move is 10 messages; profiled at 400 players, a third
//   of the server's busy time was those writes.
// Payloads are copied when queued, because Colyseus hands over views of buffers it reuses (state
// patches are encoded into a shared buffer per room).
// Inbound, every frame passes the frame guard (src/net/frameGuard.ts) before Colyseus reads it: a frame
// that does not decode closes its sender (4002) with an info line, and never reaches the room.
// What one connection costs is bounded (issue 30; docs/security.md "Slow and silent clients"):
// - the bytes the server holds for it and its join acknowledgement: ./connectionLink.ts (cut 4005,
//   4006), checked here around every write;
// - its pings must be answered with their own nonce (./heartbeat.ts): unsolicited pongs keep nobody.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { CloseCode, matchMaker, Protocol, type Room } from "@colyseus/core";
import { WebSocketTransport, type TransportOptions } from "@colyseus/ws-transport";
import type WebSocket from "ws";
import { DEFAULT_MAX_CLIENT_BACKLOG_BYTES } from "../config.js";
import { inputFormat, refuseFrame, type InputFormat } from "./frameGuard.js";
import { Heartbeat, MONITOR_MS } from "./heartbeat.js";
import type { Logger } from "../ops/logger.js";
import { JOIN_ACK_TIMEOUT_MS, Link, links, type LinkSettings } from "./connectionLink.js";

const OPEN = 1; // WebSocket.OPEN
/** A connection's buffer to start with, and the most it keeps between turns (a full state is larger once). */
const INITIAL_BYTES = 2048;
const KEPT_BYTES = 64 * 1024;
/** What Colyseus' timed state frame adds after the code byte: the server clock and the input ack, u32 each. */
export const TIMED_PREFIX_BYTES = 8;

/**
 * Writes a state frame's payload in Colyseus' timed layout (`[code | TIMED][u32 sNow LE][u32
 * inputSeq LE][body after its code]`) into `b` at `at`: `body.byteLength + TIMED_PREFIX_BYTES` bytes.
 */
export function writeTimedPayload(b: Buffer, at: number, body: Uint8Array, timedCode: number, sNow: number, inputSeq: number): void {
  b[at] = timedCode;
  b.writeUInt32LE(sNow >>> 0, at + 1);
  b.writeUInt32LE(inputSeq >>> 0, at + 5);
  b.set(body.subarray(1), at + 1 + TIMED_PREFIX_BYTES);
}

/** One connection's frames of the current turn, framed into a buffer reused from turn to turn. */
export class FrameBuffer {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  private used = 0;

  get length(): number {
    return this.used;
  }

  /** Appends a final, unmasked binary frame (server → client) holding a copy of `payload`. */
  push(payload: Uint8Array): void {
    const at = this.frame(payload.byteLength); // may replace this.buffer with a larger one: read it after
    this.buffer.set(payload, at);
  }

  /**
   * Appends a state frame of an input room (writeTimedPayload) built straight from the room's one
   * encoded `body`: only the recipient's input acknowledgement differs between clients, so no frame
   * is built per client.
   */
  pushTimed(body: Uint8Array, timedCode: number, sNow: number, inputSeq: number): void {
    const at = this.frame(body.byteLength + TIMED_PREFIX_BYTES); // may replace this.buffer: read it after
    writeTimedPayload(this.buffer, at, body, timedCode, sNow, inputSeq);
  }

  /** The frames so far, emptied. Until `released(held)` the bytes belong to the caller. */
  take(): Buffer {
    const out = this.buffer.subarray(0, this.used);
    this.used = 0;
    return out;
  }

  /** After a write: a buffer the socket still holds (a write it could not finish at once) is left to it. */
  released(held: boolean): void {
    if (held || this.buffer.length > KEPT_BYTES) this.buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  }

  /** Reserves a final, unmasked binary frame of `n` payload bytes and writes its header: returns where the payload goes. */
  private frame(n: number): number {
    const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const at = this.reserve(head + n);
    const b = this.buffer;
    b[at] = 0x82; // FIN + binary
    if (head === 2) b[at + 1] = n;
    else if (head === 4) {
      b[at + 1] = 126;
      b.writeUInt16BE(n, at + 2);
    } else {
      b[at + 1] = 127;
      b.writeBigUInt64BE(BigInt(n), at + 2);
    }
    return at + head;
  }

  private reserve(bytes: number): number {
    const at = this.used;
    if (at + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, at + bytes));
      this.buffer.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.used = at + bytes;
    return at;
  }
}

/** One connection's frames waiting for the end of the turn. */
class Outbox {
  readonly frames = new FrameBuffer();

  constructor(
    readonly ws: WebSocket,
    readonly socket: Socket,
    readonly link?: Link,
  ) {}

  flush(): void {
    if (this.frames.length === 0) return;
    const bytes = this.frames.take();
    if (this.ws.readyState !== OPEN || this.socket.destroyed) return;
    if (this.link?.check(bytes.length)) return; // bytes already wait and these would pass the cap: cut instead
    this.socket.write(bytes);
    // A write the kernel took whole is done by now; otherwise the socket keeps the bytes until it is.
    const held = this.socket.writableLength > 0;
    this.frames.released(held);
    if (held) this.link?.check();
  }
}

/** The outbox of each batched connection, for writers that frame into it directly. */
const outboxes = new WeakMap<WebSocket, Outbox>();

/**
 * Queues a timed state frame (FrameBuffer.pushTimed) on a batched, open connection; returns false
 * when the connection has no outbox (compressed) or is not open, and the caller sends it otherwise.
 */
export function enqueueTimedFrame(ws: WebSocket, body: Uint8Array, timedCode: number, sNow: number, inputSeq: number): boolean {
  const box = openOutbox(ws);
  if (!box) return false;
  schedule(box);
  box.frames.pushTimed(body, timedCode, sNow, inputSeq);
  return true;
}

/**
 * Queues a frame holding a copy of `payload` on a batched, open connection, as its `send` would;
 * returns false when the connection has no outbox (compressed) or is not open, and the caller sends
 * it otherwise. For writers that already hold the connection (the rooms' tick outbox): no trip
 * through Colyseus' client and ws' send per recipient.
 */
export function enqueueFrame(ws: WebSocket, payload: Uint8Array): boolean {
  const box = openOutbox(ws);
  if (!box) return false;
  enqueue(box, payload);
  return true;
}

/** The outbox of a batched connection that is open. */
function openOutbox(ws: WebSocket): Outbox | undefined {
  const box = outboxes.get(ws);
  return box && ws.readyState === OPEN ? box : undefined;
}

const waiting: Outbox[] = [];
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  const boxes = waiting.splice(0, waiting.length);
  for (const box of boxes) box.flush();
}

/** Before a connection's first frame of the turn: it is flushed at the end of the turn. */
function schedule(box: Outbox): void {
  if (box.frames.length === 0) {
    waiting.push(box);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAll);
    }
  }
}

function enqueue(box: Outbox, payload: Uint8Array): void {
  schedule(box);
  box.frames.push(payload);
}

/**
 * Routes one connection's binary messages through its outbox. Anything else (text, a send with a
 * completion callback, a compressed connection) goes through ws as before, after the outbox, so
 * order holds; a close flushes the outbox first.
 */
export function batchWrites(ws: WebSocket, socket: Socket, link?: Link): void {
  if (ws.extensions) return; // permessage-deflate negotiated: ws must frame (and compress) itself
  const box = new Outbox(ws, socket, link);
  if (link) link.box = box;
  outboxes.set(ws, box);
  const send = ws.send;
  const close = ws.close;
  ws.send = function (this: WebSocket, data: unknown, options?: unknown, cb?: unknown) {
    const opts = typeof options === "object" && options !== null ? (options as { binary?: boolean; compress?: boolean; fin?: boolean }) : undefined;
    const plain = opts?.binary === true && opts.fin !== false && !opts.compress;
    if (plain && cb === undefined && typeof options !== "function" && data instanceof Uint8Array && ws.readyState === OPEN) {
      if (link && data[0] === Protocol.JOIN_ROOM) link.awaitJoinAck();
      enqueue(box, data);
      return;
    }
    box.flush();
    const sent = (send as (...a: unknown[]) => unknown).call(this, data, options, cb);
    link?.check();
    return sent;
  } as WebSocket["send"];
  ws.close = function (this: WebSocket, ...args: Parameters<WebSocket["close"]>) {
    box.flush();
    return close.apply(this, args);
  };
}

/** What a room's input frames hold: read from Colyseus' input controller and rewind timeline once per room. */
const inputFormats = new WeakMap<Room, InputFormat | null>();
interface InputRoom {
  _inputController?: { options?: { ctor?: object } };
  _timelineMode?(): { snapshot?: boolean; reckon?: boolean } | undefined;
}
function roomInputFormat(room: Room | undefined): InputFormat | undefined {
  if (!room) return undefined;
  let format = inputFormats.get(room);
  if (format === undefined) {
    const r = room as unknown as InputRoom;
    const type = r._inputController?.options?.ctor;
    const timeline = r._timelineMode?.();
    format = type ? inputFormat(type, timeline?.snapshot === true && timeline?.reckon === true) : null;
    inputFormats.set(room, format);
  }
  return format ?? undefined;
}

/** The room id of a connection, where Colyseus' transport reads it: the last segment of `/processId/roomId`. */
const sessionIdOf = (url: string | undefined) => /[?&]sessionId=([a-zA-Z0-9_-]+)/.exec(url ?? "")?.[1];
const roomIdOf = (url: string | undefined) => /\/[a-zA-Z0-9_-]+\/([a-zA-Z0-9_-]+)(?:\?|$)/.exec(url ?? "")?.[1];

/**
 * Puts the frame guard in front of every listener of the connection's frames: a refused frame is
 * never emitted; its sender is logged once at info and closed with 4002 (the frames that follow
 * are dropped until the close completes). With a `link`, the client's join acknowledgement is
 * noted, and a connection the server cut tells its room the cut's code.
 */
export function guardFrames(ws: WebSocket, req: IncomingMessage, logger: Logger | undefined, link?: Link): void {
  const roomId = roomIdOf(req.url);
  let format: InputFormat | undefined;
  let resolved = false;
  let refused = false;
  const emit = ws.emit;
  ws.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "message") {
      if (refused) return false;
      const frame = args[0];
      if (!resolved && roomId !== undefined) {
        const room = matchMaker.getLocalRoomById(roomId);
        if (room) {
          format = roomInputFormat(room);
          resolved = true;
        }
      }
      const reason = frame instanceof Uint8Array ? refuseFrame(frame, format) : "not a binary frame";
      if (reason !== undefined) {
        refused = true;
        const bytes = frame instanceof Uint8Array ? Buffer.from(frame.subarray(0, 32)).toString("hex") : undefined;
        logger?.info({ roomId, reason, bytes, length: frame instanceof Uint8Array ? frame.length : undefined, address: req.socket.remoteAddress }, "refused a WebSocket frame that does not decode; closing its sender");
        ws.close(CloseCode.WITH_ERROR, "malformed frame");
        return false;
      }
      if (link?.joinTimer !== undefined && (frame as Uint8Array)[0] === Protocol.JOIN_ROOM) {
        const emitted = emit.call(this, event, ...args);
        link.joinAcknowledged();
        return emitted;
      }
    } else if (event === "close" && link?.cutCode !== undefined) {
      return emit.call(this, event, link.cutCode, args[1]);
    }
    return emit.call(this, event, ...args);
  } as WebSocket["emit"];
}

export interface GuardedTransportOptions extends TransportOptions {
  /** Where refused frames and cut clients are logged (info / warn). */
  logger?: Logger;
  /** The most bytes the server holds for one client (MAX_CLIENT_BACKLOG_BYTES). */
  maxBacklogBytes?: number;
  /** How long a client has to acknowledge its join (default JOIN_ACK_TIMEOUT_MS). */
  joinAckMs?: number;
}

/** Each transport's settings, by its WebSocket server: `onConnection` runs with the server as `this`. */
const transports = new WeakMap<object, LinkSettings>();

export class BatchingWebSocketTransport extends WebSocketTransport {
  private readonly settings: LinkSettings;
  private monitor?: NodeJS.Timeout;

  constructor({ logger, maxBacklogBytes = DEFAULT_MAX_CLIENT_BACKLOG_BYTES, joinAckMs = JOIN_ACK_TIMEOUT_MS, ...options }: GuardedTransportOptions) {
    super({ ...options, perMessageDeflate: false });
    const heartbeat = new Heartbeat({ intervalMs: this.pingIntervalMS, maxMissed: this.pingMaxRetries });
    this.settings = { logger, maxBacklogBytes, joinAckMs, heartbeat };
    transports.set(this.wss, this.settings);
  }

  // Registered by the base constructor as the wss "connection" listener (so `this` is the wss):
  // forwards to the base implementation unchanged, after giving the connection its link (limits,
  // pings, join), guarding its frames and giving it its outbox.
  protected override async onConnection(rawClient: WebSocket & { pingCount: number }, req: IncomingMessage, upgrade?: unknown): Promise<void> {
    const settings = transports.get(this)!;
    const link = new Link(rawClient, req.socket, settings, roomIdOf(req.url), sessionIdOf(req.url), req.socket.remoteAddress);
    links.set(rawClient, link);
    rawClient.on("pong", (data: Buffer) => settings.heartbeat.answered(link.pings, data));
    rawClient.once("close", () => clearTimeout(link.joinTimer));
    guardFrames(rawClient, req, settings.logger, link);
    batchWrites(rawClient, req.socket, link);
    return WebSocketTransport.prototype["onConnection"].call(this, rawClient, req, upgrade as never);
  }

  /**
   * Replaces Colyseus' heartbeat (any pong resets its count): each round, every connection whose
   * last `maxMissed` pings went unanswered (./heartbeat.ts: by their nonce, stalls excluded) is cut,
   * the others get a ping with a fresh nonce. Cut clients are terminated (the room sees 1006, a
   * dropped connection with its reconnection window), one info line each.
   */
  protected override autoTerminateUnresponsiveClients(pingInterval: number): void {
    const { heartbeat, logger } = this.settings;
    clearInterval(this.monitor);
    this.monitor = setInterval(() => heartbeat.beat(), MONITOR_MS).unref();
    this.pingInterval = setInterval(() => {
      const now = heartbeat.beat();
      for (const ws of this.wss.clients) {
        const link = links.get(ws);
        if (!link || link.cutCode !== undefined) continue;
        const nonce = heartbeat.round(link.pings, now);
        if (nonce === undefined) {
          logger?.info({ roomId: link.roomId, sid: link.sid, address: link.address, missedPings: heartbeat.missed(link.pings) }, "cut a client that did not answer the server's pings");
          link.cutCode = CloseCode.ABNORMAL_CLOSURE;
          ws.terminate();
          continue;
        }
        ws.ping(nonce);
        link.check();
      }
    }, pingInterval);
    this.server?.once("close", () => clearInterval(this.monitor));
  }
}
