// The lean load client: joins a room the way the SDK does (the SDK's HTTP client asks the
// matchmaker for a seat), then speaks the WebSocket and Colyseus framing itself on a plain TCP
// socket. The hot path parses frames in place, finds a message's type without making a string of it,
// and hands a scenario only the message types it asks for; state patches and everything else are
// counted, never decoded. A scenario reads the fields it counts in place (field, numberAt, strHash):
// receiving a message allocates nothing. A full SDK client decodes every
// patch into a schema tree and every message into an object, and costs more CPU per simulated
// player than the server does, so with it the client, not the server, would be the limit.
import { connect, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { Client } from "@colyseus/sdk";
import { Packr, unpack, unpackMultiple } from "msgpackr";
import type { Recorder } from "./recorder.js";

/** Colyseus protocol codes (@colyseus/shared-types Protocol); bits 5–7 are modifiers. */
const JOIN_ROOM = 10, ERROR = 11, LEAVE_ROOM = 12, ROOM_DATA = 13, ROOM_DATA_BYTES = 17;
const CODE_MASK = 0x1f;
const LEAVE_FRAME = Buffer.from([LEAVE_ROOM]);

const packr = new Packr({ useRecords: false });
const ERROR_TYPE = "error";

export interface SeatReservation {
  name: string;
  sessionId: string;
  roomId: string;
  processId?: string;
  publicAddress?: string;
}

/**
 * One inbound room message a scenario subscribed to: its payload lies at [start, end), msgpack for
 * `send()` messages, raw bytes for `sendBytes()` ones.
 */
export type MessageHandler = (frame: Buffer, start: number, end: number) => void;

export interface JoinOptions {
  /** http(s)://host:port of the server (the matchmaker). */
  base: string;
  /** "create", "join", "joinOrCreate" (name = room type) or "joinById" (name = room id). */
  method: "create" | "join" | "joinOrCreate" | "joinById";
  name: string;
  options?: Record<string, unknown>;
  /** Extra headers for the matchmaking request and the WebSocket upgrade (e.g. a session cookie). */
  headers?: Record<string, string>;
  recorder: Recorder;
  /** Message type → handler; types not listed are counted and skipped. */
  on?: Record<string, MessageHandler>;
  /** Called when the server closes this client's connection or the socket fails. */
  onClose?: (reason: string) => void;
  /** Called on every message frame: its Colyseus protocol code and its length (payload bytes). */
  onFrame?: (code: number, bytes: number) => void;
  /** Called on every ping of the server (answered before). */
  onPing?: () => void;
  /** false: never acknowledge the server's JOIN_ROOM (a hostile client); join() resolves when it arrives. */
  acknowledge?: boolean;
}

/** FNV-1a over bytes: names and session ids are looked up by it, without making strings. */
export function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** hashBytes of a string's UTF-8 bytes. */
export function hashString(s: string): number {
  const b = Buffer.from(s, "utf8");
  return hashBytes(b, 0, b.length);
}

/** Where the msgpack value at `at` ends, for the scalars a flat map holds; -1 for anything else. */
function skipScalar(buf: Buffer, at: number): number {
  const b = buf[at];
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return at + 1; // fixint, nil, bool
  if ((b & 0xe0) === 0xa0) return at + 1 + (b & 0x1f); // fixstr
  switch (b) {
    case 0xd9: return at + 2 + buf[at + 1];
    case 0xda: return at + 3 + buf.readUInt16BE(at + 1);
    case 0xcc: case 0xd0: return at + 2;
    case 0xcd: case 0xd1: return at + 3;
    case 0xca: case 0xce: case 0xd2: return at + 5;
    case 0xcb: case 0xcf: case 0xd3: return at + 9;
  }
  return -1;
}

/**
 * Where the value of `key` starts in the flat msgpack map at [start, end) (a payload like
 * `{ sid, x, y }`), or -1: no such key, or a nested value before it. Keys are compared in place.
 */
export function field(buf: Buffer, start: number, end: number, key: string): number {
  // A fixmap, or the map16 msgpackr writes by default (its size is not known up front).
  const head = buf[start];
  let n: number;
  let at: number;
  if ((head & 0xf0) === 0x80) ((n = head & 0x0f), (at = start + 1));
  else if (head === 0xde) ((n = buf.readUInt16BE(start + 1)), (at = start + 3));
  else return -1;
  for (; n > 0 && at < end; n--) {
    const k = buf[at];
    if ((k & 0xe0) !== 0xa0) return -1; // keys are short strings
    const len = k & 0x1f;
    let same = len === key.length;
    for (let i = 0; same && i < len; i++) same = buf[at + 1 + i] === key.charCodeAt(i);
    at += 1 + len;
    if (same) return at;
    at = skipScalar(buf, at);
    if (at < 0) return -1;
  }
  return -1;
}

/** The msgpack number at `at` (NaN if it is none). */
export function numberAt(buf: Buffer, at: number): number {
  if (at < 0) return Number.NaN;
  const b = buf[at];
  if (b <= 0x7f) return b;
  if (b >= 0xe0) return b - 0x100;
  switch (b) {
    case 0xcb: return buf.readDoubleBE(at + 1);
    case 0xca: return buf.readFloatBE(at + 1);
    case 0xcc: return buf[at + 1];
    case 0xcd: return buf.readUInt16BE(at + 1);
    case 0xce: return buf.readUInt32BE(at + 1);
    case 0xd0: return buf.readInt8(at + 1);
    case 0xd1: return buf.readInt16BE(at + 1);
    case 0xd2: return buf.readInt32BE(at + 1);
  }
  return Number.NaN;
}

/** hashBytes of the msgpack string at `at` (a session id), or -1 if it is none. */
export function strHash(buf: Buffer, at: number): number {
  if (at < 0) return -1;
  const b = buf[at];
  if ((b & 0xe0) === 0xa0) return hashBytes(buf, at + 1, at + 1 + (b & 0x1f));
  if (b === 0xd9) return hashBytes(buf, at + 2, at + 2 + buf[at + 1]);
  return -1;
}

/** Decodes a msgpack payload a handler received (for the rare messages a scenario reads whole). */
export function decode<T>(frame: Buffer, start: number, end: number): T {
  return unpack(frame.subarray(start, end)) as T;
}

/** The bytes that start every ROOM_DATA message of one type: [13, msgpack str(type)]. */
export function messagePrefix(type: string): Buffer {
  const name = Buffer.from(type, "utf8");
  const head = name.length < 32 ? [0xa0 | name.length] : [0xd9, name.length];
  return Buffer.concat([Buffer.from([ROOM_DATA, ...head]), name]);
}

const sdkClients = new Map<string, Client>();

export class LeanRoom {
  readonly sessionId: string;
  readonly roomId: string;
  private socket!: Socket;
  private pending: Buffer | null = null;
  private fragments: Buffer[] | null = null;
  private readonly mask = randomBytes(4);
  private joined!: { resolve: () => void; reject: (e: Error) => void };
  private closed = false;
  /** hashString(type) → the type's UTF-8 bytes and its handler ("error" always has one). */
  private readonly handlers = new Map<number, { name: Buffer; handler: MessageHandler }>();

  private constructor(
    reservation: SeatReservation,
    private readonly opts: JoinOptions,
  ) {
    this.sessionId = reservation.sessionId;
    this.roomId = reservation.roomId;
    const on: Record<string, MessageHandler> = { [ERROR_TYPE]: this.onError, ...opts.on };
    for (const [type, handler] of Object.entries(on)) {
      const key = hashString(type);
      if (this.handlers.has(key)) throw new Error(`message types "${type}" and "${this.handlers.get(key)!.name}" share a hash`);
      this.handlers.set(key, { name: Buffer.from(type, "utf8"), handler });
    }
  }

  /** Reserves a seat through the SDK's HTTP client and connects; resolves once the room admitted us. */
  static async join(opts: JoinOptions): Promise<LeanRoom> {
    let sdk = sdkClients.get(opts.base);
    if (!sdk) sdkClients.set(opts.base, (sdk = new Client(opts.base)));
    const res = await sdk.http.post(`/matchmake/${opts.method}/${opts.name}` as never, {
      headers: { Accept: "application/json", "Content-Type": "application/json", ...opts.headers },
      body: opts.options ?? {},
    } as never);
    const reservation = (res as { data: SeatReservation }).data;
    const room = new LeanRoom(reservation, opts);
    await room.connect(reservation);
    return room;
  }

  /** Sends one room message (msgpack payload) as a single masked WebSocket frame. */
  send(prefix: Buffer, payload?: unknown): void {
    if (this.closed) return;
    const body = payload === undefined ? null : packr.pack(payload);
    const length = prefix.length + (body ? body.length : 0);
    const header = length < 126 ? 2 : 4;
    const frame = Buffer.allocUnsafe(header + 4 + length);
    frame[0] = 0x82; // FIN + binary
    if (length < 126) frame[1] = 0x80 | length;
    else {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    }
    const m = this.mask;
    frame[header] = m[0];
    frame[header + 1] = m[1];
    frame[header + 2] = m[2];
    frame[header + 3] = m[3];
    let o = header + 4;
    for (let i = 0; i < prefix.length; i++, o++) frame[o] = prefix[i] ^ m[(o - header) & 3];
    if (body) for (let i = 0; i < body.length; i++, o++) frame[o] = body[i] ^ m[(o - header) & 3];
    this.socket.write(frame);
    this.opts.recorder.sent(frame.length);
  }

  /** Stops reading the socket (the kernel's buffers fill, then the server's); writing goes on. */
  stopReading(): void {
    this.socket.pause();
  }

  /** An unsolicited pong (RFC 6455 allows them): it answers no ping. */
  pong(payload: Buffer): void {
    if (!this.closed) this.writeControl(0xa, payload);
  }

  /** The connection is gone (closed by either side, or failed). */
  get isClosed(): boolean {
    return this.closed || this.socket.destroyed;
  }

  /**
   * Leaves the room with a WebSocket close (1000). `consented`: as the SDK's `leave()`, asks the room
   * first (LEAVE_ROOM), so the seat is freed at once instead of held for a reconnection.
   */
  async leave(consented = false): Promise<void> {
    if (this.closed) return;
    if (consented) this.send(LEAVE_FRAME);
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.socket.once("close", () => resolve());
      if (!consented) this.writeControl(0x8, Buffer.from([0x03, 0xe8])); // 1000
      if (!consented) this.socket.end(); // consented: the room closes the connection
      setTimeout(() => {
        this.socket.destroy();
        resolve();
      }, 2000).unref();
    });
  }

  private connect(r: SeatReservation): Promise<void> {
    const base = new URL(this.opts.base);
    const address = r.publicAddress ? new URL(`${base.protocol}//${r.publicAddress}`) : base;
    const prefix = address.pathname.replace(/\/$/, "");
    const path = `${prefix}/${r.processId}/${r.roomId}?sessionId=${encodeURIComponent(r.sessionId)}`;
    const port = Number(address.port || (address.protocol === "https:" ? 443 : 80));
    if (address.protocol === "https:") throw new Error("the lean client speaks plain ws:// only (use --url http://…)");
    return new Promise((resolve, reject) => {
      this.joined = { resolve, reject };
      const socket = (this.socket = connect({ host: address.hostname, port }));
      socket.setNoDelay(true);
      socket.on("connect", () => {
        const headers = Object.entries(this.opts.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join("");
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: ${address.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n${headers}\r\n`,
        );
      });
      let upgraded = false;
      socket.on("data", (chunk: Buffer) => {
        if (!upgraded) {
          const all = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
          const end = all.indexOf("\r\n\r\n");
          if (end < 0) {
            this.pending = all;
            return;
          }
          this.pending = null;
          const status = all.toString("latin1", 0, all.indexOf("\r\n"));
          if (!status.includes(" 101 ")) {
            this.fail(`upgrade refused: ${status}`);
            return;
          }
          upgraded = true;
          chunk = all.subarray(end + 4);
          if (chunk.length === 0) return;
        }
        this.onData(chunk);
      });
      socket.on("error", (err) => this.fail(`socket error: ${err.message}`));
      socket.on("close", () => this.fail("connection closed"));
    });
  }

  private fail(reason: string): void {
    const wasClosed = this.closed;
    this.closed = true;
    this.socket.destroy();
    this.joined.reject(new Error(reason));
    if (!wasClosed) this.opts.onClose?.(reason);
  }

  /** Parses every complete WebSocket frame of the chunk in place; keeps a partial one for later. */
  private onData(chunk: Buffer): void {
    let buf = chunk;
    if (this.pending) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    const recorder = this.opts.recorder;
    let offset = 0;
    let messages = 0;
    const total = buf.length;
    while (total - offset >= 2) {
      const b0 = buf[offset];
      let length = buf[offset + 1] & 0x7f;
      let header = 2;
      if (length === 126) {
        if (total - offset < 4) break;
        length = buf.readUInt16BE(offset + 2);
        header = 4;
      } else if (length === 127) {
        if (total - offset < 10) break;
        length = Number(buf.readBigUInt64BE(offset + 2));
        header = 10;
      }
      if (total - offset < header + length) break;
      const start = offset + header;
      const end = start + length;
      offset = end;
      const opcode = b0 & 0x0f;
      const fin = (b0 & 0x80) !== 0;
      if (opcode === 0x2 || opcode === 0x1) {
        if (fin) {
          messages++;
          this.onMessage(buf, start, end);
        } else this.fragments = [Buffer.from(buf.subarray(start, end))];
      } else if (opcode === 0x0 && this.fragments) {
        this.fragments.push(Buffer.from(buf.subarray(start, end)));
        if (fin) {
          const whole = Buffer.concat(this.fragments);
          this.fragments = null;
          messages++;
          this.onMessage(whole, 0, whole.length);
        }
      } else if (opcode === 0x9) {
        this.writeControl(0xa, buf.subarray(start, end)); // ping → pong
        this.opts.onPing?.();
      }
      else if (opcode === 0x8) {
        const code = length >= 2 ? buf.readUInt16BE(start) : 1005;
        this.fail(`closed by the server (${code})`);
        return;
      }
    }
    if (offset < total) this.pending = buf.subarray(offset);
    recorder.got(messages, chunk.length);
  }

  private onMessage(buf: Buffer, start: number, end: number): void {
    const code = buf[start] & CODE_MASK;
    this.opts.onFrame?.(code, end - start);
    if (code === ROOM_DATA || code === ROOM_DATA_BYTES) {
      // type: a msgpack str (fixstr or str8); numeric types are not used by this project
      const head = buf[start + 1];
      let typeStart: number, typeLength: number;
      if ((head & 0xe0) === 0xa0) {
        typeStart = start + 2;
        typeLength = head & 0x1f;
      } else if (head === 0xd9) {
        typeStart = start + 3;
        typeLength = buf[start + 2];
      } else return;
      const entry = this.handlers.get(hashBytes(buf, typeStart, typeStart + typeLength));
      if (entry && entry.name.length === typeLength && buf.compare(entry.name, 0, typeLength, typeStart, typeStart + typeLength) === 0) {
        entry.handler(buf, typeStart + typeLength, end);
      }
    } else if (code === JOIN_ROOM) {
      if (this.opts.acknowledge !== false) this.socket.write(this.maskedFrame(0x2, Buffer.from([JOIN_ROOM]))); // acknowledge, as the SDK does
      this.joined.resolve();
    } else if (code === ERROR) {
      const [errorCode, message] = unpackMultiple(buf.subarray(start + 1, end)) as [number, string];
      this.fail(`room error ${errorCode}: ${message}`);
    } else if (code === LEAVE_ROOM) {
      void this.leave();
    }
  }

  /** An `error` message the scenario does not handle itself: counted as an error. */
  private readonly onError: MessageHandler = (buf, start, end) => {
    const err = decode<{ code?: string; type?: string }>(buf, start, end);
    this.opts.recorder.error(`error message: ${err.code}${err.type ? ` (${err.type})` : ""}`);
  };

  private writeControl(opcode: number, payload: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(this.maskedFrame(opcode, payload));
  }

  private maskedFrame(opcode: number, payload: Buffer): Buffer {
    const frame = Buffer.allocUnsafe(6 + payload.length);
    frame[0] = 0x80 | opcode;
    frame[1] = 0x80 | payload.length; // control frames and acks are < 126 bytes
    this.mask.copy(frame, 2);
    for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ this.mask[i & 3];
    return frame;
  }
}
