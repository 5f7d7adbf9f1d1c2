// "Last seen" for an account's teachers: a sign-in writes it at once, and an authenticated request
// writes it at most once a minute per account and process (so a playing class costs a write per
// student and minute, not one per request). Play in rooms is seen through its own records (the
// figures take the latest of these and the games' times: src/http/classFigures.ts).
import type { PrismaClient } from "../db/generated/client.js";
import type { Logger } from "../ops/logger.js";
import { recordLastSeen } from "../stores/accounts.js";

export const LAST_SEEN_RESOLUTION_MS = 60_000;
/** Accounts remembered at once; beyond, the table starts again (at worst one early write each). */
const MAX_REMEMBERED = 100_000;

export class LastSeen {
  private readonly writtenAt = new Map<number, number>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Pick<Logger, "warn">,
    private readonly now: () => number = Date.now,
  ) {}

  /** The account was seen now (a request): written unless it was written within the last minute. */
  touch(userId: number): void {
    const at = this.now();
    const last = this.writtenAt.get(userId);
    if (last !== undefined && at - last < LAST_SEEN_RESOLUTION_MS) return;
    if (this.writtenAt.size >= MAX_REMEMBERED) this.writtenAt.clear();
    this.writtenAt.set(userId, at);
    recordLastSeen(this.prisma, [userId]).catch((err: unknown) => {
      this.writtenAt.delete(userId);
      this.log.warn({ err: (err as Error).message, userId }, "could not record when an account was last seen");
    });
  }

  /** A sign-in: written now, awaited. */
  async signedIn(userId: number): Promise<void> {
    this.writtenAt.set(userId, this.now());
    await recordLastSeen(this.prisma, [userId]);
  }
}
