// A boss room's own row (BossRoom) and its accounts' BossPlayer rows, beside the seat writes of
// ./seats.ts: the row is created once (and again after a failed attempt), a seated account's join
// is recorded, the row is closed when the room goes. Failures are logged: play goes on.
import type { Logger } from "../../ops/logger.js";
import type { BossStore } from "../../stores/boss.js";
import { logStoreFailure } from "../kit/errors.js";

export class BossRoomRecord {
  private row?: Promise<number>;

  constructor(
    private readonly store: BossStore,
    private readonly roomId: string,
    private readonly log: Logger,
  ) {}

  /** The row's primary key, created on first use. */
  key(): Promise<number> {
    this.row ??= this.store.ensureRoom(this.roomId).catch((err) => {
      this.row = undefined;
      logStoreFailure(this.log, err, {}, "could not create the boss room record");
      throw err;
    });
    return this.row;
  }

  /** An account took a seat: its BossPlayer row (re)opened, one more attempt counted. */
  async recordJoin(userId: number): Promise<void> {
    try {
      await this.store.recordJoin(await this.key(), userId);
    } catch (err) {
      logStoreFailure(this.log, err, { userId }, "could not record the boss room join");
    }
  }

  /** The room ends (without a victory it is no longer active). */
  async close(): Promise<void> {
    try {
      await this.store.closeRoom(this.roomId);
    } catch (err) {
      logStoreFailure(this.log, err, {}, "could not close the boss room record");
    }
  }
}
