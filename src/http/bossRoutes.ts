// /api/boss: join (find or open a boss room for the caller), leave, the caller's stats, a room's
// status. Everything needs the session cookie. The battle itself runs in the Colyseus "boss" room;
// these routes only match callers to rooms and read what the rooms persisted.
import { Router, type Request, type Response } from "express";
import { createAuthContext, matchMaker, type AuthContext, type IRoomCache } from "@colyseus/core";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError, notFound } from "../errors.js";
import { currentUser, requireAuth } from "../auth/middleware.js";
import { MIN_BULLETS_TO_JOIN } from "../game/boss/constants.js";
import { BOSS_ROOM } from "../protocol/boss.js";
import { withTextRule } from "../protocol/text.js";
import type { BossLiveSummary, BossRoomCalls } from "../shared/roomCalls.js";
import { BossStore } from "../stores/boss.js";
import { parseWith } from "./validate.js";
import { matchmakeRefusal } from "./matchmake.js";
import { lostRoom, seatInOpenRoom } from "./bossSeat.js";
import { activeRedisRecovery } from "../shared/redisRecovery.js";
import { accountWriteLimit, accountWriteLimiter } from "./rateLimit.js";

const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const roomId = withTextRule(z.string({ message: "room_id must be a string" }), "identifier").regex(ROOM_ID_PATTERN, "room_id must be 1-64 letters, digits, '_' or '-'");
/**
 * What clients send with a join besides room_id: the spec's bullets, character and lives, and the
 * original client's guest and dev fields. Accepted, ignored (the server reads the progress record;
 * guests play through the room itself) and listed in `ignored_fields`; any other field is a 400.
 */
export const IGNORED_JOIN_FIELDS = ["bullets", "character", "lives", "dev_mode", "guest_id", "guest_name"] as const;
const joinBody = z
  .object({
    room_id: roomId.optional(),
    /** Take the seat here (a seat reservation in the answer) instead of naming a room to joinById. */
    reserve_seat: z.boolean({ message: "reserve_seat must be true or false" }).optional(),
    /** The room's join options (character, updates) for a reserved seat; the room checks them. */
    join_options: z.unknown().optional(),
    ...Object.fromEntries(IGNORED_JOIN_FIELDS.map((key) => [key, z.unknown().optional()])),
  })
  .strict()
  .refine((body) => body.join_options === undefined || body.reserve_seat === true, { message: "join_options applies only with reserve_seat: true", path: ["join_options"] });
/** How long Colyseus holds a reserved seat for its client (its DEFAULT_SEAT_RESERVATION_TIME, not exported). */
const SEAT_RESERVATION_MS = Number(process.env.COLYSEUS_SEAT_RESERVATION_TIME || 15) * 1000;

/** The original client also sends guest_id with a leave: accepted and ignored. */
const leaveBody = z.object({ room_id: roomId, guest_id: z.unknown().optional() }).strict();

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const round1 = (n: number) => Math.round(n * 10) / 10;

export function bossRoutes(ctx: AppContext): Router {
  const router = Router();
  const { logger } = ctx;
  const store = new BossStore(ctx.prisma);
  router.use(requireAuth(ctx));
  router.use(accountWriteLimit(accountWriteLimiter(ctx)));

  /** The live listing of a boss room, when one runs (on any process). */
  async function liveListing(id: string): Promise<IRoomCache | undefined> {
    const listing = await matchMaker.getRoomById(id);
    return listing?.name === BOSS_ROOM ? listing : undefined;
  }

  async function liveSummary(id: string): Promise<BossLiveSummary | undefined> {
    if (!(await liveListing(id))) return undefined;
    try {
      return await matchMaker.remoteRoomCall<BossRoomCalls, "liveSummary">(id, "liveSummary");
    } catch (err) {
      logger.warn({ err, roomId: id }, "boss room did not answer its live summary");
      return undefined;
    }
  }

  /** An open boss room: the preferred one if it can take a player, else the fullest that can. */
  async function openRoom(preferred?: string, skip: ReadonlySet<string> = new Set()): Promise<IRoomCache> {
    const open = (await matchMaker.query({ name: BOSS_ROOM })).filter(
      (r) => !r.locked && !r.private && r.clients < r.maxClients && r.metadata?.phase !== "defeated" && !skip.has(r.roomId),
    );
    const chosen = open.find((r) => r.roomId === preferred) ?? open.sort((a, b) => b.clients - a.clients)[0];
    return chosen ?? (await matchMaker.createRoom(BOSS_ROOM, {}));
  }

  // Picks and reservations run one at a time on this process: a reservation counts in the room's
  // listing before the next pick reads it, so a class clicking at once fills rooms in turn instead
  // of opening one each or crowding one. Other processes' picks can still win a seat first: retried.
  let placing: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(step: () => Promise<T>): Promise<T> {
    const turn = placing.then(step);
    placing = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Each account's reservation not yet redeemed, on this process: clicking again answers the same
   * seat while it waits, so one account cannot hold a room's seats by asking again and again.
   */
  const unredeemed = new Map<number, { listing: IRoomCache; reservation: Awaited<ReturnType<typeof matchMaker.reserveSeatFor>>; until: number }>();

  async function stillReserved(userId: number, preferred: string | undefined) {
    const now = Date.now();
    for (const [id, seat] of unredeemed) if (seat.until <= now) unredeemed.delete(id);
    const seat = unredeemed.get(userId);
    if (!seat || (preferred !== undefined && preferred !== seat.listing.roomId)) return undefined;
    const waiting = await matchMaker.remoteRoomCall(seat.listing.roomId, "hasReservedSeat", [seat.reservation.sessionId]).catch(() => false);
    if (waiting) return seat;
    unredeemed.delete(userId);
    return undefined;
  }

  /** A seat taken in an open boss room (the room's onAuth judges the caller first, as on a WebSocket join). */
  async function reserveSeat(req: Request, res: Response, preferred: string | undefined, options: unknown) {
    const userId = currentUser(req).id;
    const again = await stillReserved(userId, preferred);
    if (again) return again;
    const placed = await reserveNewSeat(req, res, preferred, options);
    unredeemed.set(userId, { ...placed, until: Date.now() + SEAT_RESERVATION_MS });
    return placed;
  }

  async function reserveNewSeat(req: Request, res: Response, preferred: string | undefined, options: unknown) {
    // As /matchmake (./matchmake.ts): a stopping process seats nobody; nor one whose Redis is away.
    if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN) {
      res.setHeader("Retry-After", "1");
      throw new AppError(503, "draining", "The server is stopping: join again to play on another process");
    }
    activeRedisRecovery()?.requireMatchmaking();
    const context = createAuthContext({ headers: req.headers as Record<string, string | undefined>, remoteAddress: ctx.proxies.clientAddress(req) });
    const joinOptions = (options ?? {}) as Record<string, unknown>;
    let authData;
    try {
      // The room's static onAuth, called as Colyseus' matchmaker calls it on a WebSocket join.
      const room = matchMaker.getRoomClass(BOSS_ROOM) as unknown as { onAuth(token: string | undefined, options: unknown, context: AuthContext): Promise<unknown> };
      authData = await room.onAuth(context.token, joinOptions, context);
    } catch (err) {
      throw matchmakeRefusal(err) ?? err;
    }
    return seatInOpenRoom({
      pickAndReserve: (lost) =>
        oneAtATime(async () => {
          const listing = await openRoom(preferred, lost);
          try {
            return { listing, reservation: await matchMaker.reserveSeatFor(listing, joinOptions, authData) };
          } catch (err) {
            throw lostRoom(err) ? Object.assign(err as Error, { lostRoomId: listing.roomId }) : err;
          }
        }),
      refusal: (err) => matchmakeRefusal(err) ?? err,
      onLost: (attempt, lost) => logger.info({ attempt, lost: [...lost] }, "boss join lost its room to other joins; picking another"),
    });
  }

  /** { room, players, live_players } of a boss room, or undefined when there is no such room. */
  async function roomDetails(id: string) {
    const row = await store.roomWithPlayers(id);
    if (!row) return undefined;
    const live = await liveSummary(id);
    const seated = row.players.filter((p) => p.leftAt === null);
    const bossHealth = live?.boss_health ?? row.bossHealth;
    return {
      room: {
        id: row.id,
        room_id: row.roomId,
        boss_health: bossHealth,
        max_boss_health: row.maxBossHealth,
        boss_health_percentage: row.maxBossHealth > 0 ? round1((bossHealth / row.maxBossHealth) * 100) : 0,
        is_active: row.isActive,
        is_completed: row.isCompleted,
        live: live !== undefined,
        phase: live?.phase ?? (row.isCompleted ? "defeated" : "closed"),
        player_count: live?.player_count ?? seated.filter((p) => p.isAlive).length,
        total_players: row.players.length,
        created_at: iso(row.createdAt),
        completed_at: iso(row.completedAt),
      },
      players: row.players.map((p) => ({
        id: p.id,
        user_id: p.userId,
        username: p.user.username,
        lives: p.lives,
        bullets_used: p.bulletsUsed,
        damage_dealt: p.damageDealt,
        is_alive: p.isAlive,
        victory: p.victory,
        joined_at: iso(p.joinedAt),
        left_at: iso(p.leftAt),
        died_at: iso(p.diedAt),
      })),
      /** Everyone in the live battle right now, guests included. */
      live_players: live?.players ?? [],
    };
  }

  router.post("/join", async (req: Request, res: Response) => {
    const body = parseWith(joinBody, req.body ?? {});
    const user = currentUser(req);
    const { totalBullets } = await store.ensureProgress(user.id);
    if (totalBullets < MIN_BULLETS_TO_JOIN) {
      throw new AppError(403, "not_enough_bullets", `You need at least ${MIN_BULLETS_TO_JOIN} bullets to fight the boss; you have ${totalBullets}`, {
        bullets: totalBullets,
        required: MIN_BULLETS_TO_JOIN,
      });
    }
    const placed = body.reserve_seat ? await reserveSeat(req, res, body.room_id, body.join_options) : { listing: await openRoom(body.room_id), reservation: undefined };
    const { listing, reservation } = placed;
    await store.ensureRoom(listing.roomId);
    const details = (await roomDetails(listing.roomId))!;
    res.json({
      message: "Joined boss battle",
      room_id: listing.roomId,
      room_name: BOSS_ROOM,
      ...details,
      join: reservation
        ? { room_name: BOSS_ROOM, room_id: listing.roomId, method: "consumeSeatReservation", reservation }
        : { room_name: BOSS_ROOM, room_id: listing.roomId, method: "joinById" },
      ignored_fields: IGNORED_JOIN_FIELDS.filter((key) => key in body),
    });
  });

  router.post("/leave", async (req: Request, res: Response) => {
    const body = parseWith(leaveBody, req.body ?? {});
    const user = currentUser(req);
    const key = await store.roomKey(body.room_id);
    if (key === undefined) throw notFound(`Boss room ${body.room_id} not found`);
    let removedLive = false;
    if (await liveListing(body.room_id)) {
      try {
        removedLive = Boolean(await matchMaker.remoteRoomCall<BossRoomCalls, "removeAccount">(body.room_id, "removeAccount", [user.id]));
      } catch (err) {
        logger.warn({ err, roomId: body.room_id }, "boss room did not answer a leave request");
      }
    }
    const closed = await store.markLeft(key, user.id);
    res.json({ message: "Left battle", room_id: body.room_id, left: removedLive || closed });
  });

  router.get("/stats", async (req: Request, res: Response) => {
    const user = currentUser(req);
    const s = await store.stats(user.id);
    const joined = s?.battlesJoined ?? 0;
    res.json({
      user_id: user.id,
      username: user.username,
      battles_joined: joined,
      battles_won: s?.battlesWon ?? 0,
      total_damage_dealt: s?.totalDamageDealt ?? 0,
      total_bullets_used: s?.totalBulletsUsed ?? 0,
      deaths: s?.deaths ?? 0,
      best_damage: s?.bestDamage ?? 0,
      win_rate: joined ? round1(((s?.battlesWon ?? 0) / joined) * 100) : 0,
      average_damage: joined ? round1((s?.totalDamageDealt ?? 0) / joined) : 0,
    });
  });

  router.get("/room/:room_id", async (req: Request, res: Response) => {
    const id = String(req.params.room_id);
    const wellFormed = ROOM_ID_PATTERN.test(id);
    const details = wellFormed ? await roomDetails(id) : undefined;
    // Only a well-formed id is echoed: a path can carry NUL, control and bidi characters.
    if (!details) throw notFound(wellFormed ? `Boss room ${id} not found` : "No boss room has this id (1-64 letters, digits, '_' or '-')");
    res.json(details);
  });

  return router;
}
