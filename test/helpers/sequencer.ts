// The order test files start in: the longest first, whatever their project. Vitest's own order runs
// one project after another (by name), so a long file of a late project (the scale-out suite, a
// PostgreSQL copy of a long room suite) would start near the end and the run would wait for it
// alone. Durations come from vitest's results cache (the last run here); on a fresh clone, which has
// none, the files that start processes or a browser go first, then the larger files.
import { statSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const startsProcesses = [/\/test\/e2e\//, /\/test\/fuzz\//, /\/test\/chaos\//, /\/scaleout\.test\.ts$/, /\.pglite-only\.test\.ts$/];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const size = new Map<string, number>();
    const sizeOf = (spec: TestSpecification) => {
      if (!size.has(spec.moduleId)) size.set(spec.moduleId, statSync(spec.moduleId).size);
      return size.get(spec.moduleId)!;
    };
    const rank = (spec: TestSpecification): [number, number] => {
      const last = cache.getTestSpecificationResult(spec);
      if (last) return [last.failed ? 3 : 1, last.duration ?? 0]; // what failed last time first
      return [startsProcesses.some((p) => p.test(spec.moduleId)) ? 2 : 0, sizeOf(spec)]; // unknown: by kind, then size
    };
    const ranks = new Map(files.map((spec) => [spec, rank(spec)]));
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      const [ka, va] = ranks.get(a)!;
      const [kb, vb] = ranks.get(b)!;
      return kb - ka || vb - va;
    });
  }
}
