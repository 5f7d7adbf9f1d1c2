// A client's inbound frame budget, measured on its SENDING rate rather than on when the server got
// round to reading its frames. A plain cap on frames per second of arrival cuts an honest client
// whenever frames arrive together: after the server itself stood still (a long GC, SIGSTOP, a
// frozen VM: every client's frames of the pause are read in one go) or after the client's own link
// was dark (TCP delivers the held inputs at once). Both look the same from here: a silence in what
// the server read from that client. So:
// - frames spend tokens that refill at `ratePerSecond` up to `burst` (a token bucket on a monotonic
//   clock), which cuts a true flood within `burst / (flood rate − ratePerSecond)`;
// - a read that comes after a silence longer than SILENCE_MS (none read from this client: it did
//   not send, or the server could not read) adds a one-off credit of what the client could honestly
//   have sent meanwhile, `ratePerSecond × silence` (at most MAX_SILENCE_MS of it). The credit is
//   spent first and lapses CREDIT_KEEP_MS after the silence ended (TCP's catch-up takes a few round
//   trips), so it cannot be hoarded for a flood later.
// Over any window a client therefore delivers at most ratePerSecond × (window + MAX_SILENCE_MS) +
// burst frames: the server's own pauses and a client's outages are absorbed, a flood is not.

/** A gap longer than this between two reads from a client is a silence (an honest client sends every 33 ms). */
export const SILENCE_MS = 1000;
/**
 * The longest silence credited: covers a 30 s server stall, and more than any client outage a seat
 * outlives (the heartbeat cuts a dark client within 6–9 s; it then reconnects on a new connection).
 */
export const MAX_SILENCE_MS = 30_000;
/** How long a silence's credit stays usable once reading resumed. */
export const CREDIT_KEEP_MS = 2000;

export interface FrameBudgetLimit {
  ratePerSecond: number;
  burst: number;
}

export class FrameBudget {
  private tokens: number;
  private last: number;
  private credit = 0;
  private creditUntil = -Infinity;
  /** The longest silence credited so far (for the log line of a cut). */
  lastSilenceMs = 0;

  constructor(
    readonly limit: FrameBudgetLimit,
    private readonly now: () => number,
  ) {
    this.tokens = limit.burst;
    this.last = now();
  }

  /** Spends one frame; false when the client is over its budget (a flood). */
  take(): boolean {
    const now = this.now();
    const gap = Math.max(0, now - this.last);
    this.last = now;
    const { ratePerSecond, burst } = this.limit;
    this.tokens = Math.min(burst, this.tokens + (gap / 1000) * ratePerSecond);
    if (gap > SILENCE_MS) {
      this.lastSilenceMs = gap;
      this.credit = (Math.min(gap, MAX_SILENCE_MS) / 1000) * ratePerSecond;
      this.creditUntil = now + CREDIT_KEEP_MS;
    }
    if (this.credit >= 1 && now <= this.creditUntil) {
      this.credit -= 1;
      return true;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
