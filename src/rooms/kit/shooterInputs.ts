// Applies the input channel of a room where players move and shoot (ShooterInput): each client's
// pending inputs, oldest first, before the room's step. A move is applied when its wish changed
// (or while the speed cap still keeps the player short of it); each increase of the shot counter
// is one shot, judged `lag` ms in the past: the age of that input's render-time stamp (shotLag,
// within the cap), or 0 for a client that asked for none. The same age dates the shot for the
// fire-rate rule, so shots a retransmission delivers in a bunch are judged as they were fired.
import type { Client, Clock, InputAPI } from "@colyseus/core";
import { shotLag } from "../../game/lagCompensation.js";
import type { ShooterInput } from "../../protocol/shooterInput.js";

/** What a room does with one client's intents (the same code its move / shoot messages run). */
export interface ShooterActions<C extends Client> {
  /** Returns whether the speed cap stopped the player short of (x, y). */
  move(client: C, x: number, y: number): boolean;
  /** `ageMs`: how long before now the shot was fired (its stamp's age), for the fire-rate rule (game/fireRate.ts). */
  shoot(client: C, dx: number, dy: number, lagMs: number, ageMs: number): void;
}

interface Mark {
  x: number;
  y: number;
  shots: number;
}

export class ShooterInputs<C extends Client> {
  private readonly marks = new Map<string, Mark>();
  /** Sessions whose last wish the speed cap cut short: walked on even in a step without inputs. */
  private readonly travelling = new Set<string>();

  constructor(
    private readonly room: { readonly clients: Iterable<C>; readonly clock: Clock },
    private readonly inputs: InputAPI<ShooterInput>,
    private readonly actions: ShooterActions<C>,
  ) {}

  /** Every connected client's pending inputs; `compensated(client)` false judges its shots live. */
  apply(compensated: (client: C) => boolean = () => true): void {
    const now = this.room.clock.elapsedTime;
    for (const client of this.room.clients) {
      const sid = client.sessionId;
      const inputs = this.inputs.get(sid);
      // Most clients of a step sent nothing on this channel (or never use it): skip them cheaply.
      if (inputs.size === 0 && !this.travelling.has(sid)) continue;
      let mark = this.marks.get(sid);
      if (!mark) this.marks.set(sid, (mark = { x: Number.NaN, y: Number.NaN, shots: 0 }));
      let travelling = this.travelling.has(sid);
      let moved = false;
      // One at a time: `inputs.renderTime` is the stamp of the input being applied.
      for (const input of inputs) {
        if (input.moving && (travelling || input.x !== mark.x || input.y !== mark.y)) {
          mark.x = input.x;
          mark.y = input.y;
          travelling = this.actions.move(client, input.x, input.y);
          moved = true;
        }
        if (input.shots !== mark.shots) {
          mark.shots = input.shots;
          const stamp = inputs.renderTime;
          this.actions.shoot(client, input.aim_x, input.aim_y, compensated(client) ? shotLag(now, stamp) : 0, stamp > 0 ? now - stamp : 0);
        }
      }
      // A wish the speed cap cut short is walked towards step by step, as the budget refills.
      if (!moved && travelling) travelling = this.actions.move(client, mark.x, mark.y);
      if (travelling) this.travelling.add(sid);
      else this.travelling.delete(sid);
    }
  }

  /** The client is gone for good: its counters start over if the session ever comes back. */
  forget(sid: string): void {
    this.marks.delete(sid);
    this.travelling.delete(sid);
  }
}
