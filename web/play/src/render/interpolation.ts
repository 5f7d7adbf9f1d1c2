// Entity interpolation: server snapshots (15–20 Hz) arrive with jitter; drawing each entity where
// it was `delayMs` ago, between the two snapshots around that moment, looks smooth at any display
// rate. Pure (no DOM), unit-tested in test/unit/web/interpolation.test.ts.
export interface Point {
  x: number;
  y: number;
}

export const lerp = (a: number, b: number, t: number): number => a + (b - a) * t;

interface Snapshot<T> {
  t: number;
  entities: Map<string, T>;
}

export class SnapshotBuffer<T extends Point = Point> {
  private snaps: Snapshot<T>[] = [];

  /**
   * @param delayMs how far behind the newest snapshot to draw: about two snapshot intervals, so a
   *   late snapshot rarely leaves nothing to interpolate towards.
   */
  constructor(
    public delayMs = 100,
    private readonly mix: (a: T, b: T, t: number) => T = (a, b, t) => ({ ...b, x: lerp(a.x, b.x, t), y: lerp(a.y, b.y, t) }),
  ) {}

  /** Records the state at time `t` (ms, monotonic). Entities absent from it are gone. */
  push(t: number, entities: Map<string, T>): void {
    const last = this.snaps[this.snaps.length - 1];
    if (last && t <= last.t) last.entities = entities; // same frame: the newer state wins
    else this.snaps.push({ t, entities });
    // Keep what sampling can still need: everything after the newest snapshot older than 1 s.
    while (this.snaps.length > 2 && this.snaps[1].t < t - 1000) this.snaps.shift();
  }

  clear(): void {
    this.snaps = [];
  }

  get size(): number {
    return this.snaps.length;
  }

  /** The newest state as received, without delay. */
  latest(): Map<string, T> {
    return this.snaps[this.snaps.length - 1]?.entities ?? new Map();
  }

  /** Every entity of the newest snapshot, placed where it was at `now - delayMs`. */
  sample(now: number): Map<string, T> {
    const n = this.snaps.length;
    if (n === 0) return new Map();
    const at = now - this.delayMs;
    let i = n - 1;
    while (i > 0 && this.snaps[i].t > at) i--;
    const from = this.snaps[i];
    const to = this.snaps[Math.min(i + 1, n - 1)];
    const newest = this.snaps[n - 1].entities;
    const t = to === from ? 1 : Math.min(1, Math.max(0, (at - from.t) / (to.t - from.t)));
    const out = new Map<string, T>();
    for (const [id, latest] of newest) {
      const a = from.entities.get(id);
      const b = to.entities.get(id);
      if (a && b) out.set(id, this.mix(a, b, at < from.t ? 0 : t));
      else out.set(id, b ?? a ?? latest);
    }
    return out;
  }
}
