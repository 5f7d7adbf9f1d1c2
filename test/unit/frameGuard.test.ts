// The frame guard (src/net/frameGuard.ts) as a pure function: what the SDK sends passes, every count or
// length that leaves the frame is refused, and no frame makes it throw or loop.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { encode } from "@colyseus/schema";
import { InputDecoder, InputEncoder } from "@colyseus/schema/input";
import { MAX_INPUT_SLOTS, inputFormat, refuseFrame } from "../../src/net/frameGuard.js";
import { ShooterInput } from "../../src/protocol/shooterInput.js";

const snapshot = inputFormat(ShooterInput, false);
const both = inputFormat(ShooterInput, true);
const RELIABLE = 19;
const UNRELIABLE = 20;
const TIMED = 0x80;

const num = (v: number) => {
  const b = new Uint8Array(16);
  const it = { offset: 0 };
  encode.number(b, v, it);
  return [...b.subarray(0, it.offset)];
};
const u32 = (v: number) => [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >>> 24) & 255];
const u16 = (v: number) => [v & 255, (v >> 8) & 255];
const str = (s: string) => [0xa0 | Buffer.byteLength(s), ...Buffer.from(s)];

function moves(mode: "reliable" | "unreliable", n: number): number[][] {
  const input = new ShooterInput();
  const encoder = new InputEncoder(input, { mode });
  const out: number[][] = [];
  for (let i = 0; i < n; i++) {
    Object.assign(input, { x: 100 + i * 3.5, y: 200, moving: true, shots: i, aim_x: 0.6, aim_y: -0.8 });
    out.push([...encoder.encode()]);
  }
  return out;
}

describe("frames the SDK sends pass", () => {
  it("reliable inputs, plain and stamped (snapshot and both timelines)", () => {
    for (const body of moves("reliable", 4)) {
      expect(refuseFrame(new Uint8Array([RELIABLE, ...body]), snapshot)).toBeUndefined();
      expect(refuseFrame(new Uint8Array([RELIABLE | TIMED, ...num(-16.5), ...body]), snapshot)).toBeUndefined();
      expect(refuseFrame(new Uint8Array([RELIABLE | TIMED, ...num(1234), ...u16(80), ...body]), both)).toBeUndefined();
    }
  });

  it("unreliable rings, plain and with their stamp blocks; an empty (unchanged) slot too", () => {
    const ring = moves("unreliable", 3).at(-1)!;
    expect(refuseFrame(new Uint8Array([UNRELIABLE, ...ring]), snapshot)).toBeUndefined();
    const k = 3;
    const block = [...num(k), ...u32(90_000), ...num(33), ...num(34)];
    expect(refuseFrame(new Uint8Array([UNRELIABLE | TIMED, ...block, ...ring]), snapshot)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([UNRELIABLE | TIMED, ...block, ...u16(100), ...num(0), ...num(1), ...ring]), both)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([UNRELIABLE, ...num(7), 0]), snapshot)).toBeUndefined();
  });

  it("messages, requests, join acknowledgement, leave, ping", () => {
    expect(refuseFrame(new Uint8Array([13, ...str("boss_player_move"), 0x82, 0xa1, 0x78, 1, 0xa1, 0x79, 2]), undefined)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([13, ...num(7)]), undefined)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([17, ...str("bytes"), 1, 2, 3]), undefined)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([21, ...num(12), ...str("chat"), 0xc0]), undefined)).toBeUndefined();
    expect(refuseFrame(new Uint8Array([13, ...str("é")]), undefined)).toBeUndefined();
    for (const code of [10, 12, 18]) expect(refuseFrame(new Uint8Array([code]), undefined)).toBeUndefined();
  });
});

describe("frames that declare more than they hold are refused", () => {
  const refused: [string, number[], typeof snapshot | undefined][] = [
    ["2³¹−1 stamp slots (the out-of-memory crash)", [0x94, 0xce, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4], snapshot],
    ["a ring length of −1 after an int32 base seq (the endless loop)", [0x14, 0xd2, 0, 0, 0, 0x80, 0xff], snapshot],
    ["a ring length past the end", [UNRELIABLE, 1, 40, 0x80, 1], snapshot],
    ["a float ring length", [UNRELIABLE, 1, 0xca, 0, 0, 0xc0, 0x3f, 0x80, 1], snapshot],
    ["a stamp block declaring 0 slots", [UNRELIABLE | TIMED, 0, ...u32(5), 1, 0], snapshot],
    ["a stamp block declaring more slots than the ring has", [UNRELIABLE | TIMED, 3, ...u32(5), 1, 1, 1, 0], snapshot],
    [`more than ${MAX_INPUT_SLOTS} slots`, [UNRELIABLE, 1, ...new Array(MAX_INPUT_SLOTS + 1).fill(0)], snapshot],
    ["a truncated stamp", [RELIABLE | TIMED, 0xcb, 0, 0], snapshot],
    ["a stamp without its render delta (both timelines)", [RELIABLE | TIMED, 5], both],
    ["a field the input does not have (schema prints 'field not defined')", [RELIABLE, 0x9f, 1], snapshot],
    ["a DELETE of a field", [RELIABLE, 0x40], snapshot],
    ["a NaN position", [RELIABLE, 0x80, 0xcb, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f], snapshot],
    ["an infinite aim", [RELIABLE, 0x84, 0xca, 0, 0, 0x80, 0x7f], snapshot],
    ["a truncated uint32", [RELIABLE, 0x83, 1, 2], snapshot],
    ["a prefix decode.number does not read", [RELIABLE, 0x80, 0xc1], snapshot],
    ["an input frame to a room without input", [RELIABLE, 0x80, 1], undefined],
    ["a str32 message type of 4 GB", [13, 0xdb, 0xff, 0xff, 0xff, 0xff], undefined],
    ["a message type in invalid UTF-8 (schema prints 'Invalid byte')", [13, 0xa2, 0xc3, 0x28], undefined],
    ["a request id that is negative", [21, 0xff, ...str("x")], undefined],
    ["a request id that is a float", [21, 0xca, 0, 0, 0xc0, 0x3f, ...str("x")], undefined],
    ["a server-to-client code (ROOM_STATE)", [14, 1, 2], undefined],
    ["an unassigned code", [31], undefined],
    ["an empty frame", [], undefined],
  ];
  for (const [what, bytes, format] of refused) {
    it(what, () => expect(refuseFrame(new Uint8Array(bytes), format)).toEqual(expect.any(String)));
  }
});

describe("any frame", () => {
  it("is judged without throwing (a walk that never ends would hold this test past its timeout)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.boolean(), (bytes, renderAndReckon) => {
        const verdicts = [refuseFrame(bytes, renderAndReckon ? both : snapshot), refuseFrame(bytes, undefined)];
        return verdicts.every((v) => v === undefined || typeof v === "string");
      }),
      { numRuns: 3000 },
    );
  });

  it("that passes decodes with Colyseus' own input decoder into finite values, without a word on the console", () => {
    const printed: unknown[] = [];
    const saved = [console.warn, console.error, console.log];
    console.warn = console.error = console.log = (...a: unknown[]) => void printed.push(a);
    try {
      fc.assert(
        fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0xca, 0xcb, 0xcc)), { maxLength: 40 }), (body) => {
          const frame = new Uint8Array([RELIABLE, ...body]);
          if (refuseFrame(frame, snapshot) !== undefined) return true;
          const input = new ShooterInput();
          new InputDecoder(input).decode(frame.subarray(1));
          return [input.x, input.y, input.aim_x, input.aim_y, input.shots].every((v) => Number.isFinite(v));
        }),
        { numRuns: 5000 },
      );
    } finally {
      [console.warn, console.error, console.log] = saved;
    }
    expect(printed).toEqual([]);
  });
});
