// The authorisation matrix's tables (issue 37; test/integration/authzMatrix.test.ts runs them). Every
// REST operation of the OpenAPI document, every other route Express serves, every room and every
// join option of the rooms' schemas has a row here saying who may use it; the test fails when the
// live route table, the OpenAPI document or a room's join-option schema has something without a
// row (or a row for something that is gone). Adding a route or an option: add its row, nothing else;
// the probes are generated from the row, the OpenAPI request schema and the join-option schema.
// docs/security.md, "Accounts, sessions and seats", explains the classes.

/**
 * Who may call a REST operation (keyed by operationId):
 * - `public`: anyone; it reads or writes no account's data by itself (health, sign-in, sign-out of
 *   the caller's own session). Probes: nobody's state changes whoever calls.
 * - `own`: a signed-in account, on its own data only (the session names the account; no id in the
 *   request can name another). Probes: no cookie, a forged token naming A, `alg: none`, A's ended
 *   session, a workspace session and an API key are refused 401; account B (also with A's ids
 *   injected) gets only its own data: A's rows unchanged, A's name nowhere in the answer.
 * - `shared`: a signed-in account reads a listing every player sees (leaderboards, a battle's
 *   roster): refused without a live session like `own`; B's answer may name A, A's rows unchanged.
 * - `api_key`: the workspace platform API: a valid, unrevoked API key pair in the body. Probes: no
 *   key, a wrong secret, a revoked key, another key's secret, the key in a header, the game's and a
 *   workspace user's session cookies: refused (400/401), no workspace row changed.
 * - `workspace_session`: a workspace user's own session (cookie `jwt_workspace`).
 * - `teacher`: a teacher's route on its own classes and their students (an admin's on every one;
 *   issue 42, src/auth/roles.ts). Probes, aimed at teacher T's class with student A in it: no
 *   cookie, forged and ended sessions (401); student B and a guest (no session: 401; B: 403); a
 *   teacher of another class (403, or its own answer naming neither A nor T's class); A's rows and
 *   T's class unchanged.
 */
export type RestAccess = "public" | "own" | "shared" | "api_key" | "workspace_session" | "teacher";

export const REST_ACCESS: Record<string, RestAccess> = {
  registerAccount: "public",
  login: "public",
  logout: "public",
  changePassword: "own",
  getCurrentAccount: "own",
  getCurrentUserOriginalShape: "own",
  getHealth: "public",
  getReadiness: "public",
  getGameState: "own",
  createGameRecord: "own",
  saveGameState: "own",
  getProgress: "own",
  updateGame: "own",
  completeLesson: "own",
  answerQuestion: "own",
  updateSquare: "own",
  addBullets: "own",
  completeGame: "own",
  resetGame: "own",
  resetPosition: "own",
  getActivePlayers: "shared",
  getChampions: "shared",
  getLeaderboard: "shared",
  getUnvisitedSquares: "own",
  joinBossBattle: "own",
  leaveBossBattle: "own",
  getBossStats: "own",
  getBossRoom: "shared",
  getPvpStats: "own",
  getSlitherRushStats: "own",
  getSlitherRushLeaderboard: "shared",
  getModesStatus: "public",
  createClass: "teacher",
  listClasses: "teacher",
  // The caller joins itself: the session names the account, the body only a code.
  joinClass: "own",
  rotateClassCode: "teacher",
  removeClassStudent: "teacher",
  importClassRoster: "teacher",
  getClassStudents: "teacher",
  exportClassStudentsCsv: "teacher",
  getClassQuestions: "teacher",
  workspace_validate_credentials: "api_key",
  workspace_create_user: "api_key",
  workspace_get_user: "api_key",
  workspace_get_users: "api_key",
  workspace_update_user: "api_key",
  workspace_delete_user: "api_key",
  workspace_logout_user: "api_key",
  workspace_get_groups: "api_key",
  workspace_create_group: "api_key",
  workspace_delete_group: "api_key",
  workspace_add_user_group: "api_key",
  workspace_remove_user_group: "api_key",
  workspace_set_group_workspaces: "api_key",
  workspace_get_workspaces: "api_key",
  workspaceLogin: "public",
  workspaceLogout: "public",
  getWorkspaceSession: "workspace_session",
};

/**
 * Who may use what Express serves outside the OpenAPI document ("METHOD path" as the router table
 * names it; "USE path" for a mounted application):
 * - `public`: static, no account data (the index, the OpenAPI document, the /play client's files);
 * - `matchmake`: Colyseus' seat reservations, probed through the rooms' rows below;
 * - `operator:basic`: the monitor's basic-auth credentials (MONITOR_USER/MONITOR_PASSWORD);
 * - `operator:metrics`: METRICS_TOKEN or the monitor's credentials;
 * - `operator:admin`: the admin endpoint's bearer token, direct connections only;
 * - `development_only`: mounted only with NODE_ENV=development (on loopback by default);
 * - `api_key`: the workspace API's own router (its operations are in REST_ACCESS).
 */
export type SurfaceAccess = "public" | "matchmake" | "operator:basic" | "operator:metrics" | "operator:admin" | "development_only" | "api_key";

export const OTHER_ROUTES: Record<string, SurfaceAccess> = {
  "GET /": "public",
  "GET /api/openapi.json": "public",
  "USE /play": "public",
  "POST /matchmake/:method/:target": "matchmake",
  "_ALL /matchmake/:method/:target": "matchmake",
  "POST /api/public/:operation": "api_key",
  "_ALL /api/public/:operation": "api_key",
  "USE /monitor": "operator:basic",
  "GET /metrics": "operator:metrics",
  "POST /admin/commands": "operator:admin",
  "USE /playground": "development_only",
};

/**
 * What a join option may do (keyed by option name, for every room whose join-option schema has it):
 * - `display_name`: the name a guest shows (suffixed " (guest)"); an account always plays under
 *   its account name. Probe: B and a guest join naming A: the seat is B's / a guest's.
 * - `guest_claim`: a guest's capped claim (bullets); ignored for accounts. Probe: B and a guest
 *   claim the maximum next to A: the seat is theirs, A's rows unchanged.
 * - `own_seat`: shapes only the joiner's own seat or view (character, update channel, heading,
 *   lag compensation). Probe: B and a guest join with a valid value: A's rows unchanged.
 * - `party_code`: an invitation to a party's arena, a bearer secret by design: whoever has it
 *   joins the arena, as itself. Probe: B and a guest join with A's code: admitted under their own
 *   identity, A's seat and rows untouched.
 */
export type JoinOptionClass = "display_name" | "guest_claim" | "own_seat" | "party_code";

export const JOIN_OPTION_CLASSES: Record<string, JoinOptionClass> = {
  username: "display_name",
  character: "own_seat",
  bullets: "guest_claim",
  updates: "own_seat",
  lag_compensation: "own_seat",
  direction: "own_seat",
  party: "party_code",
};

/**
 * Each room's seats: whether a dropped connection's seat waits for its reconnection ("window": the
 * probes then also check that A itself still gets its seat back after the others were refused) or
 * not ("none"); and whose seat it is (`identity`: "account" when onAuth resolves the session into
 * an account or a guest, "none" for a room that keeps nobody's identity; the mode page keeps a
 * signed-in viewer's, to show its teachers where it is: issue 42).
 */
export const ROOM_SEATS: Record<string, { reconnection: "window" | "none"; identity: "account" | "none" }> = {
  boss_lobby: { reconnection: "none", identity: "account" },
  boss: { reconnection: "window", identity: "account" },
  mode_select: { reconnection: "none", identity: "account" },
  pvp: { reconnection: "window", identity: "account" },
  slitherrush: { reconnection: "window", identity: "account" },
};

/** A JSON schema (OpenAPI / zod's toJSONSchema), enough of it to build a value. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  $ref?: string;
}

/**
 * A value the schema accepts, as an attacker would pick it: every property present (required or
 * not), numbers at their maximum, and any property named in `named` given that value (the victim's
 * ids and names). Booleans are false (unlocking, enabling).
 */
export function sampleFromSchema(schema: JsonSchema | undefined, named: Record<string, unknown> = {}, resolve: (ref: string) => JsonSchema = () => ({})): unknown {
  if (!schema) return undefined;
  if (schema.$ref) return sampleFromSchema(resolve(schema.$ref), named, resolve);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return sampleFromSchema(alternative, named, resolve);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        out[key] = key in named ? named[key] : sampleFromSchema(sub, named, resolve);
        if (out[key] === undefined) delete out[key];
      }
      return out;
    }
    case "array":
      return [];
    case "integer":
      return schema.maximum ?? schema.minimum ?? 1;
    case "number":
      return schema.maximum ?? schema.minimum ?? 1;
    case "boolean":
      return false;
    case "string":
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return schema.default;
  }
}

interface RouterLayer {
  rawPath?: string | string[];
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

/**
 * What an Express application answers, from its router's stack: "METHOD path" for each route,
 * "USE path" for an application or handler mounted at a path of its own (the monitor, /play).
 * Middleware mounted at "/" or at a list of paths (guards, parsers, the 404) answer nothing of
 * their own and are left out.
 */
export function routeTable(app: { router: { stack: RouterLayer[] } }): string[] {
  const found = new Set<string>();
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) found.add(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
        continue;
      }
      if (Array.isArray(layer.rawPath)) continue;
      const path = layer.rawPath === "/" || layer.rawPath === undefined ? "" : layer.rawPath;
      const sub = layer.handle?.stack;
      if (sub && sub.some((l) => l.route || l.handle?.stack)) walk(sub, prefix + path);
      else if (path) found.add(`USE ${prefix}${path}`);
    }
  };
  walk(app.router.stack, "");
  return [...found].sort();
}
