// A room tells its clients what happens twice: as the spec's messages (e.g. boss_player_position
// for every accepted move) and as synchronized state patches (the same positions, 20 times a
// second). A client reads one of the two, so it may say at join which: `updates: "messages"` (no
// state patches: a client of the original message protocol) or `updates: "state"` (no message
// mirror of what the state already carries: a client drawing from the schema state). A client that
// says nothing gets both, as the spec requires. Each frame not sent saves its write.
// The option itself is `updatesOption` in src/protocol/common.ts.
import { Protocol, type Client } from "@colyseus/core";
import { PROTOCOL_CODE_MASK } from "../../net/frameGuard.js";
import type { Updates } from "../../protocol/common.js";

/** Connections that get no state patches. */
const withoutPatches = new WeakSet<Client>();

/** Whether this connection said it reads messages only (the kit's patch writer, ./patches.ts, asks). */
export function skipsStatePatches(client: Client): boolean {
  return withoutPatches.has(client);
}

/** Stops sending state patches to this client (the full state at join still goes out once). */
export function skipStatePatches(client: Client): void {
  withoutPatches.add(client);
  const raw = client.raw.bind(client);
  client.raw = (data, options, cb) => {
    if ((data[0] & PROTOCOL_CODE_MASK) === Protocol.ROOM_STATE_PATCH) return cb?.();
    raw(data, options, cb);
  };
}

/** Applies a client's `updates` join option (again after a reconnection: a new connection). */
export function chooseUpdates<C extends Client>(client: C, updates: Updates, stateReaders: StateReaders<C>): void {
  if (updates === "messages") skipStatePatches(client);
  if (updates === "state") stateReaders.add(client);
}

/**
 * The clients of a room that read state only, kept as the `except` list of mirror broadcasts. Keyed
 * by session: a reconnected client (a new connection object) replaces its old one.
 */
export class StateReaders<C extends Client = Client> {
  private readonly bySession = new Map<string, C>();
  private list: C[] = [];

  add(client: C): void {
    this.bySession.set(client.sessionId, client);
    this.list = [...this.bySession.values()];
  }

  remove(client: C): void {
    if (this.bySession.get(client.sessionId) !== client) return;
    this.bySession.delete(client.sessionId);
    this.list = [...this.bySession.values()];
  }

  has(client: C): boolean {
    return this.bySession.get(client.sessionId) === client;
  }

  /** `except` for a mirror broadcast caused by `sender`: the sender and every state reader. */
  exceptWith(sender: C): C | C[] {
    return this.list.length === 0 ? sender : [sender, ...this.list];
  }
}
