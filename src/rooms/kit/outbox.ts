// What one fixed step of a real-time room tells its clients, held until the step ends and then
// handed to every client at once, right before the state patch of the same step. The transport
// (src/net/transport.ts) writes all frames one connection got in one event-loop turn with one socket
// write, so a client gets everything of a tick (its peers' moves, its own position, events, the
// patch) in at most one write per tick, instead of one write per input that arrived.
// The messages stay the protocol's messages, one WebSocket frame each, in the order they were
// queued; each is encoded once however many clients get it. A "mirror" message repeats what the
// synchronized state already carries (a position): clients that read state only are left out.
import { ClientState, getMessageBytes, Protocol } from "@colyseus/core";
import type WebSocket from "ws";
import { countMessageOut } from "../../ops/metrics.js";
import { enqueueFrame } from "../../net/transport.js";

/** The part of a Colyseus client the outbox uses. */
export interface Recipient {
  readonly sessionId: string;
  enqueueRaw(bytes: Uint8Array): void;
  /** A Colyseus client's state and connection: a joined client's frames go straight to its connection's outbox. */
  readonly state?: number;
  readonly ref?: unknown;
}

/**
 * What `enqueueRaw` does for a joined client on a batched connection, without the trip through
 * Colyseus' client and ws' send (a boss move reaches ten recipients; profiled at 800 players that
 * trip was 4 % of the server's busy time). Anything else (still joining, a compressed connection,
 * a test's recipient) takes `enqueueRaw`.
 */
function deliver(r: Recipient, bytes: Uint8Array): void {
  if (r.state !== ClientState.JOINED || !enqueueFrame(r.ref as WebSocket, bytes)) r.enqueueRaw(bytes);
}

export interface OutboxOptions<R extends Recipient> {
  /** Message type + payload → the bytes of one ROOM_DATA message (default: Colyseus' encoding). */
  encode?: (type: string, payload: unknown) => Uint8Array;
  /** Clients that read state only: they get no mirror messages. */
  readsStateOnly?: (recipient: R) => boolean;
  /** Counts what was sent (default: the messages-out metric of this room type). */
  counted?: (messages: number) => void;
}

const encodeMessage = (type: string, payload: unknown): Uint8Array => getMessageBytes.raw(Protocol.ROOM_DATA, type, payload);

const TO_ALL = 0;
const TO_ONE = 1;
const TO_OTHERS = 2;
type Audience = typeof TO_ALL | typeof TO_ONE | typeof TO_OTHERS;

/** A tick's messages, typed by the room's outbound catalogue (message name → payload). */
export class TickOutbox<R extends Recipient, O extends object> {
  // One entry per queued message, in parallel arrays reused from tick to tick.
  private types: string[] = [];
  private payloads: unknown[] = [];
  private audiences: Audience[] = [];
  /** TO_ONE: the recipient's session; TO_OTHERS: the session left out (a reconnection keeps it). */
  private subjects: string[] = [];
  private mirrors: boolean[] = [];
  /** Per recipient of the current flush: reads state only (computed once a mirror is queued). */
  private readonly stateOnly: boolean[] = [];
  private size = 0;
  private readonly encode: (type: string, payload: unknown) => Uint8Array;
  private readonly readsStateOnly: (recipient: R) => boolean;
  private readonly counted: (messages: number) => void;

  constructor(roomName: string, options: OutboxOptions<R> = {}) {
    this.encode = options.encode ?? encodeMessage;
    this.readsStateOnly = options.readsStateOnly ?? (() => false);
    this.counted = options.counted ?? ((n) => countMessageOut(roomName, n));
  }

  /** Messages waiting for the end of the tick. */
  get length(): number {
    return this.size;
  }

  /** To every client. */
  toAll<K extends keyof O & string>(type: K, payload: O[K]): void {
    this.queue(type, payload, TO_ALL, "", false);
  }

  /** To one client. `mirror`: it repeats the state, so a client that reads state only skips it. */
  to<K extends keyof O & string>(recipient: R, type: K, payload: O[K], mirror = false): void {
    this.queue(type, payload, TO_ONE, recipient.sessionId, mirror);
  }

  /** To every client but `sender` (e.g. a player's move, told to its peers). */
  toOthers<K extends keyof O & string>(sender: R, type: K, payload: O[K], mirror = false): void {
    this.queue(type, payload, TO_OTHERS, sender.sessionId, mirror);
  }

  /**
   * Sends the queued messages to `recipients` (the room's clients), each client's in queue order,
   * and empties the outbox. A message for one session no longer among them is dropped; a session
   * that reconnected gets it on its new connection. Message by message, so the transport frames
   * each one once for all its recipients.
   */
  flush(recipients: ArrayLike<R>): void {
    const n = this.size;
    if (n === 0) return;
    const { types, payloads, audiences, subjects, mirrors } = this;
    const count = recipients.length;
    let stateOnly: boolean[] | undefined;
    let sent = 0;
    for (let i = 0; i < n; i++) {
      const bytes = this.encode(types[i], payloads[i]);
      payloads[i] = undefined;
      const audience = audiences[i];
      const subject = subjects[i];
      if (mirrors[i] && !stateOnly) {
        stateOnly = this.stateOnly;
        for (let c = 0; c < count; c++) stateOnly[c] = this.readsStateOnly(recipients[c]);
      }
      for (let c = 0; c < count; c++) {
        const r = recipients[c];
        if (audience === TO_ONE ? subject !== r.sessionId : audience === TO_OTHERS && subject === r.sessionId) continue;
        if (mirrors[i] && stateOnly![c]) continue;
        deliver(r, bytes);
        sent++;
      }
    }
    this.size = 0;
    if (sent) this.counted(sent);
  }

  /** Drops everything queued (the room is closing). */
  clear(): void {
    for (let i = 0; i < this.size; i++) this.payloads[i] = undefined;
    this.size = 0;
  }

  private queue(type: string, payload: unknown, audience: Audience, subject: string, mirror: boolean): void {
    const i = this.size++;
    this.types[i] = type;
    this.payloads[i] = payload;
    this.audiences[i] = audience;
    this.subjects[i] = subject;
    this.mirrors[i] = mirror;
  }
}
