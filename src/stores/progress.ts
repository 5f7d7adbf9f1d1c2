// Database operations on the progress record, one function per operation. Every decision that
// depends on stored state is made by the database inside the statement that writes (a conditional
// UPDATE with a `where` guard, `increment`, `push`), never by reading a value into JavaScript and
// writing it back, so concurrent requests cannot lose or double an update.
import { AsyncLocalStorage } from "node:async_hooks";
import { Prisma, type PrismaClient, type GameProgress } from "../db/generated/client.js";
import { writeNoticesOf, type WriteNotices } from "../db/client.js";
import { isDatabaseUnreachable } from "../db/unreachable.js";
import {
  ACTIVE_PLAYERS_MAX_LISTED,
  ACTIVE_PLAYER_WINDOW_MS,
  ALL_LESSONS,
  BOARD_FINAL_SQUARE,
  DEFAULT_CHARACTER,
  INITIAL_SECTIONS,
  MAX_BONUS_BULLETS_PER_GAME,
  STARTING_LIVES,
  answerUnlocksBoss,
  bulletsForAnswer,
  sectionRequiredFor,
  visitedOnArrival,
  type Character,
  type Section,
} from "../game/progress.js";

type Db = PrismaClient | Prisma.TransactionClient;

export type ProgressWithUser = GameProgress & { user: { username: string } };

const withUsername = { user: { select: { username: true } } } as const;

/** PGlite runs one transaction at a time, so waiting for a turn may take longer than Prisma's 2 s default. */
const INTERACTIVE_TX = { maxWait: 10_000, timeout: 10_000 } as const;

export type MoveRefusal = { ok: false; reason: "section_locked"; requiredSection: Section };

/** The where-clause that lets a write through only when the player may stand on `square`. */
function mayEnter(square: number): Prisma.GameProgressWhereInput {
  const required = sectionRequiredFor(square);
  return required ? { unlockedSections: { has: required } } : {};
}

function refusal(square: number): MoveRefusal {
  return { ok: false, reason: "section_locked", requiredSection: sectionRequiredFor(square)! };
}

/** One row of game_progress (as PostgreSQL names its columns) joined with the user's name. */
interface ProgressRow {
  id: number;
  user_id: number;
  current_square: number;
  total_bullets: number;
  lives: number;
  game_status: string;
  completed_at: Date | null;
  champion_at: Date | null;
  boss_battle_attempts: number;
  boss_victories: number;
  bonus_bullets: number;
  completed_lessons: number[];
  visited_squares: number[];
  unlocked_sections: string[];
  character: string;
  time_played: number;
  created_at: Date;
  updated_at: Date;
  username: string;
}

function fromRow(r: ProgressRow): ProgressWithUser {
  return {
    id: r.id,
    userId: r.user_id,
    currentSquare: r.current_square,
    totalBullets: r.total_bullets,
    lives: r.lives,
    gameStatus: r.game_status,
    completedAt: r.completed_at,
    championAt: r.champion_at,
    bossBattleAttempts: r.boss_battle_attempts,
    bossVictories: r.boss_victories,
    bonusBullets: r.bonus_bullets,
    completedLessons: r.completed_lessons,
    visitedSquares: r.visited_squares,
    unlockedSections: r.unlocked_sections,
    character: r.character,
    timePlayed: r.time_played,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    user: { username: r.username },
  };
}

// Reads and the hot writes are single SQL statements returning the record with the user's name, so
// a request costs one database round trip: Prisma's findUnique with `include` makes two, and a
// write followed by a re-read three or more (on the embedded database each costs ~1 ms of CPU).

export async function findProgress(db: Db, userId: number): Promise<ProgressWithUser | null> {
  const load = async () => {
    const rows = await db.$queryRaw<ProgressRow[]>`
      SELECT p.*, u.username FROM game_progress p JOIN users u ON u.id = p.user_id WHERE p.user_id = ${userId}`;
    return rows.length ? fromRow(rows[0]) : null;
  };
  const cache = cacheOf(db);
  return cache ? cache.read(userId, load) : load();
}

// The embedded database belongs to this process alone, and a progress record is read far more
// often than written: there, records are kept in memory after a read. Every write the database
// commits is announced (writeNoticesOf, src/db/client.ts): a write of this module (which knows the
// account it writes, asWriterOf) forgets that account's record; any other write to the records or
// the users (a battle's bullets, a registration, a direct write in a test) forgets them all. A read
// that overlapped any forgetting does not keep what it read. PostgreSQL has no cache: other
// processes write there too.

/** Records kept at most (an active player's record is ~1 KB). */
export const PROGRESS_CACHE_ENTRIES = 10_000;
const TOUCHES_RECORDS = /game_progress|\busers\b/i;

class ProgressCache {
  private readonly records = new Map<number, ProgressWithUser>();
  /** Counts forgettings: a read that saw it change does not keep its result. */
  private generation = 0;

  constructor(writes: WriteNotices) {
    writes.listen((sql) => {
      const writer = progressWriter.getStore();
      if (typeof writer === "number") this.forget(writer);
      else if (writer !== undefined) for (const account of writer) this.forget(account);
      else if (TOUCHES_RECORDS.test(sql)) this.forgetAll();
    });
  }

  async read(userId: number, load: () => Promise<ProgressWithUser | null>): Promise<ProgressWithUser | null> {
    const kept = this.records.get(userId);
    if (kept) return kept;
    const generation = this.generation;
    const progress = await load();
    if (progress && generation === this.generation) {
      if (this.records.size >= PROGRESS_CACHE_ENTRIES) this.records.delete(this.records.keys().next().value!);
      this.records.set(userId, frozen(progress));
    }
    return progress;
  }

  forget(userId: number): void {
    this.generation++;
    this.records.delete(userId);
  }

  forgetAll(): void {
    this.generation++;
    this.records.clear();
  }
}

/** Shared by every caller: nobody may change it in place. */
function frozen(p: ProgressWithUser): ProgressWithUser {
  Object.freeze(p.completedLessons);
  Object.freeze(p.visitedSquares);
  Object.freeze(p.unlockedSections);
  Object.freeze(p.user);
  return Object.freeze(p);
}

const caches = new WeakMap<object, ProgressCache | null>();

function cacheOf(db: Db): ProgressCache | null {
  let cache = caches.get(db);
  if (cache === undefined) {
    const writes = "$transaction" in db ? writeNoticesOf(db as PrismaClient) : undefined;
    caches.set(db, (cache = writes ? new ProgressCache(writes) : null));
  }
  return cache;
}

/** The account a write of this module is for, seen by the cache when the database announces the write. */
const progressWriter = new AsyncLocalStorage<number | readonly number[]>();

/** Runs a write of this module for one account (or a group commit's accounts). */
function asWriterOf<T>(accounts: number | readonly number[], write: () => Promise<T>): Promise<T> {
  return progressWriter.run(accounts, write);
}

/** The user's progress record, created with the defaults when missing. */
export async function ensureProgress(db: Db, userId: number): Promise<ProgressWithUser> {
  const existing = await findProgress(db, userId);
  if (existing) return existing;
  // INSERT … ON CONFLICT DO NOTHING: parallel first requests all succeed and leave exactly one row.
  await asWriterOf(userId, () => db.gameProgress.createMany({ data: [{ userId }], skipDuplicates: true }));
  return readProgress(db, userId);
}

/**
 * Creates the record with `character` unless it exists (the original client's POST /api/snakes/);
 * `created` says which. Parallel calls leave one record.
 */
export async function createProgress(db: Db, userId: number, character: Character): Promise<{ created: boolean; progress: ProgressWithUser }> {
  return asWriterOf(userId, async () => {
    const { count } = await db.gameProgress.createMany({ data: [{ userId, character }], skipDuplicates: true });
    return { created: count === 1, progress: await readProgress(db, userId) };
  });
}

/** Reads the record after a write of this module (which always ensured it first). */
export async function readProgress(db: Db, userId: number): Promise<ProgressWithUser> {
  const progress = await findProgress(db, userId);
  if (!progress) throw new Error(`no progress record for user ${userId}`);
  return progress;
}

export interface LessonOutcome {
  /** False when the lesson had been completed before: nothing was paid. */
  firstCompletion: boolean;
  bulletsAwarded: number;
  newlyUnlocked: Section[];
}

export async function completeLesson(prisma: PrismaClient, userId: number, lesson: number, bullets: number): Promise<LessonOutcome> {
  return asWriterOf(userId, async () => {
    await ensureProgress(prisma, userId);
    const [paid, half2] = await prisma.$transaction([
      prisma.gameProgress.updateMany({
        where: { userId, NOT: { completedLessons: { has: lesson } } },
        data: { completedLessons: { push: lesson }, totalBullets: { increment: bullets } },
      }),
      prisma.gameProgress.updateMany({
        where: { userId, completedLessons: { hasEvery: [...ALL_LESSONS] }, NOT: { unlockedSections: { has: "half2" } } },
        data: { unlockedSections: { push: "half2" } },
      }),
    ]);
    return {
      firstCompletion: paid.count === 1,
      bulletsAwarded: paid.count === 1 ? bullets : 0,
      newlyUnlocked: half2.count === 1 ? ["half2"] : [],
    };
  });
}

export type AnswerOutcome =
  | { ok: true; firstAnswer: boolean; bulletsAwarded: number; newlyUnlocked: Section[] }
  | MoveRefusal;

/**
 * Records an answer on a question square. The first answer to a square decides its payment (the
 * claimed bullets when correct, nothing when wrong); later answers are recorded and move the player
 * but pay nothing, so a square cannot be farmed.
 */
export async function answerQuestion(
  prisma: PrismaClient,
  userId: number,
  answer: { square: number; correct: boolean; bulletsClaimed: number },
): Promise<AnswerOutcome> {
  return asWriterOf(userId, async () => {
    const { square, correct } = answer;
    const progress = await ensureProgress(prisma, userId);
    const award = bulletsForAnswer(correct, answer.bulletsClaimed);
    return prisma.$transaction(async (tx): Promise<AnswerOutcome> => {
      // This first write also locks the row until commit, serialising concurrent answers of one player.
      const moved = await tx.gameProgress.updateMany({ where: { userId, ...mayEnter(square) }, data: { currentSquare: square } });
      if (moved.count === 0) return refusal(square);
      const firstVisit = await tx.gameProgress.updateMany({
        where: { userId, NOT: { visitedSquares: { has: square } } },
        data: { visitedSquares: { push: square }, totalBullets: { increment: award } },
      });
      const boss = answerUnlocksBoss(square)
        ? await tx.gameProgress.updateMany({
            where: { userId, NOT: { unlockedSections: { has: "boss" } } },
            data: { unlockedSections: { push: "boss" } },
          })
        : { count: 0 };
      const bulletsAwarded = firstVisit.count === 1 ? award : 0;
      await tx.squareCompletion.create({ data: { progressId: progress.id, square, correct, bulletsEarned: bulletsAwarded } });
      return { ok: true, firstAnswer: firstVisit.count === 1, bulletsAwarded, newlyUnlocked: boss.count === 1 ? ["boss"] : [] };
    }, INTERACTIVE_TX);
  });
}

/** The fields a client owns and may save; everything else on the record is the server's. */
export interface ClientState {
  currentSquare?: number;
  lives?: number;
  character?: Character;
  timePlayed?: number;
}

/**
 * Autosave: the client-owned fields, written with other accounts' saves in one commit (below).
 * Resolves once the save is durable.
 */
export async function saveClientState(
  prisma: PrismaClient,
  userId: number,
  state: ClientState,
): Promise<{ ok: true; progress: ProgressWithUser } | MoveRefusal> {
  return asWriterOf(userId, async () => {
    const square = state.currentSquare;
    const autosaves = autosavesOf(prisma);
    let row = await autosaves.save(userId, state);
    if (!row) {
      // No record yet (a first request; another may be creating it right now), or the section guard.
      await ensureProgress(prisma, userId);
      row = await autosaves.save(userId, state);
    }
    if (!row) return refusal(square!);
    if (square === BOARD_FINAL_SQUARE) {
      await markCompleted(prisma, userId, finishedGame);
      return { ok: true, progress: await readProgress(prisma, userId) };
    }
    return { ok: true, progress: fromRow(row) };
  });
}

// Group commit of autosaves. Every commit of the embedded database costs ~1 ms of CPU, more than
// the save itself: saves that arrive while one commit is under way wait for it, then all of them
// are written by one statement (one transaction, one commit) and each is acknowledged only when it
// committed. A lone save goes at once. One save per account per statement (an UPDATE … FROM
// touches a row once): an account's next save waits for the next statement, in order.

/** Autosaves in one statement at most (6 parameters each, far below PostgreSQL's 65,535). */
export const AUTOSAVES_PER_COMMIT = 256;

interface PendingSave {
  userId: number;
  state: ClientState;
  done: (row: ProgressRow | null) => void;
  failed: (err: unknown) => void;
}

class AutosaveGroup {
  private queue: PendingSave[] = [];
  private writing = false;

  constructor(private readonly prisma: PrismaClient) {}

  /** Writes the save with others waiting; resolves to the saved record, or null (no record, or the section guard refused). */
  save(userId: number, state: ClientState): Promise<ProgressRow | null> {
    return new Promise((done, failed) => {
      this.queue.push({ userId, state, done, failed });
      if (!this.writing) {
        this.writing = true;
        // The saves of this event-loop turn go together.
        setImmediate(() => void this.writeAll());
      }
    });
  }

  private async writeAll(): Promise<void> {
    try {
      await this.writeGroup(this.nextGroup());
    } finally {
      // The next group after a turn of the event loop: the requests that arrived while this one
      // was written are read first and go with the saves still waiting.
      if (this.queue.length > 0) setImmediate(() => void this.writeAll());
      else this.writing = false;
    }
  }

  /** The oldest waiting saves, one per account. */
  private nextGroup(): PendingSave[] {
    const group: PendingSave[] = [];
    const rest: PendingSave[] = [];
    const accounts = new Set<number>();
    for (const save of this.queue) {
      if (group.length < AUTOSAVES_PER_COMMIT && !accounts.has(save.userId)) {
        accounts.add(save.userId);
        group.push(save);
      } else rest.push(save);
    }
    this.queue = rest;
    return group;
  }

  private async writeGroup(group: PendingSave[]): Promise<void> {
    let rows: ProgressRow[];
    try {
      // Awaited inside: a Prisma query runs when awaited, and the cache reads its writer then.
      rows = await asWriterOf(
        group.map((s) => s.userId),
        async () => await this.prisma.$queryRaw<ProgressRow[]>(autosaveStatement(group)),
      );
    } catch (err) {
      // One save the database refused must not fail the others: each alone, then. An unreachable
      // database fails them all at once (each alone would wait for a connection in turn).
      if (group.length === 1 || isDatabaseUnreachable(err)) for (const save of group) save.failed(err);
      else for (const save of group) await this.writeGroup([save]);
      return;
    }
    const byAccount = new Map(rows.map((r) => [r.user_id, r]));
    for (const save of group) save.done(byAccount.get(save.userId) ?? null);
  }
}

/**
 * The saves of a group as one statement. Writes only client-owned fields; play time never goes
 * backwards (a stale save cannot undo a newer one); a position in a locked section refuses that
 * account's whole save; `updated_at` is set even for an empty save (an autosave is what marks a
 * player as active). Returns each saved record with the user's name.
 */
function autosaveStatement(group: PendingSave[]): Prisma.Sql {
  const values = group.map(({ userId, state }) => {
    const required = state.currentSquare !== undefined ? sectionRequiredFor(state.currentSquare) : null;
    return Prisma.sql`(${userId}::int, ${state.currentSquare ?? null}::int, ${state.lives ?? null}::int, ${state.character ?? null}::text, ${state.timePlayed ?? null}::float8, ${required}::text)`;
  });
  return Prisma.sql`
    WITH save(user_id, current_square, lives, character, time_played, required) AS (VALUES ${Prisma.join(values)}),
    saved AS (
      UPDATE game_progress p SET
        current_square = COALESCE(save.current_square, p.current_square),
        lives = COALESCE(save.lives, p.lives),
        character = COALESCE(save.character, p.character),
        time_played = GREATEST(p.time_played, COALESCE(save.time_played, p.time_played)),
        updated_at = ${new Date()}
      FROM save
      WHERE p.user_id = save.user_id AND (save.required IS NULL OR save.required = ANY(p.unlocked_sections))
      RETURNING p.*)
    SELECT saved.*, u.username FROM saved JOIN users u ON u.id = saved.user_id`;
}

const autosaveGroups = new WeakMap<PrismaClient, AutosaveGroup>();

function autosavesOf(prisma: PrismaClient): AutosaveGroup {
  let group = autosaveGroups.get(prisma);
  if (!group) autosaveGroups.set(prisma, (group = new AutosaveGroup(prisma)));
  return group;
}

/**
 * Moves the player. A square outside the question section joins visited_squares on arrival; a
 * question square only when answered (visitedOnArrival), so its first answer still pays.
 * Reaching the final square completes the game (the spec's "or reaching square 100").
 */
export async function moveToSquare(prisma: PrismaClient, userId: number, square: number): Promise<{ ok: true } | MoveRefusal> {
  return asWriterOf(userId, async () => {
    await ensureProgress(prisma, userId);
    const where = { userId, ...mayEnter(square) };
    const [moved] = await prisma.$transaction([
      prisma.gameProgress.updateMany({ where, data: { currentSquare: square } }),
      ...(visitedOnArrival(square)
        ? [prisma.gameProgress.updateMany({ where: { ...where, NOT: { visitedSquares: { has: square } } }, data: { visitedSquares: { push: square } } })]
        : []),
    ]);
    if (moved.count !== 1) return refusal(square);
    if (square === BOARD_FINAL_SQUARE) await markCompleted(prisma, userId, finishedGame);
    return { ok: true };
  });
}

export type BonusOutcome = { ok: true } | { ok: false; reason: "bonus_exhausted"; alreadyGranted: number };

/** add-bullets: grants count against a per-game cap, checked and spent in the same statement. */
export async function grantBonusBullets(prisma: PrismaClient, userId: number, bullets: number): Promise<BonusOutcome> {
  return asWriterOf(userId, async () => {
    const progress = await ensureProgress(prisma, userId);
    const granted = await prisma.gameProgress.updateMany({
      where: { userId, bonusBullets: { lte: MAX_BONUS_BULLETS_PER_GAME - bullets } },
      data: { bonusBullets: { increment: bullets }, totalBullets: { increment: bullets } },
    });
    return granted.count === 1 ? { ok: true } : { ok: false, reason: "bonus_exhausted", alreadyGranted: progress.bonusBullets };
  });
}

/** Completion may be claimed on the final square, after a recorded boss victory, or again once completed. */
const finishedGame: Prisma.GameProgressWhereInput = {
  OR: [{ gameStatus: "completed" }, { currentSquare: { gte: BOARD_FINAL_SQUARE } }, { bossVictories: { gt: 0 } }],
};

async function markCompleted(prisma: PrismaClient, userId: number, guard: Prisma.GameProgressWhereInput) {
  return asWriterOf(userId, async () => {
    await ensureProgress(prisma, userId);
    const now = new Date();
    const scope = { userId, ...guard };
    const [completed, firstCompletion] = await prisma.$transaction([
      prisma.gameProgress.updateMany({ where: scope, data: { gameStatus: "completed" } }),
      // completed_at and champion_at are written once: repeating a completion changes neither.
      prisma.gameProgress.updateMany({ where: { ...scope, completedAt: null }, data: { completedAt: now } }),
      prisma.gameProgress.updateMany({ where: { ...scope, championAt: null }, data: { championAt: now } }),
    ]);
    return { completed: completed.count === 1, firstCompletion: firstCompletion.count === 1 };
  });
}

/**
 * Marks the game completed without checking how: for callers that have verified the finish
 * themselves (a recorded boss victory). Idempotent: completed_at and champion_at keep their first value.
 */
export async function completeGame(prisma: PrismaClient, userId: number): Promise<{ firstCompletion: boolean }> {
  const { firstCompletion } = await markCompleted(prisma, userId, {});
  return { firstCompletion };
}

/** POST /complete: completes only a finished game (final square or boss victory); idempotent. */
export async function completeGameIfFinished(
  prisma: PrismaClient,
  userId: number,
): Promise<{ ok: true; firstCompletion: boolean } | { ok: false; reason: "not_finished" }> {
  const result = await markCompleted(prisma, userId, finishedGame);
  return result.completed ? { ok: true, firstCompletion: result.firstCompletion } : { ok: false, reason: "not_finished" };
}

/** A new game: every field back to its default except champion_at, so champions stay champions. */
export async function resetGame(prisma: PrismaClient, userId: number): Promise<{ wasChampion: boolean }> {
  return asWriterOf(userId, async () => {
    const progress = await ensureProgress(prisma, userId);
    await prisma.$transaction([
      prisma.gameProgress.updateMany({
        where: { userId },
        data: {
          currentSquare: 1,
          totalBullets: 0,
          lives: STARTING_LIVES,
          gameStatus: "active",
          completedAt: null,
          bossBattleAttempts: 0,
          bossVictories: 0,
          bonusBullets: 0,
          completedLessons: [],
          visitedSquares: [],
          unlockedSections: [...INITIAL_SECTIONS],
          character: DEFAULT_CHARACTER,
          timePlayed: 0,
        },
      }),
      // The answer log belongs to the game being discarded.
      prisma.squareCompletion.deleteMany({ where: { progressId: progress.id } }),
    ]);
    return { wasChampion: progress.championAt !== null };
  });
}

/** Boss retry: back to square 1 with full lives; a completed game stays completed. */
export async function resetPosition(prisma: PrismaClient, userId: number): Promise<void> {
  return asWriterOf(userId, async () => {
    await ensureProgress(prisma, userId);
    await prisma.$transaction([
      prisma.gameProgress.updateMany({ where: { userId }, data: { currentSquare: 1, lives: STARTING_LIVES } }),
      prisma.gameProgress.updateMany({ where: { userId, gameStatus: { not: "completed" } }, data: { gameStatus: "active" } }),
    ]);
  });
}

export async function listActivePlayers(prisma: PrismaClient, now = Date.now()): Promise<{ count: number; players: ProgressWithUser[] }> {
  const where = { updatedAt: { gte: new Date(now - ACTIVE_PLAYER_WINDOW_MS) } };
  const [count, players] = await Promise.all([
    prisma.gameProgress.count({ where }),
    prisma.gameProgress.findMany({ where, orderBy: [{ updatedAt: "desc" }, { id: "asc" }], take: ACTIVE_PLAYERS_MAX_LISTED, include: withUsername }),
  ]);
  return { count, players };
}

/** Everyone who ever completed the game, by first completion; a reset does not remove anyone. */
export async function listChampions(prisma: PrismaClient, page: { limit: number; offset: number }): Promise<{ count: number; champions: ProgressWithUser[] }> {
  const where = { championAt: { not: null } };
  const [count, champions] = await Promise.all([
    prisma.gameProgress.count({ where }),
    prisma.gameProgress.findMany({ where, orderBy: [{ championAt: "asc" }, { id: "asc" }], skip: page.offset, take: page.limit, include: withUsername }),
  ]);
  return { count, champions };
}

export async function listLeaderboard(prisma: PrismaClient, limit: number): Promise<ProgressWithUser[]> {
  return prisma.gameProgress.findMany({ orderBy: [{ totalBullets: "desc" }, { userId: "asc" }], take: limit, include: withUsername });
}

// Writes a real-time battle makes to the progress record, as operations for the caller's
// `$transaction([...])`, so the battle's own rows and the progress record change together.

/** One more boss battle attempt. */
export function countBossAttempt(prisma: PrismaClient, userId: number): Prisma.PrismaPromise<unknown> {
  return prisma.gameProgress.updateMany({ where: { userId }, data: { bossBattleAttempts: { increment: 1 } } });
}

/** Bullets spent in a battle, taken off the record's total but never below zero. */
export function spendBattleBullets(prisma: PrismaClient, userId: number, bullets: number): Prisma.PrismaPromise<number> {
  return prisma.$executeRaw`
    UPDATE game_progress SET total_bullets = GREATEST(total_bullets - ${bullets}, 0), updated_at = ${new Date()}
    WHERE user_id = ${userId}`;
}

/** A boss victory completes the game; completed_at and champion_at keep their first value. */
export function recordBossVictory(prisma: PrismaClient, userId: number, at: Date): Prisma.PrismaPromise<number> {
  return prisma.$executeRaw`
    UPDATE game_progress SET boss_victories = boss_victories + 1, game_status = 'completed',
      completed_at = COALESCE(completed_at, ${at}), champion_at = COALESCE(champion_at, ${at}), updated_at = ${at}
    WHERE user_id = ${userId}`;
}
