// A class clicking "boss battle" at once: 40 accounts POST /api/boss/join { reserve_seat: true }
// and redeem the seat it reserved with the SDK (what web/play/src/screens/boss.ts does), all at the
// same moment; then a dozen of them leave and come straight back while the others are still
// arriving. Nobody is refused (no 404 for a room gone, no 409 for a room full or a seat held
// elsewhere), and no room seats more than 10. Naming a room and joining it by id (the answer
// without reserve_seat) refused 20 of these 52 joins with 409 "The room takes no more players".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ColyseusClient, type Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets } from "../helpers/boss.js";
import { matchMaker } from "@colyseus/core";
import { MAX_PLAYERS } from "../../src/game/boss/constants.js";

const CLASS_SIZE = 40;
const REJOINERS = 12;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

describe("a class joining the boss battle at once", () => {
  it("seats 40 simultaneous joins and a dozen leave-and-rejoins without one refusal", async () => {
    const students = await Promise.all(Array.from({ length: CLASS_SIZE }, () => accountWithBullets(t, 50)));
    const errors: string[] = [];
    const seated = new Map<number, SdkRoom>();
    /** /play's join: the REST join reserves a seat, the SDK redeems it. */
    const join = async (i: number) => {
      const { cookie } = students[i];
      try {
        const answer = await t.http({ cookie }).post("/api/boss/join", { reserve_seat: true });
        if (answer.status !== 200) throw Object.assign(new Error(`POST /api/boss/join: ${answer.text}`), { code: answer.status });
        const sdk = new ColyseusClient(t.wsUrl, { headers: { cookie } });
        expect(answer.body.join).toMatchObject({ method: "consumeSeatReservation", room_id: answer.body.room_id, reservation: { roomId: answer.body.room_id } });
        seated.set(i, await sdk.consumeSeatReservation(answer.body.join.reservation));
      } catch (err) {
        errors.push(`student ${i}: ${(err as Error).message} (${(err as { code?: number }).code})`);
      }
    };
    // The first 28 at once; the last 12 arrive while the first 12 leave and click again.
    await Promise.all(students.slice(0, CLASS_SIZE - REJOINERS).map((_, i) => join(i)));
    await Promise.all([
      ...students.slice(CLASS_SIZE - REJOINERS).map((_, k) => join(CLASS_SIZE - REJOINERS + k)),
      ...Array.from({ length: REJOINERS }, async (_, i) => {
        const room = seated.get(i);
        seated.delete(i);
        await room?.leave();
        await join(i);
      }),
    ]);
    expect(errors).toEqual([]);
    expect(seated.size).toBe(CLASS_SIZE);
    const perRoom = new Map<string, number>();
    for (const room of seated.values()) perRoom.set(room.roomId, (perRoom.get(room.roomId) ?? 0) + 1);
    expect(Math.max(...perRoom.values())).toBeLessThanOrEqual(MAX_PLAYERS);
    // Rooms fill in turn (not one opened per click): 4 full rooms, and at most 2 more for the seats
    // left behind by the leavers.
    console.log(`[bossJoinRace] the class sits in ${perRoom.size} rooms: ${[...perRoom.values()].join(", ")}`);
    expect(perRoom.size).toBeGreaterThanOrEqual(CLASS_SIZE / MAX_PLAYERS);
    expect(perRoom.size).toBeLessThanOrEqual(CLASS_SIZE / MAX_PLAYERS + 2);
    await Promise.all([...seated.values()].map((room) => room.leave()));
  }, 60_000);
});

describe("POST /api/boss/join with reserve_seat", () => {
  const post = (cookie: string, body: unknown) => t.http({ cookie }).post("/api/boss/join", body);

  it("refuses what it cannot seat, in the house shape", async () => {
    const poor = await accountWithBullets(t, 7);
    expect((await post(poor.cookie, { reserve_seat: true })).body.error.code).toBe("not_enough_bullets");
    const rich = await accountWithBullets(t, 50);
    const notBoolean = await post(rich.cookie, { reserve_seat: "yes" });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.error).toMatchObject({ code: "validation_failed", message: expect.stringMatching(/reserve_seat must be true or false/) });
    const optionsAlone = await post(rich.cookie, { join_options: { character: "wizard" } });
    expect(optionsAlone.status).toBe(400);
    expect(optionsAlone.body.error.message).toMatch(/join_options applies only with reserve_seat: true/);
    // The room's own join-options check, as on a WebSocket join.
    const badOptions = await post(rich.cookie, { reserve_seat: true, join_options: { character: "dragon" } });
    expect(badOptions.status).toBe(400);
    expect(badOptions.body.error).toMatchObject({ code: "invalid_join", message: expect.stringMatching(/invalid join options/) });
  });

  it("seats the caller in the preferred room with its join options; a full preferred room gives way to another", async () => {
    const first = await accountWithBullets(t, 50);
    const answer = await post(first.cookie, { reserve_seat: true, join_options: { character: "archer", updates: "messages" } });
    expect(answer.status).toBe(200);
    const roomId = answer.body.room_id;
    const sdk = (cookie: string) => new ColyseusClient(t.wsUrl, { headers: { cookie } });
    const rooms = [await sdk(first.cookie).consumeSeatReservation(answer.body.join.reservation)];
    const state = await new Promise<any>((resolve) => rooms[0].onMessage("boss_room_state", resolve));
    expect(state.self).toMatchObject({ character: "archer", bullets: 50 });
    // Nine more fill it (the preferred room each time), the eleventh is seated elsewhere.
    for (let i = 1; i <= MAX_PLAYERS; i++) {
      const next = await accountWithBullets(t, 20);
      const seat = await post(next.cookie, { reserve_seat: true, room_id: roomId });
      expect(seat.status).toBe(200);
      expect(seat.body.room_id === roomId).toBe(i < MAX_PLAYERS);
      rooms.push(await sdk(next.cookie).consumeSeatReservation(seat.body.join.reservation));
    }
    await Promise.all(rooms.map((room) => room.leave()));
  }, 30_000);
});

describe("an account asking again before it redeems its seat", () => {
  it("gets the same seat back, so repeated clicks hold one seat; once redeemed, the next ask is a new one", async () => {
    const student = await accountWithBullets(t, 50);
    const ask = () => t.http({ cookie: student.cookie }).post("/api/boss/join", { reserve_seat: true });
    const answers = [await ask(), await ask(), await ask()];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const sessions = new Set(answers.map((a) => a.body.join.reservation.sessionId));
    expect(sessions.size).toBe(1);
    const roomId = answers[0].body.room_id;
    expect((await matchMaker.getRoomById(roomId))?.clients).toBe(1);
    const room = await new ColyseusClient(t.wsUrl, { headers: { cookie: student.cookie } }).consumeSeatReservation(answers[2].body.join.reservation);
    expect(room.sessionId).toBe([...sessions][0]);
    const after = await ask();
    expect(after.status).toBe(200);
    expect(after.body.join.reservation.sessionId).not.toBe(room.sessionId);
    await room.leave();
  });
});
