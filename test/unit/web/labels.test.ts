// The /play client's name labels (web/play/src/render/sprites.ts drawName) on a recording canvas
// context: a label goes above its figure, below it when that spot is past the canvas's top edge or
// taken by a label of the same frame, and never stacks on another; plus the own-name and plural helpers.
import { describe, expect, it } from "vitest";
import { clearLabels, drawName } from "../../../web/play/src/render/sprites.js";
import { plural, youName } from "../../../web/play/src/dom.js";

interface Drawn {
  text: string;
  x: number;
  y: number;
  baseline: string;
}

/** A 2D context that records fillText calls; text is 8 units wide per character; world = canvas pixels. */
function recordingContext(width = 800, height = 600) {
  const drawn: Drawn[] = [];
  const ctx = {
    canvas: { width, height },
    font: "",
    textAlign: "",
    textBaseline: "bottom",
    lineWidth: 0,
    strokeStyle: "",
    fillStyle: "",
    save() {},
    restore() {},
    measureText: (t: string) => ({ width: t.length * 8 }),
    getTransform: () => ({ a: 1, d: 1, e: 0, f: 0 }),
    strokeText() {},
    fillText(text: string, x: number, y: number) {
      drawn.push({ text, x, y, baseline: ctx.textBaseline });
    },
  };
  const c = ctx as unknown as CanvasRenderingContext2D;
  clearLabels(c);
  return { ctx: c, drawn };
}

/** The vertical extent of a label: its name (bottom baseline, `size` tall) and its sub line (top baseline). */
function extent(drawn: Drawn[], name: string, size = 16) {
  const i = drawn.findIndex((d) => d.text === name);
  const top = drawn[i].y - size;
  const sub = drawn[i + 1]?.baseline === "top" ? drawn[i + 1] : undefined;
  return { top, bottom: sub ? sub.y + Math.round(size * 0.8) : drawn[i].y, x: drawn[i].x };
}

describe("drawName", () => {
  it("puts the label above the figure, its hearts between the name and the figure", () => {
    const { ctx, drawn } = recordingContext();
    drawName(ctx, 400, 280, "Ann", "♥♥♥", 16, 320);
    const label = extent(drawn, "Ann");
    expect(label.bottom).toBeLessThanOrEqual(280); // the hearts end above the figure's top
    expect(label.top).toBeGreaterThan(200);
  });

  it("moves a label below its figure at the canvas's top edge instead of covering the figure or the hearts", () => {
    const { ctx, drawn } = recordingContext();
    drawName(ctx, 400, 10, "Ann", "♥♥♥", 16, 50); // the figure's top at 10: no room above it
    const label = extent(drawn, "Ann");
    expect(label.top).toBeGreaterThanOrEqual(50);
    expect(label.bottom).toBeLessThanOrEqual(600);
  });

  it("never stacks two labels of one frame: the second goes below its figure", () => {
    const { ctx, drawn } = recordingContext();
    drawName(ctx, 400, 300, "Ann (you)", "♥♥♥♥♥", 16, 340);
    drawName(ctx, 410, 305, "Ben (guest)", "♥♥♥♥♥", 16, 345);
    const a = extent(drawn, "Ann (you)");
    const b = extent(drawn, "Ben (guest)");
    expect(b.top >= a.bottom || b.bottom <= a.top).toBe(true);
    expect(b.top).toBeGreaterThanOrEqual(345);
  });

  it("starts each frame with a clear canvas (clearLabels)", () => {
    const { ctx, drawn } = recordingContext();
    drawName(ctx, 400, 300, "Ann", undefined, 16, 340);
    clearLabels(ctx);
    drawName(ctx, 400, 300, "Ann", undefined, 16, 340);
    expect(drawn[1].y).toBe(drawn[0].y);
  });

  it("slides a label along a side edge instead of cutting it", () => {
    const { ctx, drawn } = recordingContext();
    drawName(ctx, 5, 300, "A long name", undefined, 16, 340);
    expect(drawn[0].x - ("A long name".length * 8) / 2).toBeGreaterThanOrEqual(0);
  });
});

describe("names and counts", () => {
  it("tags the own name once: a guest reads 'Ann (you)', never 'Ann (guest) (you)'", () => {
    expect(youName("Ann (guest)")).toBe("Ann (you)");
    expect(youName("ada")).toBe("ada (you)");
  });

  it("says 1 life, 2 lives, 0 lives", () => {
    expect(plural(1, "life", "lives")).toBe("1 life");
    expect(plural(2, "life", "lives")).toBe("2 lives");
    expect(plural(0, "life", "lives")).toBe("0 lives");
  });
});
