// /api/snakes/*: the board game's progress API. Every route needs the session cookie. Inputs are
// validated here; the rules live in game/progress.ts and every write in stores/progress.ts.
import { Router, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { currentUser, requireAuth } from "../auth/middleware.js";
import {
  ACTIVE_PLAYER_WINDOW_MS,
  DEFAULT_CHARACTER,
  MAX_BONUS_BULLETS_PER_GAME,
  QUESTION_SQUARE_COUNT,
  bonusBulletsRemaining,
  questionSquareCoverage,
} from "../game/progress.js";
import * as store from "../stores/progress.js";
import {
  SERVER_OWNED_FIELDS,
  addBulletsBody,
  answerQuestionBody,
  championsQuery,
  chosenCharacter,
  clientStateBody,
  completeLessonBody,
  createRecordBody,
  emptyBody,
  leaderboardQuery,
  toActivePlayer,
  toChampion,
  toLeaderboardEntry,
  toProgressState,
  updateSquareBody,
  type ProgressState,
} from "./progressWire.js";
import { parseWith } from "./validate.js";
import { accountWriteLimit, accountWriteLimiter } from "./rateLimit.js";

function sectionLocked(refusal: store.MoveRefusal, square: number): AppError {
  return new AppError(403, "section_locked", `Square ${square} needs the '${refusal.requiredSection}' section, which is not unlocked yet`, {
    required_section: refusal.requiredSection,
  });
}

/**
 * A record's response body and its ETag, kept with the record: the embedded database's records are
 * served from memory, shared and frozen (src/stores/progress.ts), so a player's repeated reads
 * serialize and hash it once. Express sends the same bytes and headers as res.json would.
 */
const bodies = new WeakMap<store.ProgressWithUser, { json: string; etag: string | undefined }>();

function sendRecord(req: Request, res: Response, progress: store.ProgressWithUser): void {
  let body = bodies.get(progress);
  if (!body) {
    const json = JSON.stringify(toProgressState(progress));
    const etagOf = req.app.get("etag fn") as ((body: string, encoding: string) => string) | undefined;
    body = { json, etag: etagOf?.(json, "utf8") };
    if (Object.isFrozen(progress)) bodies.set(progress, body);
  }
  if (body.etag) res.set("ETag", body.etag);
  res.type("json").send(body.json);
}

export function progressRoutes(ctx: AppContext): Router {
  const router = Router();
  const { prisma } = ctx;
  router.use(requireAuth(ctx));
  router.use(accountWriteLimit(accountWriteLimiter(ctx)));

  const stateOf = async (userId: number): Promise<ProgressState> => toProgressState(await store.readProgress(prisma, userId));

  // The original web client reads GET / and, on a 404, creates its record with POST / and the
  // character the player picked; /progress creates a missing record with the defaults.
  router.get("/", async (req, res) => {
    const progress = await store.findProgress(prisma, currentUser(req).id);
    if (!progress) throw new AppError(404, "no_progress", "No game record yet: create it with POST /api/snakes/ (or GET /api/snakes/progress)");
    sendRecord(req, res, progress);
  });
  router.get("/progress", async (req, res) => {
    sendRecord(req, res, await store.ensureProgress(prisma, currentUser(req).id));
  });

  router.post("/", async (req, res) => {
    const body = parseWith(createRecordBody, req.body ?? {});
    const { created, progress } = await store.createProgress(prisma, currentUser(req).id, chosenCharacter(body) ?? DEFAULT_CHARACTER);
    res.status(created ? 201 : 200).json(toProgressState(progress));
  });

  const saveState = async (req: Request, res: Response) => {
    const userId = currentUser(req).id;
    const body = parseWith(clientStateBody, req.body ?? {});
    const saved = await store.saveClientState(prisma, userId, {
      currentSquare: body.current_square,
      lives: body.lives,
      character: chosenCharacter(body),
      timePlayed: body.time_played,
    });
    if (!saved.ok) throw sectionLocked(saved, body.current_square!);
    const ignored = SERVER_OWNED_FIELDS.filter((key) => key in body);
    res.json({ ...toProgressState(saved.progress), ignored_fields: ignored });
  };
  router.put("/", saveState);
  router.put("/update-game", saveState);

  router.post("/complete-lesson", async (req, res) => {
    const userId = currentUser(req).id;
    const body = parseWith(completeLessonBody, req.body);
    const outcome = await store.completeLesson(prisma, userId, body.lesson_number, body.bullets_earned);
    res.json({
      ...(await stateOf(userId)),
      message: outcome.firstCompletion ? `Lesson ${body.lesson_number} completed` : `Lesson ${body.lesson_number} was already completed: no bullets paid`,
      lesson_number: body.lesson_number,
      bullets_awarded: outcome.bulletsAwarded,
      already_completed: !outcome.firstCompletion,
      newly_unlocked_sections: outcome.newlyUnlocked,
    });
  });

  router.post("/answer-question", async (req, res) => {
    const userId = currentUser(req).id;
    const body = parseWith(answerQuestionBody, req.body);
    const outcome = await store.answerQuestion(prisma, userId, { square: body.square, correct: body.correct, bulletsClaimed: body.bullets_earned });
    if (!outcome.ok) throw sectionLocked(outcome, body.square);
    res.json({
      ...(await stateOf(userId)),
      message: outcome.firstAnswer ? "Question processed" : `Square ${body.square} was answered before: no bullets paid`,
      square: body.square,
      correct: body.correct,
      bullets_awarded: outcome.bulletsAwarded,
      first_answer: outcome.firstAnswer,
      newly_unlocked_sections: outcome.newlyUnlocked,
    });
  });

  router.post("/update-square", async (req, res) => {
    const userId = currentUser(req).id;
    const body = parseWith(updateSquareBody, req.body);
    const moved = await store.moveToSquare(prisma, userId, body.square);
    if (!moved.ok) throw sectionLocked(moved, body.square);
    res.json(await stateOf(userId));
  });

  router.post("/add-bullets", async (req, res) => {
    const userId = currentUser(req).id;
    const body = parseWith(addBulletsBody, req.body);
    const granted = await store.grantBonusBullets(prisma, userId, body.bullets);
    if (!granted.ok) {
      const remaining = bonusBulletsRemaining(granted.alreadyGranted);
      throw new AppError(
        409,
        "bonus_bullets_exhausted",
        `add-bullets grants at most ${MAX_BONUS_BULLETS_PER_GAME} bullets per game; ${remaining} left, ${body.bullets} asked`,
        { bonus_bullets_remaining: remaining },
      );
    }
    const state = await stateOf(userId);
    res.json({ ...state, bullets_added: body.bullets, bonus_bullets_remaining: bonusBulletsRemaining(state.bonus_bullets) });
  });

  router.post("/complete", async (req, res) => {
    const userId = currentUser(req).id;
    parseWith(emptyBody, req.body ?? {});
    const outcome = await store.completeGameIfFinished(prisma, userId);
    if (!outcome.ok) {
      throw new AppError(409, "game_not_finished", "The game can be completed only on square 100 or after a recorded boss victory");
    }
    res.json({
      ...(await stateOf(userId)),
      message: outcome.firstCompletion ? "Congratulations! Game completed!" : "Game already completed",
      already_completed: !outcome.firstCompletion,
    });
  });

  router.post("/reset", async (req, res) => {
    const userId = currentUser(req).id;
    parseWith(emptyBody, req.body ?? {});
    const { wasChampion } = await store.resetGame(prisma, userId);
    res.json({ ...(await stateOf(userId)), message: "Progress reset successfully! Starting fresh.", was_champion: wasChampion });
  });

  router.post("/reset-position", async (req, res) => {
    const userId = currentUser(req).id;
    parseWith(emptyBody, req.body ?? {});
    await store.resetPosition(prisma, userId);
    res.json({ ...(await stateOf(userId)), message: "Position reset" });
  });

  router.get("/active-players", async (_req, res) => {
    const { count, players } = await store.listActivePlayers(prisma);
    res.json({ active_players: count, players: players.map(toActivePlayer), window_seconds: ACTIVE_PLAYER_WINDOW_MS / 1000 });
  });

  router.get("/champions", async (req, res) => {
    const page = parseWith(championsQuery, { limit: req.query.limit, offset: req.query.offset }, "query");
    const { count, champions } = await store.listChampions(prisma, page);
    res.json({ champions: champions.map(toChampion), count, limit: page.limit, offset: page.offset });
  });

  router.get("/leaderboard", async (req, res) => {
    const { limit } = parseWith(leaderboardQuery, { limit: req.query.limit }, "query");
    const leaders = await store.listLeaderboard(prisma, limit);
    res.json({ leaderboard: leaders.map(toLeaderboardEntry), count: leaders.length, limit });
  });

  router.get("/unvisited-squares", async (req, res) => {
    const progress = await store.ensureProgress(prisma, currentUser(req).id);
    const { visited, unvisited } = questionSquareCoverage(progress.visitedSquares);
    res.json({
      unvisited_squares: unvisited,
      visited_squares: visited,
      unvisited_count: unvisited.length,
      visited_count: visited.length,
      total_question_squares: QUESTION_SQUARE_COUNT,
    });
  });

  return router;
}
