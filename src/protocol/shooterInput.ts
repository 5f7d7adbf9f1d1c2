// The input of the rooms where players move and shoot (PvP, boss battle), on Colyseus' input
// channel: `room.input({ type: ShooterInput })`. A predicting client sends one per simulation step
// instead of the move / shoot messages; the same rules apply. What the channel adds is the
// render-time stamp that lets the server judge a shot as the client saw it (docs/netcode.md).
// Pass the type to `room.input`: the class the SDK reflects from the handshake has no defaults,
// so its counters would start undefined.
import { schema, t, type SchemaType } from "@colyseus/schema";

export const ShooterInput = schema(
  {
    /** Where the player wants to be (as the move message), once `moving` is true. */
    x: t.number().default(0),
    y: t.number().default(0),
    /** False until the client first moves: (0, 0) is then no wish to go there. */
    moving: t.boolean().default(false),
    /** A shot counter: each increase fires one bullet along (aim_x, aim_y), as the shoot message. */
    shots: t.uint32().default(0),
    aim_x: t.number().default(0),
    aim_y: t.number().default(0),
  },
  "ShooterInput",
);
export type ShooterInput = SchemaType<typeof ShooterInput>;
