// What docs/slitherrush.md tells a client author about the wire, checked against the code: the
// bullet angle convention, a snake's length counting its head, the leaderboard's id and where
// scores travel.
import { describe, expect, it } from "vitest";
import { angleOf, unitOfAngle } from "../../../src/game/slitherrush/quantise.js";
import { SnapshotEncoder } from "../../../src/game/slitherrush/snapshotEncoder.js";
import { SlitherRushWorld, decodeSnapshot } from "../../../src/protocol/slitherrushSnapshot.js";
import { arena, join, place, steps } from "./helpers.js";

describe("docs/slitherrush.md: claims a client relies on", () => {
  it("angles: 16-bit turns from +x towards +y (y down): 0 right, 16384 down, 32768 left, 49152 up", () => {
    expect([angleOf(1, 0), angleOf(0, 1), angleOf(-1, 0), angleOf(0, -1)]).toEqual([0, 16384, 32768, 49152]);
    const down = unitOfAngle(16384);
    expect(down.x).toBeCloseTo(0, 9);
    expect(down.y).toBeCloseTo(1, 9);
  });

  it("a snake's length counts its head: the body has `length` points and the decoded body[0] is the head", () => {
    const a = arena(3);
    const snake = join(a, "sid-ana", "Ana");
    place(a, snake, 1000, 1000, 1, 0);
    steps(a, 3);
    expect(snake.body.length).toBe(snake.length);
    const encoder = new SnapshotEncoder(a);
    encoder.addViewer("sid-ana");
    let bytes: Uint8Array | undefined;
    encoder.encode((_id, b) => (bytes = b.slice()));
    const world = new SlitherRushWorld();
    world.apply(bytes!);
    const drawn = [...world.snakes.values()][0];
    expect(drawn.body.length).toBe(snake.length);
    expect(drawn.body[0].x).toBeCloseTo(snake.body[0].x, 1);
    expect(drawn.body[0].y).toBeCloseTo(snake.body[0].y, 1);
    const full = decodeSnapshot(bytes!).snakes[0];
    expect(full.full && full.steps.length).toBe(snake.length - 1);
  });

  it("the leaderboard's id is the player id the room gives (its sessionId), and only the leaderboard carries other snakes' scores", () => {
    const a = arena(4);
    join(a, "sid-ana", "Ana");
    expect(a.leaderboard()[0].id).toBe("sid-ana");
    expect(Object.keys(a.leaderboard()[0]).sort()).toEqual(["id", "kills", "length", "score", "status", "username"]);
    const encoder = new SnapshotEncoder(a);
    encoder.addViewer("sid-ana");
    let bytes: Uint8Array | undefined;
    encoder.encode((_id, b) => (bytes = b.slice()));
    const snake = decodeSnapshot(bytes!).snakes[0];
    expect(Object.keys(snake)).not.toContain("score");
    expect(Object.keys(snake)).not.toContain("kills");
  });
});
