// What a scenario counts while it runs. The harness opens a measured window after the warm-up and
// closes it after --duration; only inputs sent inside the window count, and a delivery counts (for
// latency and loss) when the input it answers was sent inside the window, even if it arrives during
// the drain that follows.
import { Samples } from "./stats.js";

export class Recorder {
  /** performance.now() of the window's start and end (end is +Infinity while it is open). */
  private start = Infinity;
  private end = Infinity;

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
  /** Whether this scenario measures delivery (peer latency and loss); request/response scenarios use roundTrip(). */
  measuresDelivery = false;

  /** performance.now() as a plain number; scenarios stamp inputs with it. */
  now(): number {
    return performance.now();
  }

  open(): void {
    this.start = performance.now();
    this.end = Infinity;
    this.inputs = this.messagesIn = this.messagesOut = this.bytesIn = this.bytesOut = 0;
    this.expected = this.received = this.errors = 0;
    this.errorSamples.clear();
    this.latencies.clear();
  }

  close(): void {
    this.end = performance.now();
  }

  get isOpen(): boolean {
    return this.start !== Infinity && this.end === Infinity;
  }

  inWindow(sentAt: number): boolean {
    return sentAt >= this.start && sentAt < this.end;
  }

  /**
   * An input (a move, a request) left a client at `sentAt`; `deliveries` is how many updates it
   * should cause at the other clients (0 for a request/response).
   */
  input(sentAt: number, deliveries = 0): void {
    if (!this.inWindow(sentAt)) return;
    this.inputs++;
    if (deliveries > 0) {
      this.measuresDelivery = true;
      this.expected += deliveries;
    }
  }

  /** Deliveries expected for an input that the server turned out to ignore (e.g. its sender had died). */
  cancel(sentAt: number, deliveries: number): void {
    if (this.inWindow(sentAt)) this.expected -= deliveries;
  }

  /** An update caused by the input sent at `sentAt` reached another client now. */
  delivered(sentAt: number, at = performance.now()): void {
    if (!this.inWindow(sentAt)) return;
    this.received++;
    this.latencies.push(at - sentAt);
  }

  /** A request sent at `sentAt` was answered now (HTTP): latency, no delivery accounting. */
  answered(sentAt: number, at = performance.now()): void {
    if (!this.inWindow(sentAt)) return;
    this.latencies.push(at - sentAt);
  }

  /** Any message a client sent (inputs and everything else), and its size on the wire. */
  sent(bytes: number): void {
    if (!this.isOpen) return;
    this.messagesIn++;
    this.bytesOut += bytes;
  }

  /** Any message a client received, and its size on the wire. */
  got(messages: number, bytes: number): void {
    if (!this.isOpen) return;
    this.messagesOut += messages;
    this.bytesIn += bytes;
  }

  error(what: string): void {
    if (!this.isOpen) return;
    this.errors++;
    this.errorSamples.set(what, (this.errorSamples.get(what) ?? 0) + 1);
  }
}
