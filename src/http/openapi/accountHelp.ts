// OpenAPI 3.1 description of /api/students/{id}/* and /api/admin/*, generated from the zod schemas
// the routes use (src/http/accountHelpWire.ts).
import { z } from "zod";
import * as wire from "../accountHelpWire.js";
import { HELP_ACTIONS, type HelpAction } from "../../accounts/help.js";
import { authErrors, errorResponse, withOperationIds, type PathsObject } from "./common.js";

function schemaOf(schema: z.ZodType, io: "input" | "output" = "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

const ok = (schema: z.ZodType, description = "OK") => ({ description, content: { "application/json": { schema: schemaOf(schema) } } });
const security = [{ sessionCookie: [] }];
const idParameter = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1, maximum: 2 ** 31 - 1 }, description: "The account's id" };

/** Query parameters from a zod object (every one optional: each has a default or may be left out). */
function queryParameters(schema: z.ZodObject): unknown[] {
  const json = schemaOf(schema, "input") as { properties: Record<string, Record<string, unknown>> };
  return Object.entries(json.properties).map(([name, s]) => ({ name, in: "query", required: false, schema: s, ...(s.description ? { description: s.description } : {}) }));
}

const refusals = (what: string) => ({
  "400": errorResponse("A bad id (`validation_failed`), or the caller's own account (`own_account`)", {
    code: "validation_failed",
    message: "Invalid request path: id: must be an account id: an integer from 1 to 2147483647",
  }),
  ...authErrors,
  "403": errorResponse(
    `Not a teacher or admin, or (a teacher) ${what} is not a student of one of its classes (\`forbidden\`, whether or not the account exists); also the answers every cookie-protected route shares: \`token_expired\`, \`account_locked\`, \`origin_not_allowed\``,
    { code: "forbidden", message: "Account 17 is not a student of one of your classes" },
  ),
  "404": errorResponse("An admin naming an account that does not exist (`not_found`)"),
  "429": errorResponse("Too many requests by this account (`rate_limited`, Retry-After): limited per account, not per address"),
});

const ACTION_DOCS: Record<HelpAction, { summary: string; description: string; id: string }> = {
  "password-reset": {
    id: "resetStudentPassword",
    summary: "Give the student a new one-time password",
    description:
      "A new generated, easy-to-type password, shown once in the answer (never stored in clear). Every session of the account ends at once on every server process, and its open room connections close (4007 `session ended`) within 2 s.",
  },
  lock: {
    id: "lockStudent",
    summary: "Keep the student out",
    description:
      "Sign-in answers 403 `account_locked` until an unlock; every session ends (an unlock brings none back); each open room connection gets an `error` `account_locked` and closes with 4008 within 2 s (5 s at most); its seat is written as on a leave.",
  },
  unlock: { id: "unlockStudent", summary: "Let a locked student sign in again", description: "The student signs in again with its password." },
  mute: {
    id: "muteStudent",
    summary: "Refuse the student's chat lines",
    description: "Lobby, boss and PvP chat answer its lines with an `error` `muted`, and nobody else sees them, from the next line on (on every process within 2 s).",
  },
  unmute: { id: "unmuteStudent", summary: "Let a muted student chat again", description: "Its next chat line reaches the others again." },
  logout: { id: "logoutStudent", summary: "End every session of the student", description: "Its sessions end at once on every process; its open room connections close (4007) within 2 s. Its password stays." },
};

const studentPaths: PathsObject = {};
const studentIds: Record<string, string> = {};
for (const action of HELP_ACTIONS) {
  const docs = ACTION_DOCS[action];
  const path = `/api/students/{id}/${action}`;
  studentPaths[path] = {
    post: {
      tags: ["teachers"],
      summary: docs.summary,
      description: `${docs.description} A teacher may act on the students of its own classes, an admin on any account; the action is in the audit log, refused ones too.`,
      security,
      parameters: [idParameter],
      responses: { "200": ok(action === "password-reset" ? wire.passwordResetResponse : wire.studentActionResponse), ...refusals("the account") },
    },
  };
  studentIds[`POST ${path}`] = docs.id;
}

const adminOnly = {
  ...authErrors,
  "403": errorResponse("Not an admin (`forbidden`); also `token_expired`, `account_locked`, `origin_not_allowed`", { code: "forbidden", message: "This needs the role admin; this account is a teacher" }),
  "429": errorResponse("Too many requests by this account (`rate_limited`, Retry-After)"),
};
const badQuery = errorResponse("A bad query parameter (`validation_failed`, each problem named)");

export const accountHelpPaths = withOperationIds(
  {
    ...studentPaths,
    "/api/admin/accounts": {
      get: {
        tags: ["admin"],
        summary: "Find accounts by part of their name",
        description: `Username or display name containing \`q\`, any letter case, by username; at most \`limit\` accounts (\`truncated\` says more match). Audited (\`account.search\`, without the query).`,
        security,
        parameters: queryParameters(wire.accountsQuery),
        responses: { "200": ok(wire.accountsResponse), "400": badQuery, ...adminOnly },
      },
    },
    "/api/admin/accounts/{id}": {
      delete: {
        tags: ["admin"],
        summary: "Erase an account",
        description:
          "Everything the database holds about it is deleted in one transaction; audit entries about it keep only its id; other players' PvP results name it `(erased account)`. An `erasures` row (its id and creation time, no personal data) is kept, and `admin restore` erases it again from any older backup. Backups taken before hold it until they are rotated out (docs/data-protection.md).",
        security,
        parameters: [idParameter],
        responses: {
          "200": ok(wire.erasedResponse),
          "400": errorResponse("A bad id (`validation_failed`) or the admin's own account (`own_account`)"),
          "404": errorResponse("No such account (`not_found`)"),
          ...adminOnly,
        },
      },
    },
    "/api/admin/accounts/{id}/export": {
      get: {
        tags: ["admin"],
        summary: "Everything the database holds about an account, as one JSON document",
        description: "Keyed by table name; the password hash is never in it. Audited (`account.export`).",
        security,
        parameters: [idParameter],
        responses: { "200": ok(wire.exportResponse), "400": errorResponse("A bad id (`validation_failed`)"), "404": errorResponse("No such account (`not_found`)"), ...adminOnly },
      },
    },
    "/api/admin/audit": {
      get: {
        tags: ["admin"],
        summary: "Read the audit log",
        description: "Every teacher, admin and operator action, newest first, filtered by actor, target, action and time; page with `before` = the previous page's `next_before`. No route changes an entry.",
        security,
        parameters: queryParameters(wire.auditQuery),
        responses: { "200": ok(wire.auditResponse), "400": badQuery, ...adminOnly },
      },
    },
  },
  {
    ...studentIds,
    "GET /api/admin/accounts": "findAccounts",
    "DELETE /api/admin/accounts/{id}": "eraseAccount",
    "GET /api/admin/accounts/{id}/export": "exportAccount",
    "GET /api/admin/audit": "listAuditEntries",
  },
);
