import { describe, expect, it } from "vitest";
import { undecodableInput } from "../../src/ops/colyseusLogger.js";

describe("Colyseus errors caused by a client's undecodable bytes", () => {
  it("recognises the ws receiver, msgpack and schema decoders by the first stack frame", () => {
    const ws = "Max payload size exceeded\nRangeError: Max payload size exceeded\n    at Receiver.haveLength (/app/node_modules/ws/lib/receiver.js:442:28)\n    at Receiver.startLoop (/app/node_modules/ws/lib/receiver.js:181:16)";
    expect(undecodableInput(ws)).toBe("Max payload size exceeded");
    const msgpack = "RangeError: Offset is outside the bounds of the DataView\n    at DataView.prototype.getUint16 (<anonymous>)\n    at read (/app/node_modules/msgpackr/dist/node.cjs:300:1)\n    at RoomMessages.onData (/app/node_modules/@colyseus/core/build/RoomMessages.mjs:122:17)";
    expect(undecodableInput(msgpack)).toBe("RangeError: Offset is outside the bounds of the DataView");
  });

  it("leaves the server's own faults alone, even when they happen while handling a message", () => {
    const bug = "TypeError: Cannot read properties of undefined (reading 'x')\n    at BossRoom.handler (/app/src/rooms/BossRoom.ts:12:3)\n    at RoomMessages.onData (/app/node_modules/@colyseus/core/build/RoomMessages.mjs:130:5)";
    expect(undecodableInput(bug)).toBeUndefined();
    expect(undecodableInput("onDispose error: database gone (roomId: abc)")).toBeUndefined();
  });
});
