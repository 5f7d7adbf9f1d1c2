// Seat reservations nobody waits for. A matchmaker on one process reserves a seat in a room on
// another through presence (Colyseus' `_reserveSeat` over IPC) and gives up after
// COLYSEUS_PRESENCE_SHORT_TIMEOUT (2 s): it places the player elsewhere. A room whose process was
// paused meanwhile (a stall, a long GC) still receives the request when it resumes, and would hold
// that seat for the whole reservation window (15 s) for a client that never comes: in a duel, the
// waiting player's opponent seat. A join whose onAuth stamped its answer (`authedAt`) and whose
// reservation lands after the matchmaker's patience gets a short window instead: a client that
// really got it connects within a second or two (so a clock skew between processes costs nobody a
// seat), one whose matchmaker gave up never comes and the seat is free again in seconds.

/** How long Colyseus' matchmaker waits for a remote room to reserve a seat (its REMOTE_ROOM_SHORT_TIMEOUT). */
export const MATCHMAKER_PATIENCE_MS = Number(process.env.COLYSEUS_PRESENCE_SHORT_TIMEOUT || 2000);

/** The reservation window of a seat that landed late (Colyseus' default is 15 s). */
export const LATE_RESERVATION_SECONDS = 3;

/** What an onAuth answer carries so its reservation can be dated. */
export interface Stamped {
  /** Date.now() when onAuth answered (the matchmaker reserves the seat right after). */
  authedAt: number;
}

export function stamped<A extends object>(auth: A, now = Date.now()): A & Stamped {
  return { ...auth, authedAt: now };
}

/** Whether a reservation for this auth answer comes too late: the matchmaker has given up on it. */
export function abandonedReservation(authData: unknown, now = Date.now()): boolean {
  const at = (authData as Partial<Stamped> | undefined)?.authedAt;
  return typeof at === "number" && now - at > MATCHMAKER_PATIENCE_MS;
}

type ReserveSeat = (sessionId: string, options?: unknown, authData?: unknown, seconds?: number, allowReconnection?: boolean, ...rest: unknown[]) => Promise<boolean>;

/** Wraps the room's (private) `_reserveSeat`, which the matchmaker calls by name: a new seat reserved late is held briefly. */
export function shortenLateReservations(room: object, late: (sessionId: string, lateMs: number) => void): void {
  const target = room as { _reserveSeat: ReserveSeat };
  const reserve = target._reserveSeat.bind(room);
  target._reserveSeat = (sessionId, options, authData, seconds, allowReconnection, ...rest) => {
    if (!allowReconnection && abandonedReservation(authData)) {
      late(sessionId, Date.now() - (authData as Stamped).authedAt);
      seconds = Math.min(seconds ?? LATE_RESERVATION_SECONDS, LATE_RESERVATION_SECONDS);
    }
    return reserve(sessionId, options, authData, seconds, allowReconnection, ...rest);
  };
}
