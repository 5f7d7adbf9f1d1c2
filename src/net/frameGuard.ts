// The WebSocket frame guard: every inbound frame is checked here before Colyseus decodes it.
// Colyseus' decoders trust the counts and lengths a frame declares: an unreliable input's stamp
// block of 2³¹−1 slots made @colyseus/core allocate and loop 2³¹ times (`readSeriesDeltas`: the
// process died out of memory), a negative ring length sent its decode loop backwards forever (the
// event loop hung), and garbage in an input body made @colyseus/schema print to stdout. So a frame
// is walked with the decoders' own number reader, and every count and length it declares must fit
// in the bytes it has. A frame that fails is refused whole; the transport closes its sender.
//
// What is checked, by protocol code (the first byte; its top three bits are modifiers):
// - JOIN_ROOM, LEAVE_ROOM, PING: the code alone is read.
// - ROOM_DATA, ROOM_DATA_BYTES: a message type (a string within the frame, valid UTF-8, or a number).
//   The msgpack payload after it is left to Colyseus and the room's guard (msgpackr checks its own
//   lengths; an undecodable payload is answered there).
// - ROOM_REQUEST: a request id (a non-negative integer), then a type as above.
// - ROOM_INPUT_RELIABLE: [stamp?] body; ROOM_INPUT_UNRELIABLE: [stamp block?] base seq, then
//   (length, body) slots filling the frame exactly, at most MAX_INPUT_SLOTS. A body is a sequence
//   of (operation | field index, value) pairs of the room's input type: ADD or REPLACE of a field
//   the type defines, a value of the field's type inside the frame, numbers finite. Only rooms that
//   define an input accept input frames.
// - any other code (the server's own, or unassigned): refused.
import { isUtf8 } from "node:buffer";
import { decode } from "@colyseus/schema";
import { Protocol } from "@colyseus/core";

/** A stamp prefix (the TIMED modifier) on an input frame; what it holds depends on the room's rewind timeline. */
const TIMED = 0x80;
/** A frame's protocol code: its first byte's low five bits (the top three are modifiers). */
export const PROTOCOL_CODE_MASK = 0x1f;
/** The input encoder's redundancy ring keeps a few slots (3 by default); 64 leaves room and bounds the work per frame. */
export const MAX_INPUT_SLOTS = 64;

const ADD = 128;
const REPLACE = 0;

/** How a room reads its input frames: its input type's fields and its stamp mode. */
export interface InputFormat {
  /** By field index: reads a value of the field, saying whether it was valid and ended by `end`. */
  readonly fields: readonly (FieldReader | undefined)[];
  /** The rewind timeline stamps both render and reckon time: a uint16 render delta follows each stamp. */
  readonly renderAndReckon: boolean;
}

type FieldReader = (bytes: Uint8Array, it: { offset: number }, end: number) => boolean;

/** A decode.* reader wrapped to say whether it read a finite number ending by `end`. */
const finite =
  (read: (bytes: Uint8Array, it: { offset: number }) => number): FieldReader =>
  (bytes, it, end) => {
    const value = read(bytes, it);
    return it.offset <= end && typeof value === "number" && Number.isFinite(value);
  };

const numberReader = finite((b, it) => (validNumberPrefix(b[it.offset]) ? decode.number(b, it) : Number.NaN));
const fixed =
  (n: number): FieldReader =>
  (_bytes, it, end) =>
    (it.offset += n) <= end;

const READERS: Record<string, FieldReader> = {
  number: numberReader,
  boolean: fixed(1),
  int8: fixed(1),
  uint8: fixed(1),
  int16: fixed(2),
  uint16: fixed(2),
  int32: fixed(4),
  uint32: fixed(4),
  int64: fixed(8),
  uint64: fixed(8),
  float32: finite(decode.float32),
  float64: finite(decode.float64),
  string: (bytes, it, end) => skipString(bytes, it, end),
};

/** The msgpack number prefixes decode.number reads (others make it return undefined). */
function validNumberPrefix(prefix: number | undefined): boolean {
  return prefix !== undefined && (prefix < 0x80 || prefix >= 0xe0 || (prefix >= 0xca && prefix <= 0xd3));
}

/**
 * The input format of a Colyseus schema type, as its `Symbol.metadata` describes it. Input types
 * hold primitive fields only (the input encoder refuses others); a field type the guard cannot read
 * is a programming error, thrown when the room is set up.
 */
export function inputFormat(type: object, renderAndReckon: boolean): InputFormat {
  const metadata = (type as Record<symbol, Record<string, { type: unknown; index: number; name: string }> | undefined>)[Symbol.metadata];
  const fields: (FieldReader | undefined)[] = [];
  for (const key of Object.keys(metadata ?? {})) {
    if (!/^\d+$/.test(key)) continue;
    const field = metadata![key];
    const reader = typeof field.type === "string" ? READERS[field.type] : undefined;
    if (!reader) throw new Error(`frame guard: input field "${field.name}" has type ${JSON.stringify(field.type)}, which it cannot check`);
    fields[field.index] = reader;
  }
  return { fields, renderAndReckon };
}

/**
 * Why `frame` must not reach Colyseus, or undefined when it may. `input` is the room's input format
 * (undefined: the room takes no input frames). Allocates nothing but its read cursor.
 */
export function refuseFrame(frame: Uint8Array, input: InputFormat | undefined): string | undefined {
  if (frame.length === 0) return "empty frame";
  const code = frame[0] & PROTOCOL_CODE_MASK;
  const timed = (frame[0] & TIMED) !== 0;
  const it = { offset: 1 };
  switch (code) {
    case Protocol.JOIN_ROOM:
    case Protocol.LEAVE_ROOM:
    case Protocol.PING:
      return undefined;
    case Protocol.ROOM_DATA:
    case Protocol.ROOM_DATA_BYTES:
      return messageType(frame, it) ? undefined : "message type does not decode";
    case Protocol.ROOM_REQUEST: {
      if (!validNumberPrefix(frame[it.offset])) return "request id does not decode";
      const id = decode.number(frame, it);
      if (!(it.offset <= frame.length && Number.isSafeInteger(id) && id >= 0)) return "request id does not decode";
      return messageType(frame, it) ? undefined : "message type does not decode";
    }
    case Protocol.ROOM_INPUT_RELIABLE:
      if (!input) return "this room takes no input frames";
      if (timed && !stamp(frame, it, input)) return "input stamp does not decode";
      return inputBody(frame, it.offset, frame.length, input) ? undefined : "input does not decode";
    case Protocol.ROOM_INPUT_UNRELIABLE:
      if (!input) return "this room takes no input frames";
      return inputRing(frame, it, timed, input);
    default:
      return `unknown protocol code ${code}`;
  }
}

/** A message type: a msgpack string inside the frame in valid UTF-8, or a msgpack number. */
function messageType(frame: Uint8Array, it: { offset: number }): boolean {
  const prefix = frame[it.offset];
  if (prefix === undefined) return false;
  if ((prefix >= 0xa0 && prefix < 0xc0) || prefix === 0xd9 || prefix === 0xda || prefix === 0xdb) return skipString(frame, it, frame.length);
  return numberReader(frame, it, frame.length);
}

/** Skips a msgpack string: false when its bytes leave [.., end) or are not UTF-8 (schema's reader would print). */
function skipString(bytes: Uint8Array, it: { offset: number }, end: number): boolean {
  const prefix = bytes[it.offset++];
  let length: number;
  if (prefix >= 0xa0 && prefix < 0xc0) length = prefix & 0x1f;
  else if (prefix === 0xd9) length = bytes[it.offset++];
  else if (prefix === 0xda) length = decode.uint16(bytes, it);
  else if (prefix === 0xdb) length = decode.uint32(bytes, it);
  else return false;
  const start = it.offset;
  it.offset += length;
  if (!(it.offset <= end)) return false;
  for (let i = start; i < it.offset; i++) if (bytes[i] >= 0x80) return isUtf8(bytes.subarray(start, it.offset));
  return true;
}

/** A reliable input's stamp: a number, and with both timelines a uint16 render delta. */
function stamp(frame: Uint8Array, it: { offset: number }, input: InputFormat): boolean {
  if (!numberReader(frame, it, frame.length)) return false;
  return !input.renderAndReckon || (it.offset += 2) <= frame.length;
}

/**
 * An unreliable input: [k][uint32 newest][Δ]×(k−1) ([uint16][Δ]×(k−1) with both timelines) when
 * timed, then [base seq] and (length, body) slots to the end of the frame, k of them when timed.
 */
function inputRing(frame: Uint8Array, it: { offset: number }, timed: boolean, input: InputFormat): string | undefined {
  let declared = -1;
  if (timed) {
    if (!validNumberPrefix(frame[it.offset])) return "input stamp block does not decode";
    declared = decode.number(frame, it);
    if (!(Number.isSafeInteger(declared) && declared >= 1 && declared <= MAX_INPUT_SLOTS)) return `input stamp block declares ${declared} slots`;
    const series = input.renderAndReckon ? 2 : 1;
    for (let s = 0; s < series; s++) {
      it.offset += s === 0 ? 4 : 2; // the newest stamp: uint32, then uint16 for the render deltas
      for (let i = 1; i < declared; i++) if (!numberReader(frame, it, frame.length)) return "input stamp block does not decode";
    }
    if (it.offset > frame.length) return "input stamp block does not decode";
  }
  if (!numberReader(frame, it, frame.length)) return "input sequence does not decode";
  let slots = 0;
  while (it.offset < frame.length) {
    if (++slots > MAX_INPUT_SLOTS) return `more than ${MAX_INPUT_SLOTS} input slots`;
    if (!validNumberPrefix(frame[it.offset])) return "input slot length does not decode";
    const length = decode.number(frame, it);
    const end = it.offset + length;
    if (!(Number.isSafeInteger(length) && length >= 0 && end <= frame.length)) return "input slot length leaves the frame";
    if (!inputBody(frame, it.offset, end, input)) return "input does not decode";
    it.offset = end;
  }
  if (timed && slots !== declared) return `input stamp block declares ${declared} slots for ${slots} inputs`;
  return undefined;
}

/** bytes[from, to) is a sequence of (ADD or REPLACE | field index, value) pairs of the input type. */
function inputBody(frame: Uint8Array, from: number, to: number, input: InputFormat): boolean {
  const it = { offset: from };
  while (it.offset < to) {
    const first = frame[it.offset++];
    const operation = first & 0xc0;
    if (operation !== ADD && operation !== REPLACE) return false;
    const reader = input.fields[first & 0x3f];
    if (!reader || !reader(frame, it, to)) return false;
  }
  return true;
}
