// A simulated round trip for an SDK client, with no network tooling: every frame the client sends,
// and every frame it receives, waits half the round trip inside the client, in order. The SDK's
// clock then measures that round trip and stamps its inputs accordingly, as over a real link.
import type { Room } from "@colyseus/sdk";

interface DelayableTransport {
  send(data: Uint8Array | ArrayBuffer): void;
  readonly isOpen: boolean;
  ws: { onmessage: ((event: unknown) => void) | null };
}

/** Delays `room`'s traffic by rttMs / 2 each way from now on (0: unchanged). */
export function simulateRoundTrip(room: Room, rttMs: number): void {
  if (!(rttMs > 0)) return;
  const half = rttMs / 2;
  const transport = (room.connection as unknown as { transport: DelayableTransport }).transport;
  const send = transport.send.bind(transport);
  transport.send = (data) => {
    // The SDK encodes into reused buffers: send a copy of what it meant at this moment.
    const copy = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) : data.slice(0);
    setTimeout(() => transport.isOpen && send(copy), half);
  };
  const ws = transport.ws;
  const receive = ws.onmessage;
  // Frames still on their way when the room is left are dropped, as a closed socket would.
  if (receive) ws.onmessage = (event) => setTimeout(() => transport.isOpen && receive.call(ws, event), half);
}
