// The WebSocket heartbeat: which connections to cut for not answering the server's pings.
// `ws` (and Colyseus' transport on it) counts missed pings and resets the count on any pong, and
// RFC 6455 lets a client send pongs unprompted: a client that never reads, so never sees a ping,
// but sends a pong every 2 s was never cut, and its outgoing bytes piled up (issue 30). Here every
// ping carries a fresh random nonce and only a pong echoing one that is still unanswered counts.
//
// A server that stalls (SIGSTOP, a long GC, a busy loop) must not cut its clients for it: when it
// runs again, the answers to its last pings are in the read buffer, but timers run before the
// sockets are read. So a ping counts as missed only when the server has run without a stall for
// the whole time since it was sent: a loop monitor notes when the event loop did not run for
// STALL_MS, and pings sent before the end of the last stall are never counted.
import { randomBytes } from "node:crypto";

/** A gap this long between two runs of the loop monitor is a stall (the loop could not read). */
export const STALL_MS = 1000;
/** How often the loop monitor runs. */
export const MONITOR_MS = 250;
/** Unanswered pings remembered per connection (late answers to them still count). */
const REMEMBERED = 4;
const NONCE_BYTES = 8;

interface SentPing {
  nonce: Buffer;
  sentAt: number;
}

/** One connection's pings that have not been answered yet, oldest first. */
export class PingState {
  readonly pending: SentPing[] = [];
}

export interface HeartbeatOptions {
  /** Pings are this far apart. */
  intervalMs: number;
  /** This many pings in a row unanswered (each with a full interval of unstalled time) cut the connection. */
  maxMissed: number;
  /** The clock (ms, monotonic); tests pass their own. */
  now?: () => number;
}

export class Heartbeat {
  private readonly now: () => number;
  private lastBeat: number;
  /** When the last stall ended (the first run of the loop after it). */
  private stallEndedAt = -Infinity;

  constructor(readonly options: HeartbeatOptions) {
    this.now = options.now ?? (() => performance.now());
    this.lastBeat = this.now();
  }

  /** The loop ran: notes a stall when it had not run for STALL_MS. Returns the time. */
  beat(): number {
    const now = this.now();
    if (now - this.lastBeat > STALL_MS) this.stallEndedAt = now;
    this.lastBeat = now;
    return now;
  }

  /** The end of the last stall (-Infinity: none yet). */
  get lastStallEnd(): number {
    return this.stallEndedAt;
  }

  /** A pong arrived: true (and everything pending forgiven) when it echoes a ping still unanswered. */
  answered(state: PingState, data: Buffer): boolean {
    if (data.length !== NONCE_BYTES) return false;
    for (const ping of state.pending) {
      if (ping.nonce.equals(data)) {
        state.pending.length = 0;
        return true;
      }
    }
    return false;
  }

  /** Pings of this connection sent since the last stall and not answered. */
  missed(state: PingState): number {
    let n = 0;
    for (const ping of state.pending) if (ping.sentAt >= this.stallEndedAt) n++;
    return n;
  }

  /**
   * One heartbeat round for one connection (call `beat()` first, once per round): undefined when
   * it is to be cut (maxMissed pings went unanswered), else the nonce of the ping to send now.
   */
  round(state: PingState, now: number): Buffer | undefined {
    if (this.missed(state) >= this.options.maxMissed) return undefined;
    const nonce = randomBytes(NONCE_BYTES);
    state.pending.push({ nonce, sentAt: now });
    if (state.pending.length > REMEMBERED) state.pending.shift();
    return nonce;
  }
}
