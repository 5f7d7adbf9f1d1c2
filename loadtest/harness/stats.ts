// Percentiles over raw samples. Load runs keep every latency sample (a few million numbers at most),
// so the percentiles are exact, not bucketed.

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of the samples, or null when there are none. */
export function percentiles(samples: ArrayLike<number>): Percentiles | null {
  if (samples.length === 0) return null;
  const s = Float64Array.from(samples).sort();
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  return { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s[s.length - 1] };
}

/** A growable float buffer: pushing millions of samples without boxing each number. */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  clear(): void {
    this.length = 0;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

export const round = (n: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};
