// OpenAPI 3.1 description of /api/classes/* (docs/teachers-api.md). Request and response schemas
// are generated from the zod schemas of src/http/classesWire.ts, which the routes parse with.
import { z } from "zod";
import * as wire from "../classesWire.js";
import { MAX_ROSTER_BYTES, MAX_ROSTER_ROWS } from "../rosterCsv.js";
import { CLASS_ROUTE_LIMITS } from "../classRoutes.js";
import { authErrors, errorResponse, withOperationIds } from "./common.js";

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}
const json = (schema: z.ZodType, io: "input" | "output") => ({ "application/json": { schema: schemaOf(schema, io) } });

const roleErrors = {
  ...authErrors,
  "403": errorResponse(
    "Session token expired (`token_expired`), a write from a page outside CORS_ORIGINS (`origin_not_allowed`), an account that is not a teacher or an admin, or a class that is another teacher's (`forbidden`)",
  ),
};
const classErrors = {
  ...roleErrors,
  "400": errorResponse("A class id that is not a positive integer (`validation_failed`)"),
  "404": errorResponse("No class has this id (`class_not_found`)"),
};
const writeLimit = errorResponse(`More than ${CLASS_ROUTE_LIMITS.writes.limit} changes a minute from this account (\`rate_limited\`, Retry-After): counted per account, not per address`);
const readLimit = errorResponse(`More than ${CLASS_ROUTE_LIMITS.reads.limit} reads a minute from this account (\`rate_limited\`, Retry-After): counted per account`);
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1, maximum: 2_147_483_647 }, description: "The class's id" };
const studentParam = { name: "studentId", in: "path", required: true, schema: { type: "integer", minimum: 1, maximum: 2_147_483_647 }, description: "The student's account id" };
const op = (spec: Record<string, unknown>) => ({ tags: ["classes"], security: [{ sessionCookie: [] }], ...spec });

export const classesPaths = withOperationIds(
  {
    "/api/classes": {
      post: op({
        summary: "Create a class (teacher or admin); answers its join code",
        requestBody: { required: true, content: json(wire.createClassBody, "input") },
        responses: {
          "201": { description: "The new class", content: json(wire.classResponse, "output") },
          "400": errorResponse("Invalid body (`validation_failed`)"),
          ...roleErrors,
          "429": writeLimit,
        },
      }),
      get: op({
        summary: "The caller's classes (a teacher's own; an admin's: every class)",
        responses: { "200": { description: "Oldest first", content: json(wire.classListResponse, "output") }, ...roleErrors, "429": readLimit },
      }),
    },
    "/api/classes/join": {
      post: op({
        summary: "Join a class with its code (any signed-in account; joining again changes nothing)",
        description: `At most ${CLASS_ROUTE_LIMITS.joins.limit} attempts per account in ${CLASS_ROUTE_LIMITS.joins.windowMs / 60_000} minutes: codes cannot be guessed.`,
        requestBody: { required: true, content: json(wire.joinClassBody, "input") },
        responses: {
          "200": { description: "The caller is in the class", content: json(wire.joinResponse, "output") },
          "400": errorResponse("Invalid body (`validation_failed`)"),
          "404": errorResponse("No class has this code (`class_not_found`)"),
          ...authErrors,
          "429": errorResponse("Too many attempts from this account (`rate_limited`, Retry-After)"),
        },
      }),
    },
    "/api/classes/{id}/code": {
      post: op({
        summary: "A new join code for the class; the old one stops working at once",
        parameters: [idParam],
        responses: { "200": { description: "The class with its new code", content: json(wire.classResponse, "output") }, ...classErrors, "429": writeLimit },
      }),
    },
    "/api/classes/{id}/students/{studentId}": {
      delete: op({
        summary: "Take a student out of the class (nothing of the student's is deleted)",
        parameters: [idParam, studentParam],
        responses: { "200": { description: "Whether it was in the class", content: json(wire.removeResponse, "output") }, ...classErrors, "429": writeLimit },
      }),
    },
    "/api/classes/{id}/roster": {
      post: op({
        summary: "Import a roster: create the students' accounts with initial passwords, shown once",
        description: `A CSV (RFC 4180) with a header row \`username\` or \`username,display_name\`, at most ${MAX_ROSTER_ROWS} students and ${MAX_ROSTER_BYTES / 1024} KiB. Usernames follow registration's rules. All or nothing: any invalid row or taken name refuses the whole import, naming each line. The answer is JSON, or a printable CSV (username,display_name,password) with \`Accept: text/csv\` or \`?format=csv\`.`,
        parameters: [idParam, { name: "format", in: "query", required: false, schema: { type: "string", enum: ["json", "csv"] }, description: "csv: the answer as a printable CSV" }],
        requestBody: { required: true, content: { "text/csv": { schema: { type: "string", example: "username,display_name\nada.l,Ada L.\nalan.t,Alan T.\n" } } } },
        responses: {
          "201": {
            description: "The accounts made, each with its initial password (shown this once)",
            content: { ...json(wire.rosterResponse, "output"), "text/csv": { schema: { type: "string" } } },
          },
          ...classErrors,
          "400": errorResponse("A row is invalid (`invalid_roster`, every problem with its line in `details.problems`), or a bad class id (`validation_failed`)"),
          "409": errorResponse("A username is taken by an existing account (`username_taken`, each with its line in `details.problems`): nothing was created"),
          "413": errorResponse(`More than ${MAX_ROSTER_BYTES / 1024} KiB (\`payload_too_large\`)`),
          "415": errorResponse("Not sent as text/csv (`unsupported_media_type`)"),
          "429": writeLimit,
        },
      }),
    },
    "/api/classes/{id}/students": {
      get: op({
        summary: "The class's students with their figures, and who is online in which mode now",
        description: "Online state is at most a few seconds old (every room records its accounts when they join and leave, on every server process).",
        parameters: [idParam],
        responses: { "200": { description: "In the order they joined the class", content: json(wire.studentsResponse, "output") }, ...classErrors, "429": readLimit },
      }),
    },
    "/api/classes/{id}/students.csv": {
      get: op({
        summary: "The roster figures as a CSV, one row per student (cells that a spreadsheet would run as a formula start with ')",
        parameters: [idParam],
        responses: { "200": { description: "A header row, then one row per student", content: { "text/csv": { schema: { type: "string" } } } }, ...classErrors, "429": readLimit },
      }),
    },
    "/api/classes/{id}/questions": {
      get: op({
        summary: "What the class gets wrong: every topic and every question of the bank with the class's answers, most wrong first",
        parameters: [idParam],
        responses: { "200": { description: "Questions sorted by wrong answers, most first", content: json(wire.questionsResponse, "output") }, ...classErrors, "429": readLimit },
      }),
    },
  },
  {
    "POST /api/classes": "createClass",
    "GET /api/classes": "listClasses",
    "POST /api/classes/join": "joinClass",
    "POST /api/classes/{id}/code": "rotateClassCode",
    "DELETE /api/classes/{id}/students/{studentId}": "removeClassStudent",
    "POST /api/classes/{id}/roster": "importClassRoster",
    "GET /api/classes/{id}/students": "getClassStudents",
    "GET /api/classes/{id}/students.csv": "exportClassStudentsCsv",
    "GET /api/classes/{id}/questions": "getClassQuestions",
  },
);
