// What every room counts for the Prometheus metrics (src/ops/metrics.ts), without a line in the rooms:
// messages out (each `client.send` / `sendBytes`, and each recipient of a `broadcast`), the duration of each
// simulation step (`setTimestep`), and which rooms this process runs (for the rooms/clients
// gauges). Installed once on Colyseus' Room class when the kit is loaded; messages in are counted
// by the message guard. (Colyseus keeps no per-type list of local rooms, hence the tracking.)
import { matchMaker, Room, type Client } from "@colyseus/core";
import { countMessageOut, observeTick, setLocalRooms } from "../../ops/metrics.js";

type Except = Client | Client[] | undefined;
type RoomInternals = {
  roomName: string;
  clients: Client[];
  broadcastMessageType(type: unknown, message: unknown, options?: { except?: Except }): void;
  setTimestep(callback: ((dt: number) => void) | undefined, delay?: number): void;
  _onJoin(client: Client, ...rest: unknown[]): Promise<unknown>;
};

const countedClients = new WeakSet<object>();

/** Counts each message the server sends this client, under the room type it joined. */
function countSends(client: Client, roomName: string): void {
  if (countedClients.has(client)) return;
  countedClients.add(client);
  const { send, sendBytes } = client;
  client.send = function (this: Client, ...args: Parameters<Client["send"]>) {
    countMessageOut(roomName, 1);
    return send.apply(this, args);
  } as Client["send"];
  client.sendBytes = function (this: Client, ...args: Parameters<Client["sendBytes"]>) {
    countMessageOut(roomName, 1);
    return sendBytes.apply(this, args);
  } as Client["sendBytes"];
}

function recipients(clients: Client[], except: Except): number {
  const excluded = except === undefined ? 0 : Array.isArray(except) ? except.length : 1;
  return Math.max(0, clients.length - excluded);
}

function install(): void {
  const proto = Room.prototype as unknown as RoomInternals;
  const { broadcastMessageType, setTimestep, _onJoin } = proto;
  proto.broadcastMessageType = function (this: RoomInternals, type, message, options) {
    countMessageOut(this.roomName, recipients(this.clients, options?.except));
    return broadcastMessageType.call(this, type, message, options);
  };
  proto.setTimestep = function (this: RoomInternals, callback, delay) {
    const roomName = this.roomName;
    const timed =
      callback &&
      ((dt: number) => {
        const started = performance.now();
        try {
          return callback(dt);
        } finally {
          observeTick(roomName, performance.now() - started);
        }
      });
    return setTimestep.call(this, timed, delay);
  };
  proto._onJoin = function (this: RoomInternals, client, ...rest) {
    countSends(client, this.roomName);
    return _onJoin.call(this, client, ...rest);
  };
}
install();

/** Keeps the rooms this process runs, for the gauges computed when /metrics is scraped (and for a shutdown's report). */
export function trackLocalRooms(): ReadonlySet<Room> {
  const live = new Set<Room>();
  for (const handler of Object.values(matchMaker.getAllHandlers())) {
    handler.on("create", (room: Room) => live.add(room));
    handler.on("dispose", (room: Room) => live.delete(room));
  }
  setLocalRooms(() => live);
  return live;
}
