// A room seen through its protocol: `on` and `send` accept only the message names of the maps and
// check payloads against them at compile time (the maps come from src/protocol).
import type { Room } from "@colyseus/sdk";
import { ERROR_MESSAGE, type ErrorPayload } from "../../../src/protocol/common.js";

export class Channel<ServerMessages, ClientMessages> {
  private readonly unbind: Array<() => void> = [];
  constructor(readonly room: Room) {}

  on<K extends keyof ServerMessages & string>(type: K, handler: (payload: ServerMessages[K]) => void): void {
    this.unbind.push((this.room as Room<any, any>).onMessage(type as string, handler as (p: unknown) => void));
  }

  onError(handler: (payload: ErrorPayload) => void): void {
    this.unbind.push((this.room as Room<any, any>).onMessage(ERROR_MESSAGE, handler));
  }

  send<K extends keyof ClientMessages & string>(type: K, payload: ClientMessages[K]): void {
    (this.room as Room<any, any>).send(type as string, payload);
  }

  dispose(): void {
    for (const off of this.unbind.splice(0)) off();
  }
}
