// What a scenario counts while it runs. The harness opens a measured window after the warm-up and
// closes it after --duration; only inputs sent inside the window count, and a delivery counts (for
// latency and loss) when the input it answers was sent inside the window, even if it arrives during
// the drain that follows. With --windows N the next window opens the moment one closes (the load
// never pauses): deliveries of the closed window's inputs keep counting for it while the next runs.
import { Samples } from "./stats.js";

/** One measured window's counts. */
export class Window {
  /** performance.now() of the window's start and end (end is +Infinity while it is open). */
  start = Infinity;
  end = Infinity;
  inputs = 0;
  messagesIn = 0;
  messagesOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  expected = 0;
  received = 0;
  errors = 0;
  readonly errorSamples = new Map<string, number>();
  readonly latencies = new Samples();

  holds(sentAt: number): boolean {
    return sentAt >= this.start && sentAt < this.end;
  }
}

export class Recorder {
  /** The window being measured (or the last one, once closed). */
  window = new Window();
  /** The window before it, still collecting late deliveries of its inputs. */
  private previous: Window | null = null;
  /** Whether this scenario measures delivery (peer latency and loss); request/response scenarios use roundTrip(). */
  measuresDelivery = false;

  /** performance.now() as a plain number; scenarios stamp inputs with it. */
  now(): number {
    return performance.now();
  }

  /** Opens a new window; returns the one before (closed, still collecting its late deliveries). */
  open(): Window {
    const before = this.window;
    this.previous = before.start === Infinity ? null : before;
    this.window = new Window();
    this.window.start = performance.now();
    return before;
  }

  close(): void {
    this.window.end = performance.now();
  }

  get isOpen(): boolean {
    return this.window.start !== Infinity && this.window.end === Infinity;
  }

  // Counters of the current window, for the harness.
  get inputs(): number {
    return this.window.inputs;
  }
  get expected(): number {
    return this.window.expected;
  }
  get received(): number {
    return this.window.received;
  }

  /** The window an input stamped `sentAt` belongs to, if any. */
  private windowOf(sentAt: number): Window | null {
    if (this.window.holds(sentAt)) return this.window;
    if (this.previous?.holds(sentAt)) return this.previous;
    return null;
  }

  inWindow(sentAt: number): boolean {
    return this.window.holds(sentAt);
  }

  /**
   * An input (a move, a request) left a client at `sentAt`; `deliveries` is how many updates it
   * should cause at the other clients (0 for a request/response).
   */
  input(sentAt: number, deliveries = 0): void {
    const w = this.windowOf(sentAt);
    if (!w) return;
    w.inputs++;
    if (deliveries > 0) {
      this.measuresDelivery = true;
      w.expected += deliveries;
    }
  }

  /** Deliveries expected for an input that the server turned out to ignore (e.g. its sender had died). */
  cancel(sentAt: number, deliveries: number): void {
    const w = this.windowOf(sentAt);
    if (w) w.expected -= deliveries;
  }

  /** An update caused by the input sent at `sentAt` reached another client now. */
  delivered(sentAt: number, at = performance.now()): void {
    const w = this.windowOf(sentAt);
    if (!w) return;
    w.received++;
    w.latencies.push(at - sentAt);
  }

  /** A request sent at `sentAt` was answered now (HTTP): latency, no delivery accounting. */
  answered(sentAt: number, at = performance.now()): void {
    this.windowOf(sentAt)?.latencies.push(at - sentAt);
  }

  /** Any message a client sent (inputs and everything else), and its size on the wire. */
  sent(bytes: number): void {
    if (!this.isOpen) return;
    this.window.messagesIn++;
    this.window.bytesOut += bytes;
  }

  /** Any message a client received, and its size on the wire. */
  got(messages: number, bytes: number): void {
    if (!this.isOpen) return;
    this.window.messagesOut += messages;
    this.window.bytesIn += bytes;
  }

  error(what: string): void {
    if (!this.isOpen) return;
    this.window.errors++;
    this.window.errorSamples.set(what, (this.window.errorSamples.get(what) ?? 0) + 1);
  }
}
