// The SlitherRush protocol: the room name, join options, zod schemas of what clients send, and the
// payload types of what the server sends, keyed by message name. The snapshot (`slitherrush_state`)
// is binary: decode it with ./slitherrushSnapshot.ts. docs/slitherrush.md is the catalogue.
import { z } from "zod";
import { MAX_DIRECTION_COMPONENT } from "../game/slitherrush/constants.js";
import { PARTY_CODE_ALPHABET, PARTY_CODE_LENGTH, PARTY_CODE_PATTERN } from "../game/slitherrush/parties.js";
import type { LeaderboardRow } from "../game/slitherrush/arena.js";
import { displayNameSchema, roomIdSchema, type ErrorPayload, type ServerDrainingPayload, type TypedRoom } from "./common.js";
import { withTextRule } from "./text.js";
import type { ModeStatus } from "./modes.js";
import type { SlitherRushState } from "./slitherrushState.js";

export const SLITHERRUSH_ROOM = "slitherrush";

/** Party codes: 10 characters of Crockford's base32 (50 random bits); case does not matter. */
export { PARTY_CODE_ALPHABET, PARTY_CODE_LENGTH, PARTY_CODE_PATTERN };
/** The `party` join option that makes the joiner a party leader. */
export const CREATE_PARTY = "create";

const component = z.number().min(-MAX_DIRECTION_COMPONENT).max(MAX_DIRECTION_COMPONENT);
/** Any finite vector within ±1e6 per component; the server normalises it (zero keeps the heading). */
export const directionSchema = z.object({ x: component, y: component });

const partyCode = withTextRule(z.string(), "identifier")
  .transform((s) => s.trim().toUpperCase())
  .pipe(z.string().regex(PARTY_CODE_PATTERN, `a party code is ${PARTY_CODE_LENGTH} letters and digits`));

/**
 * Options of `joinOrCreate("slitherrush", options)`. Unknown keys are dropped (the original client
 * also sends avatar, character and a free-text party_id, which the server never trusts).
 */
export const slitherrushJoinOptionsSchema = z
  .object({
    /** Display name of a guest (accounts play under their account name). */
    username: displayNameSchema.optional(),
    /** "create": lead a new party; a party code: join that party's arena. */
    party: z.union([z.literal(CREATE_PARTY), partyCode]).optional(),
    /** Initial heading. */
    direction: directionSchema.optional(),
  })
  .optional();
export type SlitherRushJoinOptions = z.infer<typeof slitherrushJoinOptionsSchema>;

const arenaRef = roomIdSchema.optional();

export const inputSchema = z
  .object({
    direction: directionSchema.optional(),
    shoot: z.boolean().optional(),
    /** Sent by the original client; never fires a bullet (only `shoot` does). */
    sprint: z.boolean().optional(),
    boost: z.boolean().optional(),
    boosting: z.boolean().optional(),
    /** When present it must name the sender's arena. */
    arena_id: arenaRef,
  })
  .refine((m) => m.direction !== undefined || m.shoot !== undefined, { message: "needs direction or shoot", path: ["direction"] });

const arenaOnly = z.object({ arena_id: arenaRef }).optional();

/** Client → server: message name → payload schema. */
export const slitherrushInbound = {
  slitherrush_input: inputSchema,
  /** Asks for a full resynchronising snapshot (the snake already respawned when it died). */
  slitherrush_play_again: arenaOnly,
  /** Leaves the arena (the server closes the connection). */
  slitherrush_leave: arenaOnly,
  /** Answered with slitherrush_status. */
  slitherrush_get_status: z.object({}).optional(),
  /** The original's join event: here joining is the Colyseus join; this re-sends slitherrush_joined (extra keys are dropped). */
  slitherrush_join: z.object({}).optional(),
};

// ------------------------------------------------------------------------------------------------
// Outbound payloads
// ------------------------------------------------------------------------------------------------

export interface JoinedPayload {
  arena_id: string;
  /** The joiner's id in every other message: its Colyseus sessionId. */
  player_id: string;
  role: "player";
  /** The joiner's snake on the wire (`slot` in snapshots). */
  slot: number;
  /** Present when the join created a party: the code its members join with. */
  party_code?: string;
  /** The party this player belongs to (leader or member). */
  party?: { code: string; leader: boolean };
  bounds: { width: number; height: number };
  tick_rate: number;
  snapshot_rate: number;
  /** World pixels around the head a client is sent (plus margins): see docs/slitherrush.md. */
  view: { width: number; height: number };
  /** Layout version of the binary slitherrush_state. */
  snapshot_version: number;
}

export type LeaderboardEntry = LeaderboardRow;

export interface LeaderboardPayload {
  /** Top 5 by score, then kills, then length. The receiver's own rank rides in every snapshot. */
  leaderboard: LeaderboardEntry[];
  player_count: number;
}

export interface DeathPayload {
  player_id: string;
  killer_id: string | null;
  reason: "shot" | "left" | "disconnect";
}

/** Server → client: message name → payload (`slitherrush_state` is binary). */
export interface SlitherRushOutbound {
  /** This process is stopping: matchmake again (protocol/common.ts). */
  server_draining: ServerDrainingPayload;
  slitherrush_joined: JoinedPayload;
  slitherrush_state: Uint8Array;
  slitherrush_leaderboard_update: LeaderboardPayload;
  slitherrush_death: DeathPayload;
  slitherrush_status: ModeStatus;
  error: ErrorPayload;
}

/** `sdk.joinOrCreate<SlitherRushRoomType>("slitherrush", options)` */
export type SlitherRushRoomType = TypedRoom<typeof slitherrushInbound, SlitherRushOutbound, SlitherRushState>;
