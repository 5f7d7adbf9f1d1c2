// The transport's per-connection frame buffer (src/net/transport.ts): WebSocket framing of each
// payload size class, frames kept in order, and a buffer the socket still holds never written over.
import { describe, expect, it } from "vitest";
import { FrameBuffer } from "../../src/net/transport.js";

/** Splits server → client frames (unmasked, final, binary) back into their payloads. */
function parseFrames(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    expect(bytes[at]).toBe(0x82);
    let n = bytes[at + 1];
    let head = 2;
    if (n === 126) ((n = bytes.readUInt16BE(at + 2)), (head = 4));
    else if (n === 127) ((n = Number(bytes.readBigUInt64BE(at + 2))), (head = 10));
    out.push(Buffer.from(bytes.subarray(at + head, at + head + n)));
    at += head + n;
  }
  return out;
}

const payload = (size: number, fill: number) => new Uint8Array(size).fill(fill);

describe("FrameBuffer", () => {
  it("frames each payload size class (7-bit, 16-bit and 64-bit lengths) in order, growing as needed", () => {
    const frames = new FrameBuffer();
    const sizes = [0, 1, 125, 126, 65535, 65536, 3];
    sizes.forEach((size, i) => frames.push(payload(size, i + 1)));
    const parsed = parseFrames(frames.take());
    expect(parsed.map((p) => p.length)).toEqual(sizes);
    parsed.forEach((p, i) => expect(p.every((b) => b === i + 1)).toBe(true));
    expect(frames.length).toBe(0);
  });

  it("copies the payload when queued: a buffer the caller reuses afterwards changes nothing", () => {
    const frames = new FrameBuffer();
    const reused = payload(4, 7);
    frames.push(reused);
    reused.fill(9);
    expect(parseFrames(frames.take())[0]).toEqual(Buffer.from([7, 7, 7, 7]));
  });

  it("reuses its memory after a finished write, and leaves a held one to the socket", () => {
    const frames = new FrameBuffer();
    frames.push(payload(10, 1));
    const first = frames.take();
    frames.released(false);
    frames.push(payload(10, 2));
    expect(first[2]).toBe(2); // same memory: written over, as it may be once the kernel took it

    const held = frames.take();
    frames.released(true);
    frames.push(payload(10, 3));
    expect(held[2]).toBe(2); // still what was written: the socket holds it
    expect(parseFrames(frames.take())[0][0]).toBe(3);
  });
});
