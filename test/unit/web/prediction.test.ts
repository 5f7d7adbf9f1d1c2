// The /play client's prediction of the own player (pure, no DOM).
import { describe, expect, it } from "vitest";
import { PredictedPlayer } from "../../../web/play/src/render/prediction.js";

const clampX = (max: number) => (p: { x: number; y: number }) => ({ x: Math.min(max, p.x), y: p.y });

describe("PredictedPlayer", () => {
  it("moves at once and sends the position at most once per interval, only when it changed", () => {
    const p = new PredictedPlayer(clampX(1000), 50);
    p.reset({ x: 100, y: 100 });
    const sent: Array<{ x: number; y: number }> = [];
    p.move({ x: 1, y: 0 }, 400, 0.1);
    expect(p.position).toEqual({ x: 140, y: 100 });
    p.flush(1000, (at) => sent.push(at));
    p.move({ x: 1, y: 0 }, 400, 0.01);
    p.flush(1020, (at) => sent.push(at)); // too soon
    p.flush(1060, (at) => sent.push(at));
    p.flush(1200, (at) => sent.push(at)); // unchanged
    expect(sent).toEqual([{ x: 140, y: 100 }, { x: 144, y: 100 }]);
  });

  it("applies the server's correction of a sent position to the prediction made since", () => {
    const p = new PredictedPlayer(clampX(1000), 0);
    p.reset({ x: 0, y: 0 });
    p.move({ x: 1, y: 0 }, 100, 1); // x 100
    p.flush(1, () => {});
    p.move({ x: 1, y: 0 }, 100, 1); // x 200
    p.flush(2, () => {});
    p.move({ x: 1, y: 0 }, 100, 1); // x 300, not sent yet
    p.reconcile({ x: 90, y: 0 }); // the server capped the first step at 90
    expect(p.position).toEqual({ x: 290, y: 0 });
    p.reconcile({ x: 190, y: 0 }); // the second answer already carries the shift: no further change
    expect(p.position).toEqual({ x: 290, y: 0 });
  });

  it("ignores rounding, keeps the clamp, and takes the server's word without a pending send", () => {
    const p = new PredictedPlayer(clampX(150), 0);
    p.reset({ x: 100, y: 0 });
    p.move({ x: 1, y: 0 }, 100, 1);
    expect(p.position).toEqual({ x: 150, y: 0 });
    p.flush(1, () => {});
    p.reconcile({ x: 150.3, y: 0 });
    expect(p.position).toEqual({ x: 150, y: 0 });
    p.reconcile({ x: 42, y: 7 });
    expect(p.position).toEqual({ x: 42, y: 7 });
  });
});
