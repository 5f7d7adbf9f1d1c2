// The wire shapes of /api/classes/*: request schemas the routes parse with, response schemas the
// OpenAPI document is generated from (src/http/openapi/classes.ts) and the tests check answers against.
import { z } from "zod";
import { withTextRule } from "../protocol/text.js";
import { TOPICS } from "../game/questionBank.js";
import { ONLINE_MODES } from "../shared/online.js";

export const MAX_CLASS_NAME = 80;
/** Postgres `int`: a larger id names nothing, and is a 400 rather than a database error. */
const MAX_ID = 2_147_483_647;

export const classIdParams = z.object({ id: z.coerce.number({ message: "the class id must be a number" }).int("the class id must be an integer").min(1, "the class id must be positive").max(MAX_ID, "no class has this id") });
export const classStudentParams = classIdParams.extend({
  studentId: z.coerce.number({ message: "the student id must be a number" }).int("the student id must be an integer").min(1, "the student id must be positive").max(MAX_ID, "no account has this id"),
});

export const createClassBody = z
  .object({
    name: withTextRule(z.string({ message: "name must be a string" }))
      .trim()
      .min(1, "name must not be empty")
      .max(MAX_CLASS_NAME, `name must have at most ${MAX_CLASS_NAME} characters`),
  })
  .strict();

export const joinClassBody = z
  .object({
    code: withTextRule(z.string({ message: "code must be a string" }), "identifier")
      .min(1, "code must not be empty")
      .max(32, "code must have at most 32 characters")
      .describe("The class's join code; letter case, spaces and dashes are ignored"),
  })
  .strict();

export const rosterQuery = z.object({ format: z.enum(["json", "csv"], { message: "format must be json or csv" }).optional() }).strict();

const classRef = z.object({ id: z.number().int(), name: z.string(), code: z.string().describe("The join code: 7 characters of 23456789ABCDEFGHJKMNPQRSTUVWXYZ") });

export const classResponse = z.object({ class: classRef });

export const classListResponse = z.object({
  classes: z.array(
    classRef.extend({
      students: z.number().int().describe("Members of the class"),
      teacher: z.object({ id: z.number().int(), username: z.string() }),
      createdAt: z.iso.datetime(),
    }),
  ),
});

export const joinResponse = z.object({
  class: z.object({ id: z.number().int(), name: z.string() }),
  joined: z.boolean().describe("False when the account was in the class already (joining again changes nothing)"),
});

export const removeResponse = z.object({ removed: z.boolean().describe("False when the account was not in the class") });

export const rosterResponse = z.object({
  students: z.array(
    z.object({
      id: z.number().int(),
      username: z.string(),
      displayName: z.string().nullable(),
      password: z.string().describe("The initial password, shown this once (e.g. bako-mitu-resa-47)"),
    }),
  ),
});

const topicFigures = z.object({ topic: z.enum(TOPICS), right: z.number().int(), wrong: z.number().int() });

export const studentFigures = z.object({
  id: z.number().int(),
  username: z.string(),
  displayName: z.string().nullable(),
  lessonsCompleted: z.number().int(),
  squaresRight: z.number().int().describe("Answers given right, every answer counted"),
  squaresWrong: z.number().int(),
  topics: z.array(topicFigures).describe("Every topic of the question bank, in the bank's order"),
  bullets: z.number().int(),
  bossAttempts: z.number().int(),
  bossVictories: z.number().int(),
  pvpWon: z.number().int(),
  pvpLost: z.number().int(),
  slitherrushBest: z.number().int(),
  secondsPlayed: z.number().int(),
  lastSeenAt: z.iso.datetime().nullable(),
  online: z.object({ mode: z.enum(ONLINE_MODES), since: z.iso.datetime() }).nullable(),
  locked: z.boolean(),
  muted: z.boolean(),
});

export const studentsResponse = z.object({ class: classRef, students: z.array(studentFigures) });

export const questionsResponse = z.object({
  class: classRef,
  topics: z.array(topicFigures),
  questions: z.array(z.object({ square: z.number().int(), topic: z.enum(TOPICS), question: z.string(), right: z.number().int(), wrong: z.number().int() })),
});
