// A complete room on the kit (docs/room-kit.md shows this file verbatim): players tap, everyone
// hears the new count, an account's taps are written, a dropped player may come back.
import type { AuthContext, Client } from "@colyseus/core";
import { z } from "zod";
import type { Identity } from "../../src/auth/identity.js";
import type { ErrorPayload } from "../../src/protocol/common.js";
import { MessageGuard } from "../../src/rooms/kit/guard.js";
import { authenticateJoin } from "../../src/rooms/kit/join.js";
import type { SeatKeeper } from "../../src/rooms/kit/keeper.js";
import { KitRoom } from "../../src/rooms/kit/room.js";

// The protocol (a real mode keeps it in src/protocol/<mode>.ts).
export const tallyInbound = { tap: z.object({ times: z.number().int().min(1).max(10) }) };
export interface TallyOutbound {
  tally: { sid: string; taps: number };
  error: ErrorPayload;
}
type TallyClient = Client<{ auth: Identity; messages: TallyOutbound }>;

/** Stands in for the mode's writer module (src/stores/<mode>.ts): taps per account. */
export const tapStore = {
  totals: new Map<number, number>(),
  async add(rows: Array<{ userId: number; taps: number }>) {
    for (const { userId, taps } of rows) this.totals.set(userId, (this.totals.get(userId) ?? 0) + taps);
  },
};

export class TallyRoom extends KitRoom<{ client: TallyClient }> {
  reconnectSeconds = 5;
  /** The "game": each seat's count. */
  private readonly counts = new Map<string, { taps: number }>();
  seats!: SeatKeeper<"taps", object, { taps: number }>;
  private guard!: MessageGuard<TallyClient, typeof tallyInbound>;

  static async onAuth(_token: string | undefined, options: unknown, context: AuthContext) {
    return (await authenticateJoin(z.object({ username: z.string().optional() }).optional(), options, context)).identity;
  }

  onCreate() {
    this.seats = this.keepSeats(this.reconnectSeconds, {
      counted: ["taps"],
      player: (seat) => this.counts.get(seat.sid),
      counts: ({ taps }) => ({ taps }),
      write: (entries) => tapStore.add(entries.map((e) => ({ userId: e.userId, taps: e.delta.taps }))),
    });
    this.guard = new MessageGuard<TallyClient, typeof tallyInbound>(this, tallyInbound, { log: this.log });
    this.guard.on("tap", (client, { times }) => {
      const count = this.counts.get(client.sessionId);
      if (!count) return;
      count.taps += times;
      this.broadcast("tally", { sid: client.sessionId, taps: count.taps });
    });
    this.guard.rejectUnknown();
  }

  async onJoin(client: TallyClient) {
    await this.seats.admit(client.sessionId, this.authOf(client), {}, () => this.counts.set(client.sessionId, { taps: 0 }));
  }

  onDrop(client: TallyClient, code?: number) {
    this.seats.hold(client, code);
  }

  onReconnect(client: TallyClient) {
    const count = this.counts.get(client.sessionId);
    if (this.seats.returned(client.sessionId) && count) client.send("tally", { sid: client.sessionId, taps: count.taps });
  }

  async onLeave(client: TallyClient) {
    this.guard.forget(client);
    const written = this.seats.leave(client.sessionId);
    this.counts.delete(client.sessionId);
    await written;
  }

  async onDispose() {
    await this.seats.dispose();
  }
}
