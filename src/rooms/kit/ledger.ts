// What an account's seat has already written to the database, so each write (a checkpoint, the
// leave, the end of a match) carries only the increase since the previous one, and a failed write
// is retried by the next. Pure: no I/O; the room does the writing.

export type Counts<K extends string> = Record<K, number>;

/** The increases of one write, and whether it carries the seat's once-only final record. */
export interface LedgerEntry<K extends string> {
  delta: Counts<K>;
  final: boolean;
}

export class Ledger<K extends string> {
  private saved: Counts<K>;
  private finalWritten = false;

  constructor(private readonly keys: readonly K[]) {
    this.saved = Object.fromEntries(keys.map((k) => [k, 0])) as Counts<K>;
  }

  /** Whether `current` differs from what was written. */
  hasUnsaved(current: Counts<K>): boolean {
    return this.keys.some((k) => current[k] !== this.saved[k]);
  }

  /**
   * The increases since the last write, marked as written. With `final`, the entry also claims
   * the seat's once-only final record (e.g. one more match in the lifetime stats), unless an
   * earlier write already carried it.
   */
  take(current: Counts<K>, opts: { final?: boolean } = {}): LedgerEntry<K> {
    const delta = Object.fromEntries(this.keys.map((k) => [k, current[k] - this.saved[k]])) as Counts<K>;
    this.saved = { ...current };
    const final = opts.final === true && !this.finalWritten;
    if (final) this.finalWritten = true;
    return { delta, final };
  }

  /** The write of `entry` failed: its increases (and final record) count as unwritten again. */
  rollback(entry: LedgerEntry<K>): void {
    for (const k of this.keys) this.saved[k] -= entry.delta[k];
    if (entry.final) this.finalWritten = false;
  }

  get written(): Readonly<Counts<K>> {
    return this.saved;
  }

  get finalRecorded(): boolean {
    return this.finalWritten;
  }
}
