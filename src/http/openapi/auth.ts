import { z } from "zod";
import { accountResponse, passwordChangedResponse } from "../authWire.js";
import { authErrors, errorResponse, jsonBody, jsonResponse, withOperationIds, type PathsObject } from "./common.js";

const credentials = {
  type: "object",
  required: ["username", "password"],
  additionalProperties: false,
  properties: {
    username: { type: "string", minLength: 3, maxLength: 32, pattern: "^[A-Za-z0-9_.-]+$" },
    password: { type: "string", minLength: 8, maxLength: 256 },
  },
};
/** What POST /api/auth/login checks (src/http/authRoutes.ts): any name an account could have had. */
const login = {
  type: "object",
  required: ["username", "password"],
  additionalProperties: false,
  properties: {
    username: { type: "string", minLength: 1, maxLength: 64, description: "Any letter case; white space around it is ignored and full-width letters read as ASCII (NFKC); no control or invisible format characters. A name registration would refuse matches no account (401). Attempts are limited per account however the name is spelled." },
    password: { type: "string", minLength: 1, maxLength: 256 },
  },
};
/** Generated from the zod schema the routes answer with (src/http/authWire.ts). */
function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;
  return rest;
}
const user = schemaOf(accountResponse);
const passwordChanged = schemaOf(passwordChangedResponse);

export const authPaths: PathsObject = withOperationIds({
  "/api/auth/register": {
    post: {
      tags: ["auth"],
      summary: "Create an account and start a session (sets the HttpOnly session cookie)",
      security: [],
      requestBody: jsonBody(credentials),
      responses: {
        "201": jsonResponse("Created; Set-Cookie carries the session", user),
        "400": errorResponse("Invalid body"),
        "409": errorResponse("Username taken, in any letter case"),
        "413": errorResponse("Body too large"),
        "429": errorResponse("Too many registrations from this address (`rate_limited`, Retry-After; RATE_LIMIT_REGISTER)"),
      },
    },
  },
  "/api/auth/login": {
    post: {
      tags: ["auth"],
      summary: "Start a session",
      security: [],
      requestBody: jsonBody(login),
      responses: {
        "200": jsonResponse("Logged in; Set-Cookie carries the session", user),
        "400": errorResponse("Invalid body: a field missing, empty, too long, not a string, or an unknown field (`validation_failed`, each problem named)"),
        "401": errorResponse("Invalid username or password"),
        "403": errorResponse("The password is right but a teacher or an admin has locked the account (`account_locked`)", {
          code: "account_locked",
          message: "This account is locked by a teacher or an admin: ask them to unlock it",
        }),
        "429": errorResponse("Too many failed sign-ins (`rate_limited`, Retry-After; `details.limit` names which: `account_from_address`, `account` or `address`; RATE_LIMIT_LOGIN*). Successful sign-ins never count; a refused attempt's password is not checked"),
      },
    },
  },
  "/api/auth/logout": {
    post: {
      tags: ["auth"],
      summary: "End this session and clear the cookie",
      description: "The session the cookie carries ends on every process: a copy of its token gets 401 from then on. The account's other sessions go on.",
      security: [],
      responses: { "200": jsonResponse("Logged out") },
    },
  },
  "/api/auth/password": {
    post: {
      tags: ["auth"],
      summary: "Change the password; ends every other session",
      description:
        "Needs the current password; the new one must differ from it (`password_unchanged`). Every session of the account ends (on every process); the caller gets a new session cookie. A password issued by a teacher, an admin or the operator becomes the account's own: `password_change_required` is false from then on (docs/auth.md#one-time-passwords).",
      requestBody: jsonBody({
        type: "object",
        required: ["current_password", "new_password"],
        additionalProperties: false,
        properties: { current_password: { type: "string", maxLength: 256 }, new_password: { type: "string", minLength: 8, maxLength: 256 } },
      }),
      responses: {
        "200": jsonResponse("Changed; Set-Cookie carries the new session", passwordChanged),
        "400": errorResponse("Invalid body (`validation_failed`), or the new password is the current one (`password_unchanged`)", {
          code: "password_unchanged",
          message: "Choose a new password: it must differ from the one you were given",
        }),
        "401": errorResponse("No or invalid session, or the current password is wrong (`invalid_credentials`)"),
        "403": authErrors["403"],
        "429": errorResponse("Too many wrong current passwords for this account (`rate_limited`, Retry-After)"),
      },
    },
  },
  "/api/auth/me": {
    get: { tags: ["auth"], summary: "The current account", responses: { "200": jsonResponse("The account", user), ...authErrors } },
  },
  "/api/user/current": {
    get: {
      tags: ["auth"],
      summary: "Compatibility route: the signed-in player, in the original web client's shape",
      description:
        "For the original web client (TM_FrontEnd `snakes-game.js`), which asks this before anything else. `uid` (the original's login id) and `name` are both the username. New clients use GET /api/auth/me.",
      responses: {
        "200": jsonResponse("The signed-in player", {
          type: "object",
          required: ["id", "uid", "name"],
          additionalProperties: false,
          properties: { id: { type: "integer" }, uid: { type: "string" }, name: { type: "string" } },
        }),
        ...authErrors,
      },
    },
  },
  "/health": { get: { tags: ["operations"], summary: "Liveness", security: [], responses: { "200": jsonResponse("Up") } } },
  "/ready": {
    get: {
      tags: ["operations"],
      summary: "Readiness: the database answers",
      security: [],
      responses: { "200": jsonResponse("Ready"), "503": errorResponse("Database unreachable (`not_ready`), or its storage is full and writes are refused (`storage_full`)") },
    },
  },
}, {
  "POST /api/auth/register": "registerAccount",
  "POST /api/auth/login": "login",
  "POST /api/auth/logout": "logout",
  "POST /api/auth/password": "changePassword",
  "GET /api/auth/me": "getCurrentAccount",
  "GET /api/user/current": "getCurrentUserOriginalShape",
  "GET /health": "getHealth",
  "GET /ready": "getReadiness",
});

const workspaceSession = [{ workspaceSessionCookie: [] }];

/** Workspace users' own sessions (the platform API above manages the users). */
export const workspaceSessionPaths: PathsObject = withOperationIds({
  "/api/workspace/login": {
    post: {
      tags: ["workspace sessions"],
      summary: "Sign a workspace user in (sets the workspace session cookie)",
      description: "Username in any letter case. Locked (`account_locked`) and disabled (`account_disabled`) users are refused with 403; users without a password cannot sign in.",
      security: [],
      requestBody: jsonBody({
        type: "object",
        required: ["username", "password"],
        additionalProperties: false,
        properties: { username: { type: "string", minLength: 1, maxLength: 128 }, password: { type: "string", maxLength: 256 } },
      }),
      responses: {
        "200": jsonResponse("Signed in; `{user}` as the platform API shows it", { type: "object" }),
        "400": errorResponse("Invalid body"),
        "401": errorResponse("Invalid username or password"),
        "403": errorResponse("Locked or disabled user"),
        "429": errorResponse("Too many failed sign-ins (`rate_limited`, Retry-After; `details.limit` names which: `account_from_address`, `account` or `address`; RATE_LIMIT_LOGIN*). Successful sign-ins never count; a refused attempt's password is not checked"),
      },
    },
  },
  "/api/workspace/logout": {
    post: { tags: ["workspace sessions"], summary: "End this workspace session and clear its cookie", security: [], responses: { "200": jsonResponse("Signed out") } },
  },
  "/api/workspace/me": {
    get: {
      tags: ["workspace sessions"],
      summary: "The signed-in workspace user and the workspaces its groups allow",
      description: "401 once the session ended: the user's own logout, the platform API's `logout_user`, a new password, a lock, a disable or a delete.",
      security: workspaceSession,
      responses: {
        "200": jsonResponse("`{user, workspaces}`"),
        "401": errorResponse("No workspace session cookie (`unauthenticated`), or an invalid or ended session (`invalid_token`)"),
        "403": errorResponse("Session expired (`token_expired`)"),
      },
    },
  },
}, {
  "POST /api/workspace/login": "workspaceLogin",
  "POST /api/workspace/logout": "workspaceLogout",
  "GET /api/workspace/me": "getWorkspaceSession",
});
