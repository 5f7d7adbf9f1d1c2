// A shooter room's two ways in for moves and shots, behind one object: the move / shoot messages
// (queued until the step, ./inputs.ts) and Colyseus' input channel (ShooterInput, ./shooterInputs.ts).
// The room's step applies both through the same two actions, messages first; a message carries no
// render-time stamp, so its shot is judged live (lag 0). Boss and PvP rooms hold one each.
import type { Client, Clock, InputAPI } from "@colyseus/core";
import type { ShooterInput } from "../../protocol/shooterInput.js";
import { InputQueue } from "./inputs.js";
import { ShooterInputs } from "./shooterInputs.js";

/** Where an action came from: the move or shoot message's type, or "input" for the channel. */
export type InputSource = "message" | "input";

/** What the room does with one move or shot (the same code for both ways in). */
export interface ShooterHandlers<C extends Client, E> {
  /** Returns whether the speed cap stopped the player short of (x, y). */
  move(client: C, x: number, y: number, source: InputSource): boolean;
  /** `ageMs`: how long before now the shot was fired (the channel's stamp age; 0 for a message), for the fire-rate rule. */
  shoot(client: C, dx: number, dy: number, lagMs: number, source: InputSource, ageMs: number, extra?: E): void;
}

export class ShooterControls<C extends Client, E = undefined> {
  /** Moves and shots sent as messages, waiting for the next step. */
  private readonly queued = new InputQueue<C, "move" | "shoot", E>();
  private readonly channel: ShooterInputs<C>;

  constructor(
    room: { readonly clients: Iterable<C>; readonly clock: Clock },
    inputs: InputAPI<ShooterInput>,
    private readonly handlers: ShooterHandlers<C, E>,
  ) {
    this.channel = new ShooterInputs<C>(room, inputs, {
      move: (client, x, y) => handlers.move(client, x, y, "input"),
      shoot: (client, dx, dy, lagMs, ageMs) => handlers.shoot(client, dx, dy, lagMs, "input", ageMs),
    });
  }

  /** A validated move message, for the next step. */
  readonly queueMove = (client: C, x: number, y: number): void => this.queued.push(client, "move", x, y);

  /** A validated shoot message, for the next step. */
  readonly queueShot = (client: C, dx: number, dy: number, extra?: E): void => this.queued.push(client, "shoot", dx, dy, extra);

  /** The step's inputs: queued messages in arrival order, then the channel; `compensated(client)` false judges its channel shots live. */
  apply(compensated?: (client: C) => boolean): void {
    this.queued.drain(this.applyQueued);
    this.channel.apply(compensated);
  }

  /** The connection dropped: its queued messages go (the channel keeps its counters for a return). */
  drop(client: C): void {
    this.queued.forget(client);
  }

  /** The client left for good. */
  forget(client: C): void {
    this.queued.forget(client);
    this.channel.forget(client.sessionId);
  }

  private readonly applyQueued = (client: C, kind: "move" | "shoot", a: number, b: number, extra: E | undefined): void => {
    if (kind === "move") this.handlers.move(client, a, b, "message");
    else this.handlers.shoot(client, a, b, 0, "message", 0, extra);
  };
}
