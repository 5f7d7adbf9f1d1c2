// The synchronized state of a SlitherRush arena (@colyseus/schema v5). It is deliberately small:
// the game itself travels in the binary `slitherrush_state` snapshots (docs/slitherrush.md says
// why), so this only carries what changes rarely.
import { schema, t, type SchemaType } from "@colyseus/schema";

export const SlitherRushState = schema(
  {
    arena_id: t.string(),
    player_count: t.uint8(),
    max_players: t.uint8(),
    tick_rate: t.uint8(),
    snapshot_rate: t.uint8(),
  },
  "SlitherRushState",
);
export type SlitherRushState = SchemaType<typeof SlitherRushState>;
