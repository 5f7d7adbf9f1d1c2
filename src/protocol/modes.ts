// Live mode status: what the mode selection page shows. `GET /api/modes/status` answers it over
// REST; the `mode_select` room pushes it to its clients when the numbers change.
import { z } from "zod";
import type { ErrorPayload, ServerDrainingPayload, TypedRoom } from "./common.js";

export const MODE_SELECT_ROOM = "mode_select";

/** The real-time modes, by their room names. */
export const MODES = ["boss", "pvp", "slitherrush"] as const;
export type Mode = (typeof MODES)[number];

export interface ModeStatus {
  /** Players connected to the mode's rooms, on every process, whatever phase a room is in (finished ones too). */
  totalPlayers: number;
  /** Rooms of the mode with at least one client. */
  activeRooms: number;
  /** Free seats in existing rooms that matchmaking may still fill (unlocked, public). */
  openSlots: number;
}

/** GET /api/modes/status */
export type ModesStatusBody = Record<Mode, ModeStatus>;

/** A pushed status: the mode's numbers, and how many clients watch the mode selection. */
export interface ModeStatusPayload extends ModeStatus {
  viewerCount: number;
}

/** Options of `joinOrCreate("mode_select")`: none (a viewer is anonymous). */
export const modeSelectJoinOptionsSchema = z.object({}).optional();

/** Client → server, `mode_select` room: ask for a status now (it is also pushed on change). */
export const modeSelectInbound = {
  pvp_get_status: z.object({}).optional(),
  slitherrush_get_status: z.object({}).optional(),
  boss_get_status: z.object({}).optional(),
};

/** Server → client, `mode_select` room. */
export interface ModeSelectOutbound {
  /** This process is stopping: matchmake again (protocol/common.ts). */
  server_draining: ServerDrainingPayload;
  pvp_status: ModeStatusPayload;
  slitherrush_status: ModeStatusPayload;
  boss_status: ModeStatusPayload;
  error: ErrorPayload;
}

export type ModeSelectRoomType = TypedRoom<typeof modeSelectInbound, ModeSelectOutbound>;
