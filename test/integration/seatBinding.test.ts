// A seat belongs to its account, and a session that ends takes its seats with it (issue 37;
// docs/security.md "Accounts, sessions and seats"). Real server, real accounts (signed in through
// /api/auth), Colyseus SDK clients presenting a dropped seat's reconnection token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually, joined, serverBossRoom, type MessageLog } from "../helpers/boss.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { BOSS_HOME } from "../../src/game/boss/constants.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import { SESSION_ENDED } from "../../src/protocol/closeCodes.js";
import { SEAT_OF_ANOTHER_ACCOUNT } from "../../src/rooms/kit/room.js";
import { SESSION_POLL_MS } from "../../src/rooms/kit/sessionSeats.js";
import { SessionRegistry } from "../../src/auth/sessions.js";
import { LocalSessionEvents } from "../../src/shared/sessionEvents.js";

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs("info");
  t = await startTestApp({}, { logger: logs.logger });
});
afterAll(() => t?.stop());

const PASSWORD = "correct horse battery";

/** A signed-in account (a real session through /api/auth) holding `bullets`. */
async function signedIn(bullets = 20) {
  const acc = await t.account(undefined, PASSWORD);
  await t.prisma.gameProgress.upsert({ where: { userId: acc.user.id }, create: { userId: acc.user.id, totalBullets: bullets }, update: { totalBullets: bullets } });
  return acc;
}

interface Seated {
  room: SdkRoom;
  log: MessageLog;
  sid: string;
  server: BossRoom;
  /** The SDK's `roomId:token`, as `client.reconnect` takes it. */
  token: string;
}

/** Joins a fresh quiet boss room (no boss attacks, no powerups) with `cookie` (a guest without). */
async function seated(cookie?: string, options: Record<string, unknown> = {}): Promise<Seated> {
  const { room, log } = await joined(t.joinNewRoom("boss", options, cookie));
  room.reconnection.minUptime = Infinity; // the SDK never comes back by itself: the tests decide who presents the token
  const server = serverBossRoom(room.roomId);
  Object.assign(server.battle.tuning, { bossMoves: false, bossAttacks: false, powerupSpawns: false });
  Object.assign(server.battle.boss, { x: BOSS_HOME.x, y: BOSS_HOME.y });
  server.battle.projectiles = [];
  return { room, log, sid: room.sessionId, server, token: room.reconnectionToken };
}

/** Fires `n` shots upwards (away from the boss) and waits until the room counted them. */
async function fire(s: Seated, n: number) {
  const player = s.server.battle.players.get(s.sid)!;
  for (let i = 0; i < n; i++) {
    const before = player.bulletsFired;
    await eventually(() => player.fireCharge >= 1, "a shot recharged");
    s.room.send("boss_player_shoot", { dx: 0, dy: -1 });
    await eventually(() => player.bulletsFired === before + 1, "the shot counted");
  }
}

/** A network drop: the server side of the socket dies without a close frame; the seat waits. */
async function drop(s: Seated) {
  const client = s.server.clients.getById(s.sid)!;
  // Colyseus opens a reconnection window only for a client whose join the SDK acknowledged.
  await eventually(() => (client as unknown as { _enqueuedMessages?: unknown })._enqueuedMessages === undefined, "the join acknowledged");
  (client.ref as unknown as { terminate(): void }).terminate();
  await eventually(() => s.server.seats.get(s.sid)?.away === true, "the seat held for reconnection");
}

const storedBullets = async (userId: number) => (await t.prisma.gameProgress.findUniqueOrThrow({ where: { userId } })).totalBullets;
const refusals = () => logs.lines.filter((l) => l.level === 40 && /refused a reconnection into an account's seat/.test(l.msg));
const closed = (room: SdkRoom) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

describe("a seat is bound to its account", () => {
  it("another signed-in account presenting A's token is refused: A's seat, bullets and stats unchanged, one warn line with both ids", async () => {
    const a = await signedIn(20);
    const b = await signedIn(20);
    const s = await seated(a.cookie);
    await fire(s, 2);
    await drop(s);
    const player = s.server.battle.players.get(s.sid)!;
    const before = { bullets: player.bullets, fired: player.bulletsFired, stored: await storedBullets(a.user.id) };
    const warnsBefore = refusals().length;

    const err = await t.sdk(b.cookie).reconnect(s.token).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe(403);
    expect(err.message).toBe(SEAT_OF_ANOTHER_ACCOUNT);

    expect(s.server.seats.get(s.sid)).toMatchObject({ away: true });
    expect(s.server.battle.players.get(s.sid)).toBe(player);
    expect({ bullets: player.bullets, fired: player.bulletsFired, stored: await storedBullets(a.user.id) }).toEqual(before);
    const warned = refusals().slice(warnsBefore);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ owner: a.user.id, presenter: b.user.id, sid: s.sid, roomId: s.room.roomId });

    // No cookie at all (a guest's client) is refused the same way.
    const bare = await t.sdk().reconnect(s.token).catch((e) => e);
    expect(bare.code).toBe(403);
    expect(refusals().slice(warnsBefore)).toHaveLength(2);
    expect(refusals().at(-1)).toMatchObject({ owner: a.user.id, presenter: "none (no live session)" });
    expect(s.server.seats.get(s.sid)).toMatchObject({ away: true });

    // A itself, signed in, takes its seat back with the same token.
    const back = await t.sdk(a.cookie).reconnect(s.token);
    expect(back.sessionId).toBe(s.sid);
    await eventually(() => s.server.seats.get(s.sid)?.away === false, "A back in its seat");
    expect(player.bullets).toBe(before.bullets);
    await back.leave();
    await eventually(async () => (await storedBullets(a.user.id)) === 18, "A's two shots written on leave");
  });

  it("a guest's seat is reconnected by its token alone", async () => {
    const s = await seated(undefined, { bullets: 20, username: "Gus" });
    await drop(s);
    const back = await t.sdk().reconnect(s.token);
    expect(back.sessionId).toBe(s.sid);
    await eventually(() => s.server.seats.get(s.sid)?.away === false, "the guest back in its seat");
    await back.leave();
  });
});

describe("a session that ends takes its seats with it", () => {
  it("signing out while dropped ends the window at once: the token no longer reconnects, nothing more is spent", async () => {
    const a = await signedIn(20);
    const s = await seated(a.cookie);
    await fire(s, 3);
    await drop(s);
    expect((await a.http.post("/api/auth/logout")).status).toBe(200);
    await eventually(() => s.server.seats.get(s.sid) === undefined, "the seat released");
    await eventually(async () => (await storedBullets(a.user.id)) === 17, "the three shots written as on a leave");
    const stats = await t.prisma.bossPlayer.findFirstOrThrow({ where: { userId: a.user.id } });
    expect(stats.leftAt).not.toBeNull();

    const err = await t.sdk(a.cookie).reconnect(s.token).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect([403, 410]).toContain(err.code);
    expect(await t.sdk().reconnect(s.token).catch((e) => e.code)).not.toBeUndefined();
    expect(await storedBullets(a.user.id)).toBe(17);
  });

  it(`signing out while connected closes the connection with ${SESSION_ENDED} within 10 s and writes what it earned`, async () => {
    const a = await signedIn(20);
    const s = await seated(a.cookie);
    await fire(s, 2);
    const code = closed(s.room);
    const at = Date.now();
    expect((await a.http.post("/api/auth/logout")).status).toBe(200);
    expect(await code).toBe(SESSION_ENDED);
    expect(Date.now() - at).toBeLessThan(10_000);
    await eventually(() => s.server.seats.get(s.sid) === undefined, "the seat released (no reconnection window)");
    await eventually(async () => (await storedBullets(a.user.id)) === 18, "the two shots written");
    const row = await t.prisma.bossPlayer.findFirstOrThrow({ where: { userId: a.user.id } });
    expect(row.leftAt).not.toBeNull();
  });

  it("the operator's logout-user closes every connection of the account", async () => {
    const a = await signedIn(20);
    const s = await seated(a.cookie);
    await fire(s, 1);
    const code = closed(s.room);
    await t.app.ctx.sessions.endAllSessions({ kind: "account", id: a.user.id });
    expect(await code).toBe(SESSION_ENDED);
    await eventually(async () => (await storedBullets(a.user.id)) === 19, "the shot written");
  });

  it("a logout-user that no event tells this process about (another process on PostgreSQL without Redis) closes the connection within a few seconds", async () => {
    const a = await signedIn(20);
    const s = await seated(a.cookie);
    await fire(s, 1);
    const code = closed(s.room);
    const at = Date.now();
    // What `npm run admin -- logout-user` does in a process of its own: the same database, no shared events.
    await new SessionRegistry(t.prisma, new LocalSessionEvents()).endAllSessions({ kind: "account", id: a.user.id });
    expect(await code).toBe(SESSION_ENDED);
    expect(Date.now() - at).toBeLessThan(SESSION_POLL_MS + 3000);
    await eventually(async () => (await storedBullets(a.user.id)) === 19, "the shot written");
  });

  it("a password change closes the connections of the old session; the new session plays on", async () => {
    const a = await signedIn(20);
    const s = await seated(a.cookie);
    const code = closed(s.room);
    const res = await a.http.post("/api/auth/password", { current_password: PASSWORD, new_password: "another horse battery" });
    expect(res.status).toBe(200);
    expect(await code).toBe(SESSION_ENDED);
    await eventually(() => s.server.seats.get(s.sid) === undefined, "the seat released");
    const again = await seated(a.http.cookieHeader);
    expect(again.server.seats.get(again.sid)?.identity).toMatchObject({ userId: a.user.id });
    await again.room.leave();
  });

  it("an expired token: a connected seat is closed at its exp, a dropped seat's window ends at its exp", async () => {
    const a = await signedIn(20);
    const short = `${t.config.jwtCookieName}=${t.app.ctx.tokens.sign(a.user.id, 3)}`;
    const s = await seated(short);
    const code = closed(s.room);
    await fire(s, 1);
    expect(await code).toBe(SESSION_ENDED);
    await eventually(async () => (await storedBullets(a.user.id)) === 19, "the shot written");

    const b = await signedIn(20);
    const shortB = `${t.config.jwtCookieName}=${t.app.ctx.tokens.sign(b.user.id, 3)}`;
    const d = await seated(shortB);
    await drop(d);
    await eventually(() => d.server.seats.get(d.sid) === undefined, "the window ended at exp", 8000);
    expect(await t.sdk(shortB).reconnect(d.token).catch((e) => e.code)).toBeDefined();
  });
});
