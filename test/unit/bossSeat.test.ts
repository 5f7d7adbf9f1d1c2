// POST /api/boss/join { reserve_seat: true }: a reservation that lost its room to other joins is
// retried on the next pick without that room; anything else is the caller's answer at once.
import { describe, expect, it } from "vitest";
import { ErrorCode } from "@colyseus/core";
import { AppError } from "../../src/errors.js";
import { lostRoom, SEAT_ATTEMPTS, seatInOpenRoom } from "../../src/http/bossSeat.js";

/** Colyseus' own failures, as its matchmaker throws them (SeatReservationError has no code). */
const full = (roomId: string) => Object.assign(new Error(`${roomId} is already full.`), { lostRoomId: roomId });
const locked = (roomId: string) => Object.assign(new Error(`room "${roomId}" is locked`), { code: ErrorCode.MATCHMAKE_INVALID_ROOM_ID, lostRoomId: roomId });

describe("lostRoom", () => {
  it.each([
    ["a full room", new Error("r1 is already full.")],
    ["a room discarded as a duplicate", new Error("room r1 is no longer available.")],
    ["a room on a process that stopped answering", new Error("process p2 is not available.")],
    ["a locked or disposed room", Object.assign(new Error('room "r1" not found'), { code: ErrorCode.MATCHMAKE_INVALID_ROOM_ID })],
  ])("is true for %s", (_what, err) => expect(lostRoom(err)).toBe(true));

  it.each([
    ["the room's refusal (bullets)", Object.assign(new Error("need at least 10 bullets, you have 3"), { code: 403 })],
    ["a database failure", new Error("connect ECONNREFUSED 127.0.0.1:5432")],
    ["nothing", undefined],
  ])("is false for %s", (_what, err) => expect(lostRoom(err)).toBe(false));
});

describe("seatInOpenRoom", () => {
  it("tries the next pick without the rooms lost so far, and returns the first seat taken", async () => {
    const asked: string[][] = [];
    const seat = await seatInOpenRoom({
      pickAndReserve: async (lost) => {
        asked.push([...lost]);
        if (asked.length === 1) throw full("a");
        if (asked.length === 2) throw locked("b");
        return "seat in c";
      },
      refusal: (err) => err,
    });
    expect(seat).toBe("seat in c");
    expect(asked).toEqual([[], ["a"], ["a", "b"]]);
  });

  it(`answers 409 room_full after ${SEAT_ATTEMPTS} rooms lost in a row`, async () => {
    let tries = 0;
    const err = await seatInOpenRoom({ pickAndReserve: async () => { throw full(`r${++tries}`); }, refusal: (e) => e }).catch((e: unknown) => e);
    expect(tries).toBe(SEAT_ATTEMPTS);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 409, code: "room_full" });
  });

  it("answers any other failure at once, through refusal", async () => {
    let tries = 0;
    const refused = new AppError(403, "forbidden", "need at least 10 bullets");
    const err = await seatInOpenRoom({
      pickAndReserve: async () => {
        tries++;
        throw Object.assign(new Error("need at least 10 bullets"), { code: 403 });
      },
      refusal: () => refused,
    }).catch((e: unknown) => e);
    expect(tries).toBe(1);
    expect(err).toBe(refused);
  });
});
