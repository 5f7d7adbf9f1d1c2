// Payloads the SlitherRush room builds from the simulation.
import { ARENA_HEIGHT, ARENA_WIDTH, TICK_RATE, TICKS_PER_SNAPSHOT } from "../../game/slitherrush/constants.js";
import type { Snake } from "../../game/slitherrush/arena.js";
import { VIEW_HEIGHT, VIEW_WIDTH } from "../../game/slitherrush/interest.js";
import type { Party } from "../../game/slitherrush/parties.js";
import { SNAPSHOT_VERSION } from "../../game/slitherrush/wireFormat.js";
import type { JoinedPayload } from "../../protocol/slitherrush.js";

/** `slitherrush_joined`; `party_code` only to a leader whose join just created the party. */
export function joinedPayload(arenaId: string, snake: Snake, party: Party | undefined, createdParty: boolean): JoinedPayload {
  return {
    arena_id: arenaId,
    player_id: snake.id,
    role: "player",
    slot: snake.slot,
    ...(createdParty && party ? { party_code: party.code } : {}),
    ...(party ? { party: { code: party.code, leader: party.leader === snake.id } } : {}),
    bounds: { width: ARENA_WIDTH, height: ARENA_HEIGHT },
    tick_rate: TICK_RATE,
    snapshot_rate: TICK_RATE / TICKS_PER_SNAPSHOT,
    view: { width: VIEW_WIDTH, height: VIEW_HEIGHT },
    snapshot_version: SNAPSHOT_VERSION,
  };
}
