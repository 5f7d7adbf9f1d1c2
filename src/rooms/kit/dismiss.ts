// A player sent away for good, at its own request (its leave message) or the server's (an API
// call, a requeue): the room releases its seat (the game, the seat's last write, then its lease),
// and only then is the connection closed, as CONSENTED: no reconnection window for it.
import { CloseCode, type Client } from "@colyseus/core";

export async function dismiss(clients: { getById(sid: string): Client | undefined }, sid: string, release: () => Promise<void>): Promise<void> {
  const client = clients.getById(sid);
  await release();
  client?.leave(CloseCode.CONSENTED);
}
