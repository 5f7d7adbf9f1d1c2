// A growable little-endian byte buffer, reused from one snapshot to the next.

const utf8 = new TextEncoder();

export class ByteWriter {
  buf: Uint8Array;
  private view: DataView;
  offset = 0;

  constructor(capacity = 4096) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  reset(): void {
    this.offset = 0;
  }

  ensure(extra: number): void {
    if (this.offset + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.offset + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.offset));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.offset++] = v;
  }

  i8(v: number): void {
    this.ensure(1);
    this.view.setInt8(this.offset++, v);
  }

  u16(v: number): void {
    this.ensure(2);
    this.view.setUint16(this.offset, v, true);
    this.offset += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.offset, v >>> 0, true);
    this.offset += 4;
  }

  /**
   * Copies `length` bytes of `from` starting at `start`. Byte by byte: the records copied are a few
   * dozen bytes, and a `subarray` view per copy (for `set`) was a third of the snapshot's garbage.
   */
  copy(from: Uint8Array, start: number, length: number): void {
    this.ensure(length);
    const buf = this.buf;
    let at = this.offset;
    for (let i = start, end = start + length; i < end; i++) buf[at++] = from[i];
    this.offset = at;
  }

  /** A u8 byte length, then the UTF-8 text cut (at a character boundary) to at most `maxBytes`. */
  text(s: string, maxBytes: number): void {
    let bytes = utf8.encode(s);
    if (bytes.length > maxBytes) {
      let end = maxBytes;
      while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
      bytes = bytes.subarray(0, end);
    }
    this.u8(bytes.length);
    this.ensure(bytes.length);
    this.buf.set(bytes, this.offset);
    this.offset += bytes.length;
  }

  /** The bytes written since the last reset (a view: valid until the next write). */
  written(): Uint8Array {
    return this.buf.subarray(0, this.offset);
  }
}
