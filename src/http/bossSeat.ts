// POST /api/boss/join { reserve_seat: true }: the seat is taken where the room is picked. Another
// process's joins (or the room's closing) can still take the picked room away between the pick and
// the reservation; such a loss is not the caller's fault, so the next pick (without the rooms lost
// so far) is tried, a few times, before the caller is told to join again.
import { ErrorCode } from "@colyseus/core";
import { AppError } from "../errors.js";

/** How many rooms a reserved join tries before giving up. */
export const SEAT_ATTEMPTS = 5;

/** A reservation that lost its room to concurrent joins (full, locked) or to its closing (gone): try another. */
export function lostRoom(err: unknown): boolean {
  const { code, message = "" } = (err ?? {}) as { code?: unknown; message?: string };
  // Colyseus' SeatReservationError (not exported) carries no code, only these messages.
  return code === ErrorCode.MATCHMAKE_INVALID_ROOM_ID || /is already full|is no longer available|is not available/.test(message);
}

export interface SeatSteps<T> {
  /** Picks a room outside `lost` and reserves a seat there; a lost room's error carries `lostRoomId`. */
  pickAndReserve(lost: ReadonlySet<string>): Promise<T>;
  /** What the caller is told of any other failure. */
  refusal(err: unknown): unknown;
  onLost?(attempt: number, lost: ReadonlySet<string>): void;
}

export async function seatInOpenRoom<T>(steps: SeatSteps<T>, attempts = SEAT_ATTEMPTS): Promise<T> {
  const lost = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    try {
      return await steps.pickAndReserve(lost);
    } catch (err) {
      if (!lostRoom(err)) throw steps.refusal(err);
      const roomId = (err as { lostRoomId?: unknown }).lostRoomId;
      if (typeof roomId === "string") lost.add(roomId);
      if (attempt >= attempts) throw new AppError(409, "room_full", "Every boss battle filled up meanwhile: join again");
      steps.onLost?.(attempt, lost);
    }
  }
}
