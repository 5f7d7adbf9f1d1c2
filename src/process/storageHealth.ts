// A full disk under the database: writes fail (PostgreSQL's SQLSTATE 53100, ENOSPC) until space is
// freed, and then resume without a restart. Meanwhile every refused write answers 503
// `storage_full`, /ready answers 503 so a load balancer stops sending players here, and the log gets
// one error line per interval with the count of refused writes, not a stack per request.
import type { Logger } from "../ops/logger.js";

/** At most one "storage full" error line per this interval. */
export const STORAGE_FULL_LOG_INTERVAL_MS = 10_000;
/** /ready stays 503 this long after the last refused write (and while the probe says full). */
export const STORAGE_FULL_RECENT_MS = 5_000;

/** Whether `err` says the storage is full: SQLSTATE 53100 (disk_full) anywhere in it, or ENOSPC/EDQUOT. */
export function isStorageFull(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): boolean => {
    if (!value || typeof value !== "object" || depth > 6 || seen.has(value)) return false;
    seen.add(value);
    const v = value as { code?: unknown; originalCode?: unknown; message?: unknown };
    if (v.code === "53100" || v.originalCode === "53100" || v.code === "ENOSPC" || v.code === "EDQUOT") return true;
    if (typeof v.message === "string" && /No space left on device|Code: `53100`/.test(v.message)) return true;
    return Object.values(value).some((child) => visit(child, depth + 1));
  };
  return visit(err, 0);
}

export class StorageHealth {
  private lastFailureAt: number | undefined;
  private lastLineAt = -Infinity;
  /** Refused writes not yet counted in a log line. */
  private unreported = 0;
  private refusedSinceFull = 0;

  /**
   * @param stillFull whether the storage is still full by its own measure (the embedded database:
   *   its file system's free space); without one, only recent failures count.
   */
  constructor(
    private readonly logger: Logger,
    private readonly where: string,
    private readonly stillFull: () => boolean = () => false,
    private readonly now: () => number = Date.now,
  ) {}

  /** A write failed for lack of space. */
  refused(err: unknown): void {
    const now = this.now();
    this.lastFailureAt = now;
    this.unreported++;
    this.refusedSinceFull++;
    if (now - this.lastLineAt < STORAGE_FULL_LOG_INTERVAL_MS) return;
    this.lastLineAt = now;
    const cause = (err as Error)?.message?.split("\n").filter(Boolean).at(-1)?.slice(0, 300);
    this.logger.error(
      { storage: this.where, refused_writes: this.unreported, interval_s: STORAGE_FULL_LOG_INTERVAL_MS / 1000, cause },
      "storage full: writes are refused (503 storage_full) until space is freed; free space on that disk, no restart needed",
    );
    this.unreported = 0;
  }

  /** False while writes fail for lack of space (for /ready). */
  writable(): boolean {
    if (this.lastFailureAt === undefined) return true;
    if (this.now() - this.lastFailureAt < STORAGE_FULL_RECENT_MS || this.stillFull()) return false;
    this.logger.info({ storage: this.where, refused_writes: this.refusedSinceFull }, "storage writable again: writes resume");
    this.lastFailureAt = undefined;
    this.lastLineAt = -Infinity;
    this.unreported = 0;
    this.refusedSinceFull = 0;
    return true;
  }
}
