// A uniform grid of snake heads, rebuilt every tick, so a bullet tests only the heads in the few
// cells around its path instead of every head (all-pairs would be 240 × 32 tests per tick).
// Allocation-free after construction: linked lists in typed arrays.

export class HeadGrid {
  readonly cols: number;
  readonly rows: number;
  private readonly cellStart: Int32Array;
  private readonly next: Int32Array;
  private readonly slots: Int32Array;
  private readonly usedCells: Int32Array;
  private usedCount = 0;
  private count = 0;

  constructor(
    width: number,
    height: number,
    readonly cellSize: number,
    capacity: number,
  ) {
    this.cols = Math.max(1, Math.ceil(width / cellSize));
    this.rows = Math.max(1, Math.ceil(height / cellSize));
    this.cellStart = new Int32Array(this.cols * this.rows).fill(-1);
    this.next = new Int32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.usedCells = new Int32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    for (let i = 0; i < this.usedCount; i++) this.cellStart[this.usedCells[i]] = -1;
    this.usedCount = 0;
    this.count = 0;
  }

  insert(slot: number, x: number, y: number): void {
    const i = this.count++;
    const cell = this.cellOf(x, y);
    if (this.cellStart[cell] === -1) this.usedCells[this.usedCount++] = cell;
    this.slots[i] = slot;
    this.next[i] = this.cellStart[cell];
    this.cellStart[cell] = i;
  }

  /** Writes the slots of the heads in every cell the box touches into `out`; returns how many. */
  query(minX: number, minY: number, maxX: number, maxY: number, out: Int32Array): number {
    const c0 = this.col(minX);
    const c1 = this.col(maxX);
    const r0 = this.row(minY);
    const r1 = this.row(maxY);
    let n = 0;
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        for (let i = this.cellStart[r * this.cols + c]; i !== -1; i = this.next[i]) {
          if (n < out.length) out[n++] = this.slots[i];
        }
      }
    }
    return n;
  }

  private col(x: number): number {
    const c = Math.floor(x / this.cellSize);
    return c < 0 ? 0 : c >= this.cols ? this.cols - 1 : c;
  }

  private row(y: number): number {
    const r = Math.floor(y / this.cellSize);
    return r < 0 ? 0 : r >= this.rows ? this.rows - 1 : r;
  }

  private cellOf(x: number, y: number): number {
    return this.row(y) * this.cols + this.col(x);
  }
}
