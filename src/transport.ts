// The WebSocket transport: Colyseus' ws transport with each connection's outgoing messages of one
// event-loop turn written to its socket at once. Every message stays its own WebSocket frame, in
// order; what changes is the cost around it:
// - a broadcast is framed once (header + payload copied into one buffer) and that frame is shared
//   by every recipient, instead of ws building a header per recipient;
// - a connection's frames of the turn leave in one socket write (one system call) at the end of
//   the turn (setImmediate), instead of one write per message. In a 10-player boss room a move is
//   10 messages; profiled at 400 players, a third of the server's busy time was those writes.
// Frames are copied when queued, because Colyseus hands over views of buffers it reuses (state
// patches are encoded into a shared buffer per room).
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { WebSocketTransport, type TransportOptions } from "@colyseus/ws-transport";
import type WebSocket from "ws";

const OPEN = 1; // WebSocket.OPEN

/** One connection's frames waiting for the end of the turn. */
class Outbox {
  frames: Buffer[] = [];

  constructor(
    readonly ws: WebSocket,
    readonly socket: Socket,
  ) {}

  flush(): void {
    const frames = this.frames;
    if (frames.length === 0) return;
    this.frames = [];
    if (this.ws.readyState !== OPEN || this.socket.destroyed) return;
    this.socket.write(frames.length === 1 ? frames[0] : Buffer.concat(frames));
  }
}

const waiting: Outbox[] = [];
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  const boxes = waiting.splice(0, waiting.length);
  for (const box of boxes) box.flush();
}

function enqueue(box: Outbox, frame: Buffer): void {
  if (box.frames.length === 0) {
    waiting.push(box);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAll);
    }
  }
  box.frames.push(frame);
}

// A broadcast hands the same payload object to every recipient in one synchronous loop: frame it
// once. The cache lives until the current synchronous code ends (a microtask clears it), so a
// buffer reused later for other bytes is never mistaken for the one framed here.
let lastPayload: Uint8Array | null = null;
let lastFrame: Buffer | null = null;
const forgetLastFrame = () => {
  lastPayload = null;
  lastFrame = null;
};

/** A final, unmasked binary frame (server → client) holding a copy of the payload. */
export function binaryFrame(payload: Uint8Array): Buffer {
  if (payload === lastPayload) return lastFrame!;
  const n = payload.byteLength;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = 0x82; // FIN + binary
  if (head === 2) frame[1] = n;
  else if (head === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  frame.set(payload, head);
  if (lastPayload === null) queueMicrotask(forgetLastFrame);
  lastPayload = payload;
  lastFrame = frame;
  return frame;
}

/**
 * Routes one connection's binary messages through its outbox. Anything else (text, a send with a
 * completion callback, a compressed connection) goes through ws as before, after the outbox, so
 * order holds; a close flushes the outbox first.
 */
export function batchWrites(ws: WebSocket, socket: Socket): void {
  if (ws.extensions) return; // permessage-deflate negotiated: ws must frame (and compress) itself
  const box = new Outbox(ws, socket);
  const send = ws.send;
  const close = ws.close;
  ws.send = function (this: WebSocket, data: unknown, options?: unknown, cb?: unknown) {
    const opts = typeof options === "object" && options !== null ? (options as { binary?: boolean; compress?: boolean; fin?: boolean }) : undefined;
    const plain = opts?.binary === true && opts.fin !== false && !opts.compress;
    if (plain && cb === undefined && typeof options !== "function" && data instanceof Uint8Array && ws.readyState === OPEN) {
      enqueue(box, binaryFrame(data));
      return;
    }
    box.flush();
    return (send as (...a: unknown[]) => void).call(this, data, options, cb);
  } as WebSocket["send"];
  ws.close = function (this: WebSocket, ...args: Parameters<WebSocket["close"]>) {
    box.flush();
    return close.apply(this, args);
  };
}

export class BatchingWebSocketTransport extends WebSocketTransport {
  constructor(options: TransportOptions) {
    super({ ...options, perMessageDeflate: false });
  }

  // Registered by the base constructor as the wss "connection" listener (so `this` is the wss):
  // forwards to the base implementation unchanged, after giving the connection its outbox.
  protected override async onConnection(rawClient: WebSocket & { pingCount: number }, req: IncomingMessage, upgrade?: unknown): Promise<void> {
    batchWrites(rawClient, req.socket);
    return WebSocketTransport.prototype["onConnection"].call(this, rawClient, req, upgrade as never);
  }
}
