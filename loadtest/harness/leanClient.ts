// The lean load client: joins a room the way the SDK does (the SDK's HTTP client asks the
// matchmaker for a seat), then speaks the WebSocket and Colyseus framing itself on a plain TCP
// socket. The hot path parses frames in place and hands a scenario only the message types it asks
// for; state patches and everything else are counted, never decoded. A full SDK client decodes every
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

const packr = new Packr({ useRecords: false });

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
}

/** Decodes a msgpack payload a handler received (the one allocation a scenario opts into). */
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
  private readonly handlers: Map<string, MessageHandler>;

  private constructor(
    reservation: SeatReservation,
    private readonly opts: JoinOptions,
  ) {
    this.sessionId = reservation.sessionId;
    this.roomId = reservation.roomId;
    this.handlers = new Map(Object.entries(opts.on ?? {}));
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

  /** Leaves the room: a consented WebSocket close. */
  async leave(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.socket.once("close", () => resolve());
      this.writeControl(0x8, Buffer.from([0x03, 0xe8])); // 1000
      this.socket.end();
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
      } else if (opcode === 0x9) this.writeControl(0xa, buf.subarray(start, end)); // ping → pong
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
      const type = buf.toString("latin1", typeStart, typeStart + typeLength);
      const handler = this.handlers.get(type);
      if (handler) handler(buf, typeStart + typeLength, end);
      else if (type === "error" && code === ROOM_DATA) {
        const err = decode<{ code?: string; type?: string }>(buf, typeStart + typeLength, end);
        this.opts.recorder.error(`error message: ${err.code}${err.type ? ` (${err.type})` : ""}`);
      }
    } else if (code === JOIN_ROOM) {
      this.socket.write(this.maskedFrame(0x2, Buffer.from([JOIN_ROOM]))); // acknowledge, as the SDK does
      this.joined.resolve();
    } else if (code === ERROR) {
      const [errorCode, message] = unpackMultiple(buf.subarray(start + 1, end)) as [number, string];
      this.fail(`room error ${errorCode}: ${message}`);
    } else if (code === LEAVE_ROOM) {
      void this.leave();
    }
  }

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
