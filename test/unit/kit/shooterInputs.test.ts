// The input channel's applier (src/rooms/kit/shooterInputs.ts) against fakes: which inputs become
// moves and shots, and that a client without inputs costs nothing unless a capped move is under way.
import { describe, expect, it } from "vitest";
import type { Client, Clock, InputAPI } from "@colyseus/core";
import { ShooterInputs } from "../../../src/rooms/kit/shooterInputs.js";
import type { ShooterInput } from "../../../src/protocol/shooterInput.js";

type Input = Pick<ShooterInput, "x" | "y" | "moving" | "shots" | "aim_x" | "aim_y">;

function setup(capped: (x: number, y: number) => boolean = () => false) {
  const pending = new Map<string, Input[]>();
  const reads: string[] = [];
  const inputs = {
    get(sid: string) {
      reads.push(sid);
      const queue = pending.get(sid) ?? [];
      pending.set(sid, []);
      return { size: queue.length, renderTime: 0, [Symbol.iterator]: () => queue[Symbol.iterator]() };
    },
  } as unknown as InputAPI<ShooterInput>;
  const clients = [{ sessionId: "a" }, { sessionId: "b" }] as Client[];
  const moves: string[] = [];
  const shots: string[] = [];
  const applier = new ShooterInputs({ clients, clock: { elapsedTime: 1000 } as Clock }, inputs, {
    move: (c, x, y) => (moves.push(`${c.sessionId}:${x},${y}`), capped(x, y)),
    shoot: (c, dx, dy) => void shots.push(`${c.sessionId}:${dx},${dy}`),
  });
  const send = (sid: string, input: Partial<Input>) => {
    const queue = pending.get(sid) ?? [];
    queue.push({ x: 0, y: 0, moving: false, shots: 0, aim_x: 0, aim_y: 0, ...input });
    pending.set(sid, queue);
  };
  return { applier, send, moves, shots, reads };
}

describe("ShooterInputs", () => {
  it("turns a changed wish into a move and each new shot count into a shot", () => {
    const { applier, send, moves, shots } = setup();
    send("a", { moving: true, x: 10, y: 20 });
    send("a", { moving: true, x: 10, y: 20, shots: 1, aim_x: 1, aim_y: 0 });
    send("b", { moving: false, shots: 0 });
    applier.apply();
    expect(moves).toEqual(["a:10,20"]);
    expect(shots).toEqual(["a:1,0"]);
  });

  it("walks on towards a wish the speed cap cut short in steps without inputs, then stops", () => {
    let capped = true;
    const { applier, send, moves } = setup(() => capped);
    send("a", { moving: true, x: 300, y: 300 });
    applier.apply();
    applier.apply(); // no input: still travelling
    capped = false;
    applier.apply(); // arrives
    applier.apply(); // nothing left to do
    expect(moves).toEqual(["a:300,300", "a:300,300", "a:300,300"]);
  });

  it("forgets a client's counters: its next shot counter starts over", () => {
    const { applier, send, shots } = setup();
    send("a", { shots: 3 });
    applier.apply();
    applier.forget("a");
    send("a", { shots: 3 });
    applier.apply();
    expect(shots).toEqual(["a:0,0", "a:0,0"]);
  });
});
