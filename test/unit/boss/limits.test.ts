import { describe, expect, it } from "vitest";
import { TokenBucket } from "../../../src/rooms/kit/guard.js";
import { sanitizeChatText } from "../../../src/game/chat.js";

describe("TokenBucket", () => {
  it("allows a burst, then refills at its rate up to the burst", () => {
    let now = 0;
    const bucket = new TokenBucket(30, 60, () => now);
    let taken = 0;
    while (bucket.take()) taken++;
    expect(taken).toBe(60);
    now += 100;
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    now += 10_000;
    taken = 0;
    while (bucket.take()) taken++;
    expect(taken).toBe(60);
  });
});

describe("sanitizeChatText", () => {
  it("strips control, formatting and angle-bracket characters, collapses whitespace, bounds the length", () => {
    expect(sanitizeChatText("  hi\tthere\n\nfriend  ")).toBe("hi there friend");
    expect(sanitizeChatText("a\u0007b\u202ec<script>")).toBe("abcscript");
    expect(sanitizeChatText("👨\u200d👩\u200d👧")).toBe("👨\u200d👩\u200d👧");
    expect(sanitizeChatText("\u0000\u0001 ")).toBe("");
    expect(sanitizeChatText("x".repeat(500))).toHaveLength(280);
  });
});
