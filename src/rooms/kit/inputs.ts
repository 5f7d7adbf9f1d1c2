// Player inputs of a real-time room, applied in the fixed step instead of on arrival: a handler
// validates an input and queues it here; the room's step drains the queue in arrival order, applies
// each input to the simulation and collects what it causes in its tick outbox (kit/outbox.ts). So
// the outcome of every input of a step leaves together, in one write per client per tick.
// Kept in parallel arrays that are reused from step to step: queuing a move allocates nothing.

export class InputQueue<C, K extends string, E = undefined> {
  private senders: C[] = [];
  private kinds: K[] = [];
  private as: number[] = [];
  private bs: number[] = [];
  private extras: (E | undefined)[] = [];
  private size = 0;

  /** Inputs waiting for the next step. */
  get length(): number {
    return this.size;
  }

  /** Queues one input: its sender, its kind and two numbers (a move's x, y; a shot's dx, dy). */
  push(sender: C, kind: K, a: number, b: number, extra?: E): void {
    const i = this.size++;
    this.senders[i] = sender;
    this.kinds[i] = kind;
    this.as[i] = a;
    this.bs[i] = b;
    this.extras[i] = extra;
  }

  /**
   * Hands every queued input to `apply`, in arrival order, then empties the queue. Inputs queued
   * while it runs (an apply that queues more) wait for the next drain. Returns how many it applied.
   */
  drain(apply: (sender: C, kind: K, a: number, b: number, extra: E | undefined) => void): number {
    const n = this.size;
    try {
      for (let i = 0; i < n; i++) apply(this.senders[i], this.kinds[i], this.as[i], this.bs[i], this.extras[i]);
    } finally {
      this.keepFrom(n);
    }
    return n;
  }

  /** Drops the waiting inputs of one sender (it left, or its connection was replaced). */
  forget(sender: C): void {
    let kept = 0;
    for (let i = 0; i < this.size; i++) if (this.senders[i] !== sender) this.move(i, kept++);
    this.clear(kept);
  }

  /** Keeps the inputs from index `first` on (queued during a drain), moved to the front. */
  private keepFrom(first: number): void {
    let kept = 0;
    for (let i = first; i < this.size; i++) this.move(i, kept++);
    this.clear(kept);
  }

  private move(from: number, to: number): void {
    if (from === to) return;
    this.senders[to] = this.senders[from];
    this.kinds[to] = this.kinds[from];
    this.as[to] = this.as[from];
    this.bs[to] = this.bs[from];
    this.extras[to] = this.extras[from];
  }

  /** Shrinks the queue to its first `kept` inputs; the slots behind let go of what they held. */
  private clear(kept: number): void {
    for (let i = kept; i < this.size; i++) {
      this.senders[i] = undefined as C;
      this.extras[i] = undefined;
    }
    this.size = kept;
  }
}
