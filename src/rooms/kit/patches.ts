// The state patch of a room with an input channel (defineInput), sent without a frame per client.
// Colyseus stamps every state frame of such a room with the server clock and the recipient's last
// consumed input (its "timed" layout) and builds that frame anew for every client every tick, also
// when nothing changed (a heartbeat): an allocation and a copy per client per step at 30 Hz, plus
// the transport's own copy. Here the patch is encoded once and each client's frame is written
// straight into its connection's outgoing buffer (src/net/transport.ts); the bytes on the wire are
// Colyseus' own. Rooms with per-client views (StateView filters) keep Colyseus' path. A client
// that reads messages only (kit/channels.ts) gets no patch here either.
import { ClientState, Protocol, ProtocolModifier, SchemaSerializer, type Client } from "@colyseus/core";
import type { Schema } from "@colyseus/schema";
import type WebSocket from "ws";
import { enqueueTimedFrame, TIMED_PREFIX_BYTES, writeTimedPayload } from "../../net/transport.js";
import { skipsStatePatches } from "./channels.js";

const PATCH_CODE = Protocol.ROOM_STATE_PATCH;
const TIMED_PATCH_CODE = Protocol.ROOM_STATE_PATCH | ProtocolModifier.TIMED;
/** A tick without changes still tells input clients the clock and their ack: an empty patch. */
const HEARTBEAT = Uint8Array.of(PATCH_CODE);

interface TimedClient extends Client {
  _inputBuffer?: { readonly ackSeq: number };
}

/** Colyseus' timed frame for a client whose connection has no batching outbox (same bytes). */
function timedFrame(body: Uint8Array, sNow: number, inputSeq: number): Buffer {
  const out = Buffer.allocUnsafe(body.byteLength + TIMED_PREFIX_BYTES);
  writeTimedPayload(out, 0, body, TIMED_PATCH_CODE, sNow, inputSeq);
  return out;
}

export class SharedPatchSerializer<T extends Schema> extends SchemaSerializer<T> {
  override applyPatches(clients: Client[], state?: unknown, timing?: { sNow: number }): boolean {
    if (!timing || this.hasFilters || clients.length === 0) return super.applyPatches(clients, state, timing);
    const changed = this.encoder.hasChanges;
    let body: Uint8Array = HEARTBEAT;
    if (changed) {
      this.needFullEncode = true;
      this.encoder.sharedBuffer[0] = PATCH_CODE;
      body = this.encoder.encode({ offset: 1 });
    }
    const sNow = timing.sNow;
    for (let i = clients.length - 1; i >= 0; i--) {
      const client = clients[i] as TimedClient;
      if (client.state !== ClientState.JOINED || skipsStatePatches(client)) continue;
      const ack = client._inputBuffer?.ackSeq ?? 0;
      if (!enqueueTimedFrame(client.ref as unknown as WebSocket, body, TIMED_PATCH_CODE, sNow, ack)) client.raw(timedFrame(body, sNow, ack));
    }
    if (changed) this.encoder.discardChanges();
    return changed;
  }
}
