// The own player on the SDK's prediction (docs/netcode.md): moves and shots leave on the room's
// input channel, one ShooterInput per simulation step (`room.input()`), and Predict's reconciler
// applies each at once, then rewinds to the server's position on every patch and replays what the
// server has not acknowledged yet. Its step is the server's rule for a move (towards the wished
// point, within the speed cap, inside the player's area); what it does not know (collisions) the
// server's correction brings in. Other players are drawn INTERPOLATION_MS in the past, the delay
// the inputs declare (`renderDelay`), so the server judges shots against what this client drew.
import { Predict, type Reconciler, type Room } from "@colyseus/sdk";
import { limitStep, type Point } from "../../../../src/game/geometry.js";
import { ShooterInput } from "../../../../src/protocol/shooterInput.js";

/** How far in the past other players are drawn: two patches at 20 Hz. */
export const INTERPOLATION_MS = 100;

/** The own player's synchronized state (a schema instance with a position). */
interface Positioned {
  x: number;
  y: number;
}

export class ShooterControl {
  private readonly predict: Predict;
  private readonly input;
  private me: Reconciler<Positioned> | null = null;
  private bound: Positioned | null = null;
  private shot: Point | null = null;

  /**
   * @param clamp the player's area (as the server clamps it)
   * @param speed the player's top speed now, px/s
   */
  constructor(
    room: Room,
    private readonly clamp: (p: Point) => Point,
    private readonly speed: () => number,
  ) {
    this.predict = Predict.get(room, { mode: "lerp", delay: INTERPOLATION_MS });
    this.input = room.input({ type: ShooterInput, renderDelay: INTERPOLATION_MS });
  }

  /** Predicts `self`, the own player's synchronized state, from now on (again after a reconnection). */
  bind(self: Positioned): void {
    if (this.bound === self) return;
    this.me?.dispose();
    this.bound = self;
    this.me = this.predict.reconciler(self, {
      input: this.input,
      fields: ["x", "y"],
      step: (ctx, state, command) => {
        if (!command.moving) return;
        const next = this.clamp(limitStep(state, command, this.speed() * ctx.dt));
        state.x = next.x;
        state.y = next.y;
      },
    });
  }

  /** Where to draw the own player: predicted, smoothed between steps; null before the first state. */
  get position(): Point | null {
    return this.me ? { x: this.me.value("x"), y: this.me.value("y") } : null;
  }

  /** A shot along (dx, dy), sent with the next input. */
  fire(dx: number, dy: number): void {
    this.shot = { x: dx, y: dy };
  }

  /** Once per frame: one input per fixed step due, moving along `direction` (a unit vector, or null to stand). */
  frame(now: number, direction: Point | null): void {
    const steps = this.predict.tick(now);
    const data = this.input.data;
    for (let i = 0; i < steps; i++) {
      const at = this.me?.state;
      if (direction && at) {
        const dt = this.input.stepSeconds ?? 1 / 30;
        const next = this.clamp({ x: at.x + direction.x * this.speed() * dt, y: at.y + direction.y * this.speed() * dt });
        data.x = next.x;
        data.y = next.y;
        data.moving = true;
      } else data.moving = false; // standing: the server keeps the player where it is
      if (this.shot) {
        data.shots += 1;
        data.aim_x = this.shot.x;
        data.aim_y = this.shot.y;
        this.shot = null;
      }
      this.input.send();
    }
  }

  dispose(): void {
    this.me?.dispose();
    this.me = null;
    this.predict.dispose();
  }
}
