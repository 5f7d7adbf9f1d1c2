// The /play client's snapshot interpolation (pure, no DOM).
import { describe, expect, it } from "vitest";
import { SnapshotBuffer } from "../../../web/play/src/render/interpolation.js";

const at = (entries: Record<string, [number, number]>) => new Map(Object.entries(entries).map(([id, [x, y]]) => [id, { x, y }]));

describe("SnapshotBuffer", () => {
  it("draws entities delayMs behind, between the two snapshots around that moment", () => {
    const buf = new SnapshotBuffer(100);
    buf.push(1000, at({ a: [0, 0] }));
    buf.push(1050, at({ a: [10, 20] }));
    buf.push(1100, at({ a: [20, 40] }));
    expect(buf.sample(1125).get("a")).toEqual({ x: 5, y: 10 }); // 1025: halfway between 1000 and 1050
    expect(buf.sample(1175).get("a")).toEqual({ x: 15, y: 30 });
  });

  it("holds the newest position when snapshots stop coming, and the oldest before the first", () => {
    const buf = new SnapshotBuffer(100);
    buf.push(1000, at({ a: [0, 0] }));
    buf.push(1050, at({ a: [10, 0] }));
    expect(buf.sample(5000).get("a")).toEqual({ x: 10, y: 0 });
    expect(buf.sample(1000).get("a")).toEqual({ x: 0, y: 0 });
  });

  it("shows new entities at once and drops entities the newest snapshot no longer has", () => {
    const buf = new SnapshotBuffer(100);
    buf.push(1000, at({ a: [0, 0], gone: [5, 5] }));
    buf.push(1050, at({ a: [10, 0], born: [7, 7] }));
    const drawn = buf.sample(1125);
    expect([...drawn.keys()].sort()).toEqual(["a", "born"]);
    expect(drawn.get("born")).toEqual({ x: 7, y: 7 });
  });

  it("keeps the other fields of the newer snapshot and a custom mix", () => {
    const buf = new SnapshotBuffer<{ x: number; y: number; name: string }>(0);
    buf.push(0, new Map([["a", { x: 0, y: 0, name: "old" }]]));
    buf.push(100, new Map([["a", { x: 100, y: 0, name: "new" }]]));
    expect(buf.sample(25).get("a")).toEqual({ x: 25, y: 0, name: "new" });
  });

  it("forgets snapshots older than a second, keeping one to interpolate from", () => {
    const buf = new SnapshotBuffer(100);
    for (let t = 0; t <= 3000; t += 50) buf.push(t, at({ a: [t, 0] }));
    expect(buf.size).toBeLessThanOrEqual(22);
    expect(buf.sample(3000).get("a")!.x).toBe(2900);
  });

  it("replaces a snapshot pushed twice for the same moment", () => {
    const buf = new SnapshotBuffer(0);
    buf.push(10, at({ a: [1, 1] }));
    buf.push(10, at({ a: [2, 2] }));
    expect(buf.size).toBe(1);
    expect(buf.latest().get("a")).toEqual({ x: 2, y: 2 });
  });
});
