import { authErrors, errorResponse, jsonBody, jsonResponse, type PathsObject } from "./common.js";

const credentials = {
  type: "object",
  required: ["username", "password"],
  additionalProperties: false,
  properties: {
    username: { type: "string", minLength: 3, maxLength: 32, pattern: "^[A-Za-z0-9_.-]+$" },
    password: { type: "string", minLength: 8, maxLength: 256 },
  },
};
const user = {
  type: "object",
  properties: { user: { type: "object", properties: { id: { type: "integer" }, username: { type: "string" }, created_at: { type: "string", format: "date-time" } } } },
};

export const authPaths: PathsObject = {
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
      requestBody: jsonBody(credentials),
      responses: {
        "200": jsonResponse("Logged in; Set-Cookie carries the session", user),
        "400": errorResponse("Invalid body"),
        "401": errorResponse("Invalid username or password"),
        "429": errorResponse("Too many attempts (Retry-After)"),
      },
    },
  },
  "/api/auth/logout": {
    post: { tags: ["auth"], summary: "Clear the session cookie", security: [], responses: { "200": jsonResponse("Logged out") } },
  },
  "/api/auth/me": {
    get: { tags: ["auth"], summary: "The current account", responses: { "200": jsonResponse("The account", user), ...authErrors } },
  },
  "/health": { get: { tags: ["operations"], summary: "Liveness", security: [], responses: { "200": jsonResponse("Up") } } },
  "/ready": {
    get: {
      tags: ["operations"],
      summary: "Readiness: the database answers",
      security: [],
      responses: { "200": jsonResponse("Ready"), "503": errorResponse("Database unreachable") },
    },
  },
};
