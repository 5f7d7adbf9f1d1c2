// Issue 19: the property-based fuzz suite. One real server, started as `npm start` starts it, with a
// signed-in player, a workspace user and a valid API key; beside them a bystander whose account,
// progress and workspace records nobody may touch.
//
// REST: every operation of GET /api/openapi.json gets bodies, query strings and path parameters
// generated from its schemas (valid) and around them (test/fuzz/arbitraries.ts). Rooms: every
// inbound message of every room (src/protocol/rooms.ts) gets the same, sent by an abuser beside a
// well-behaved observer. What must hold is listed at each property. Seeded and time-bounded
// (settings.ts); a failure prints the seed and the shrunk counter-example.
import { request, type IncomingHttpHeaders } from "node:http";
import { fc, it } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { z } from "zod";
import { Client as ColyseusClient, type Room as SdkRoom } from "@colyseus/sdk";
import { around, aroundOrValid, asJson, DeepNesting, hasNonFinite, jsonText, POISON_STRINGS, replaceAt, stringPaths, valid, type Generated, type JsonSchema } from "./arbitraries.js";
import { Budget, fixedRuns, runParameters, seed, testTimeout, budgetMs } from "./settings.js";
import { startFuzzServer, type FuzzServer, type LogLine } from "./server.js";
import { projectRoot } from "../helpers/process.js";
import { roomProtocols } from "../../src/protocol/rooms.js";
import { BOSS_ROOM } from "../../src/protocol/boss.js";
import { PVP_ROOM } from "../../src/protocol/pvp.js";
import { SLITHERRUSH_ROOM } from "../../src/protocol/slitherrush.js";
import { SlitherRushWorld } from "../../src/protocol/slitherrushSnapshot.js";
import { DATABASE_REFUSED_INPUT } from "../../src/http/errorHandler.js";
import { BOSS_BOUNDS, PLAYER_MAX_SPEED as BOSS_MAX_SPEED, PLAYER_RADIUS as BOSS_RADIUS_PLAYER, MOVE_BURST_SECONDS, SPEED_BOOST_MULTIPLIER } from "../../src/game/boss/constants.js";
import { PVP_BOUNDS, PLAYER_MAX_SPEED as PVP_MAX_SPEED, PLAYER_RADIUS as PVP_RADIUS } from "../../src/game/pvp/constants.js";
import { ARENA_HEIGHT, ARENA_WIDTH, PLAYER_SPEED as SNAKE_SPEED, TICK_RATE } from "../../src/game/slitherrush/constants.js";

let server: FuzzServer;
let doc: { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };
let key: { api_key: string; api_key_secret: string };
const player = { username: "fuzz_player", password: "fuzz player password", cookie: "" };
const workspaceUser = { username: "fuzz-ws", password: "Fuzz-Passw0rd!", cookie: "", id: "" };
const bystander = { username: "bystander", password: "bystander password", cookie: "", workspaceId: "", groupId: "" };
/** Values strings sometimes take so requests reach past lookups: the fuzzer's own records, never the bystander's. */
const pool: string[] = [];
let bystanderBefore: unknown;
let requestCounter = 0;

interface Operation {
  operationId: string;
  parameters?: { name: string; in: "query" | "path" | "header" | "cookie"; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One request on its own connection (fetch's pooled keep-alive sockets race the server's idle
 * timeout, and a request lost that way would look like the server hanging up on the input).
 */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(server.base + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const setCookies = (a: Answer) => a.headers["set-cookie"] ?? [];

async function call(method: string, path: string, body?: unknown, cookie = ""): Promise<{ status: number; json: any; setCookie: string[] }> {
  const res = await send(method, path, { "content-type": "application/json", cookie, "x-forwarded-for": nextAddress() }, body === undefined ? undefined : JSON.stringify(body));
  return { status: res.status, json: res.text ? JSON.parse(res.text) : undefined, setCookie: setCookies(res) };
}

/** Every request from its own address: the per-address limits (login, API key failures) stay out of the way. */
function nextAddress(): string {
  const n = ++requestCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

const cookieOf = (setCookie: string[]) => setCookie.map((c) => c.split(";")[0]).filter((c) => !c.endsWith("=")).join("; ");

async function signIn(who: { username: string; password: string; cookie: string }, path: string) {
  const res = await call("POST", path, { username: who.username, password: who.password });
  if (res.status === 200 || res.status === 201) who.cookie = cookieOf(res.setCookie);
  return res.status;
}

/**
 * Gives the fuzzed player a live session again after a case ended it (a logout, a password change).
 * Logins are limited to 20 a minute per username, which a fast run exceeds: then the player
 * continues as a newly registered account (registration limits are raised for the fuzz server).
 */
let renewals = 0;
async function renewPlayerSession() {
  if ((await signIn(player, "/api/auth/login")) === 200) return;
  player.username = `fuzz_player_${++renewals}`;
  expect(await signIn(player, "/api/auth/register")).toBe(201);
}

const workspace = (operation: string, body: Record<string, unknown> = {}) => call("POST", `/api/public/${operation}`, { ...key, ...body });

/** What the bystander owns, read through the API: it must not change while the fuzzer runs. */
async function bystanderRecords() {
  const me = await call("GET", "/api/auth/me", undefined, bystander.cookie);
  const progress = await call("GET", "/api/snakes/progress", undefined, bystander.cookie);
  const user = await workspace("get_user", { target_user: { user_id: bystander.workspaceId } });
  const groups = await workspace("get_groups");
  return { me: me.json, progress: progress.json, user: user.json, group: groups.json.groups.find((g: { group_id: string }) => g.group_id === bystander.groupId) };
}

beforeAll(async () => {
  console.log(`fuzz: seed ${seed}${fixedRuns ? `, ${fixedRuns} runs per property` : ", time-bounded"} (replay: npm run fuzz -- --seed ${seed}${fixedRuns ? ` --runs ${fixedRuns}` : ""})`);
  server = await startFuzzServer();
  doc = (await call("GET", "/api/openapi.json")).json;
  [key] = (await server.admin(["create-api-key", "--name", "fuzz"])) as (typeof key)[];

  expect(await signIn(player, "/api/auth/register")).toBe(201);
  expect(await signIn(bystander, "/api/auth/register")).toBe(201);
  expect((await call("POST", "/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 }, bystander.cookie)).status).toBe(200);
  const byUser = await workspace("create_user", { target_user: { username: "bystander-ws", first_name: "By", last_name: "Stander", password: "By-Stand3r!x" } });
  bystander.workspaceId = byUser.json.user.user_id;
  const byGroup = await workspace("create_group", { target_group: { name: "Bystanders", description: "not yours" } });
  bystander.groupId = byGroup.json.group.group_id;
  expect((await workspace("add_user_group", { target_user: { user_id: bystander.workspaceId }, target_group: { group_id: bystander.groupId } })).status).toBe(200);

  const wsUser = await workspace("create_user", { target_user: { username: workspaceUser.username, password: workspaceUser.password } });
  workspaceUser.id = wsUser.json.user.user_id;
  expect(await signIn(workspaceUser, "/api/workspace/login")).toBe(200);
  const ownGroup = await workspace("create_group", { target_group: { name: "Fuzzers" } });
  pool.push(workspaceUser.id, workspaceUser.username, ownGroup.json.group.group_id, player.username);
  bystanderBefore = await bystanderRecords();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** Log lines that break "client mistakes never reach error": error level, or the database refusing input. */
function badLogLines(lines: LogLine[]): LogLine[] {
  return lines.filter((l) => l.level >= 50 || l.msg === DATABASE_REFUSED_INPUT);
}

/** A stack frame or one of the server's own paths in a body. */
const LEAK = new RegExp(`(\\n\\s+at\\s.+:\\d+:\\d+)|${projectRoot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|node_modules|file://`);

/** Rules the JSON Schema cannot state (one field depends on another, or on what exists): a schema-valid request may break them. */
const RULES_BEYOND_THE_SCHEMA = [/needs exactly one of/, /must equal character when both are sent/, /Unknown workspaces/, /Password does not meet requirements/, /join_options applies only with reserve_seat/];

/** A query or path value on the wire: UTF-8 percent-escapes, lone surrogates as the bytes a sloppy client would send. */
function encodeWire(value: unknown): string {
  const s = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 63)).toString(16)}%${(0x80 | (code & 63)).toString(16)}`;
    else out += encodeURIComponent(ch);
  }
  return out;
}

/** Builds an arbitrary on first use (after beforeAll fetched the OpenAPI document), then reuses it. */
function once<T>(build: () => fc.Arbitrary<T>): () => fc.Arbitrary<T> {
  let built: fc.Arbitrary<T> | undefined;
  return () => (built ??= build());
}

function urlOf(path: string, pathName: string | undefined, pathValue: unknown, query: Record<string, unknown>): string {
  let url = pathName ? path.replace(`{${pathName}}`, encodeWire(pathValue)) : path;
  // The first path parameter is the one generated; a route's further ones ({studentId}) get a valid id.
  url = url.replace(/\{\w+\}/g, "1");
  const pairs = Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${encodeWire(v)}`]));
  if (pairs.length) url += `?${pairs.join("&")}`;
  return url;
}

interface TextCase {
  method: string;
  path: string;
  pathName?: string;
  /** A valid request, every optional field present. */
  body: unknown;
  query: Record<string, unknown>;
  pathValue?: unknown;
  poison: string;
  /** Every string of the request, each made hostile in its own request. */
  targets: { part: "body" | "query" | "path"; at: (string | number)[] }[];
}

function textCases(): fc.Arbitrary<TextCase> {
  const opts = { root: doc as unknown as Record<string, unknown>, pool, allKeys: true };
  return fc.oneof(...operations().map(({ path, method, op }) => {
    const params = op.parameters ?? [];
    const pathParam = params.find((p) => p.in === "path");
    const queryParams = params.filter((p) => p.in === "query");
    const bodySchema = method === "GET" ? undefined : op.requestBody?.content["application/json"]?.schema;
    return fc
      .record({
        body: bodySchema ? valid(bodySchema, opts) : fc.constant(undefined),
        query: fc.tuple(...queryParams.map((p) => valid(p.schema, opts))),
        pathValue: pathParam ? valid(pathParam.schema, opts) : fc.constant(undefined),
        poison: fc.constantFrom(...POISON_STRINGS),
      })
      .map(({ body, query, pathValue, poison }) => ({
        method,
        path,
        pathName: pathParam?.name,
        body,
        query: Object.fromEntries(queryParams.map((p, i) => [p.name, query[i]])),
        pathValue,
        poison,
        targets: [
          ...(bodySchema ? stringPaths(bodySchema, body, opts).map((at) => ({ part: "body" as const, at })) : []),
          ...queryParams.map((p) => ({ part: "query" as const, at: [p.name] })), // every query value is a string on the wire
          ...(pathParam ? [{ part: "path" as const, at: [pathParam.name] }] : []),
        ],
      }));
  }));
}

/**
 * A teacher's or admin's route answered the fuzzer's student account 403 `forbidden` (issue 42):
 * the role is checked before the input is read, so hostile text there never reaches anything.
 */
function refusedForRole(status: number, text: string): boolean {
  if (status !== 403) return false;
  try {
    return JSON.parse(text).error?.code === "forbidden";
  } catch {
    return false;
  }
}

interface RestCase {
  method: string;
  path: string;
  url: string;
  body: Generated & { valid: boolean };
  query: (Generated & { valid: boolean })[];
  pathParam?: Generated & { valid: boolean };
  realCredentials: boolean;
}

function restCases(): fc.Arbitrary<RestCase> {
  const opts = { root: doc as unknown as Record<string, unknown>, pool };
  return fc.oneof(...operations().map(({ path, method, op }) => {
    const params = op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === "path");
    const queryParams = params.filter((p) => p.in === "query");
    const bodySchema = op.requestBody?.content["application/json"]?.schema;
    // A body of another type (a roster's text/csv): what is sent here is never valid for it.
    const otherBody = op.requestBody !== undefined && bodySchema === undefined;
    const body = bodySchema
      ? aroundOrValid(bodySchema, opts)
      : fc.oneof(fc.constant({ value: undefined, poisoned: false, valid: !otherBody }), around({}, opts).map((g) => ({ ...g, valid: false })));
    const query = fc.tuple(
      ...queryParams.map((p) =>
        fc.option(aroundOrValid(p.schema, opts), { freq: 3 }).map((g) => (g === null ? { value: undefined, poisoned: false, valid: true } : g)),
      ),
    );
    const pathParam = pathParams.length ? aroundOrValid(pathParams[0].schema, opts) : fc.constant(undefined);
    const realCredentials = fc.nat(4).map((n) => n > 0);
    return fc.record({ body, query, pathParam, realCredentials }).map(({ body, query, pathParam, realCredentials }) => {
      const url = urlOf(path, pathParams[0]?.name, pathParam?.value, Object.fromEntries(queryParams.map((p, i) => [p.name, query[i].value])));
      return { method, path, url, body, query, pathParam, realCredentials } satisfies RestCase;
    });
  }));
}

/** Sends one request as the signed-in player (and workspace user); the answer and how long it took. */
async function sendAsPlayer(method: string, url: string, body: unknown) {
  const logsBefore = server.logs.length;
  const started = Date.now();
  const res = await send(
    method,
    url,
    { "content-type": "application/json", cookie: `${player.cookie}; ${workspaceUser.cookie}`, "x-forwarded-for": nextAddress() },
    body === undefined || method === "GET" ? undefined : jsonText(body),
  );
  const elapsed = Date.now() - started;
  // Every request Express saw ends with its "request" log line: wait for it, then judge every line of this request.
  const requestId = res.headers["x-request-id"];
  if (typeof requestId === "string") await server.waitForLine((l) => l.msg === "request" && l.requestId === requestId, 10_000);
  return { res, elapsed, logs: server.logs.slice(logsBefore) };
}

const operations = () => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

/** Puts the real key pair into a workspace API body (a copy), unless `keep` names a credential field. */
function withRealCredentials(body: unknown, keep?: string): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const out = { ...(body as Record<string, unknown>) };
  for (const field of ["api_key", "api_key_secret"] as const) if (field in out && field !== keep) out[field] = key[field];
  return out;
}

describe("REST: every operation of the OpenAPI document", () => {
  const budget = new Budget(budgetMs.rest);
  let cases = 0;
  const byOperation = new Map<string, number>();
  const slowest = new Map<string, number>();

  it.prop([budget.cases(once(restCases))], runParameters(budget, 20_000))(
    "never a 5xx, a non-JSON error, a stack or path in a body, or an error log line; valid accepted; hostile text refused",
    async (c) => {
      if (!budget.admit(c)) return;
      await budget.check(async () => {
        cases++;
        const started = Date.now();
        byOperation.set(`${c.method} ${c.path}`, (byOperation.get(`${c.method} ${c.path}`) ?? 0) + 1);
        // A copy of the top level, where credentials are set (fast-check replays its values while shrinking).
        const generated = c.body.value;
        const body = generated && typeof generated === "object" && !Array.isArray(generated) && !(generated instanceof DeepNesting) ? { ...generated } : generated;
        const isWorkspaceApi = c.path.startsWith("/api/public/");
        let authenticated = true;
        if (isWorkspaceApi && body && typeof body === "object" && !Array.isArray(body)) {
          const b = body as Record<string, unknown>;
          // Most cases carry the real key pair (when the generated one is well-formed), so they get past authentication.
          for (const field of ["api_key", "api_key_secret"] as const) {
            if (c.realCredentials && typeof b[field] === "string" && (b[field] as string).length > 0 && !/[\u0000-\u001f\ud800-\udfff]/.test(b[field] as string)) b[field] = key[field];
          }
          authenticated = b.api_key === key.api_key && b.api_key_secret === key.api_key_secret;
        }
        const { res, elapsed, logs } = await sendAsPlayer(c.method, c.url, body);
        const text = res.text;
        const status = res.status;
        const where = `${c.method} ${c.url.slice(0, 200)} → ${status} ${text.slice(0, 300)}`;

        expect(status, `5xx: ${where}`).toBeLessThan(500);
        expect(elapsed, `slow answer (${elapsed} ms): ${where}`).toBeLessThan(5_000);
        expect(LEAK.test(text), `stack or path in the body: ${where}`).toBe(false);
        if (status >= 400) {
          expect(res.headers["content-type"] ?? "", `non-JSON error: ${where}`).toMatch(/application\/json/);
          const json = JSON.parse(text);
          if (isWorkspaceApi) expect(Object.keys(json), `error shape: ${where}`).toEqual(["error_message"]);
          else expect(json, `error shape: ${where}`).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
        }
        const allValid = c.body.valid && c.query.every((q) => q.valid) && (c.pathParam?.valid ?? true);
        if (allValid && status === 400) {
          const json = JSON.parse(text);
          const message: string = json.error_message ?? json.error?.message ?? "";
          const listed = /^Invalid request( \w+)?: /.exec(message);
          const problems = listed ? message.slice(listed[0].length).split("; ") : [message];
          expect(problems.every((p) => RULES_BEYOND_THE_SCHEMA.some((r) => r.test(p))), `valid input refused: ${where}`).toBe(true);
        }
        const poisoned = c.body.poisoned || c.query.some((q) => q.poisoned);
        if (poisoned || c.pathParam?.poisoned) {
          const allowed = [400, 429, 431 /* a URL too long for the edge */, ...(c.pathParam?.poisoned ? [404] : []), ...(isWorkspaceApi && !authenticated ? [401] : []), ...(refusedForRole(status, text) ? [403] : [])];
          expect(allowed, `hostile text not refused: ${where}`).toContain(status);
        }
        expect(badLogLines(logs), `error-level log line or database refusal: ${where}`).toEqual([]);

        // Ending the fuzzer's own sessions is allowed; sign in again so later cases stay signed in.
        const code = status === 401 && !isWorkspaceApi ? JSON.parse(text).error?.code : undefined;
        if (c.path === "/api/auth/logout" || code === "invalid_token" || (code === "unauthenticated" && !c.path.startsWith("/api/workspace/"))) await renewPlayerSession();
        if (c.path === "/api/workspace/logout" || (c.path === "/api/workspace/me" && status === 401)) await signIn(workspaceUser, "/api/workspace/login");
        const took = Date.now() - started;
        if (took > (slowest.get(`${c.method} ${c.path}`) ?? 0)) slowest.set(`${c.method} ${c.path}`, took);
      });
    },
    testTimeout(budget),
  );

  const textBudget = new Budget(budgetMs.restText);
  let textRequests = 0;
  it.prop([textBudget.cases(once(textCases))], runParameters(textBudget, 20_000))(
    "a NUL or a lone surrogate in any string of any operation (body, query, path) is refused: 400, no database refusal, no error line",
    async (c) => {
      if (!textBudget.admit(c)) return;
      await textBudget.check(async () => {
        for (const target of c.targets) {
          textRequests++;
          let body = c.body;
          let query = c.query;
          let pathValue = c.pathValue;
          if (target.part === "body") body = replaceAt(body, target.at, c.poison);
          else if (target.part === "query") query = { ...query, [target.at[0]]: c.poison };
          else pathValue = c.poison;
          if (c.path.startsWith("/api/public/")) body = withRealCredentials(body, target.part === "body" && target.at.length === 1 ? String(target.at[0]) : undefined);
          const url = urlOf(c.path, c.pathName, pathValue, query);
          let { res, logs } = await sendAsPlayer(c.method, url, body);
          // An earlier case may have ended one of the fuzzer's own sessions (a logout, a password
          // change): authentication answers before validation, so sign in again and send it once more.
          if (res.status === 401 && !c.path.startsWith("/api/public/")) {
            if (c.path.startsWith("/api/workspace/")) await signIn(workspaceUser, "/api/workspace/login");
            else await renewPlayerSession();
            ({ res, logs } = await sendAsPlayer(c.method, url, body));
          }
          const where = `${c.method} ${url.slice(0, 200)} with ${JSON.stringify(c.poison)} at ${target.part} ${target.at.join(".")} → ${res.status} ${res.text.slice(0, 300)}`;
          expect([400, 429, ...(target.part === "body" ? [] : [431]), ...(target.part === "path" ? [404] : []), ...(refusedForRole(res.status, res.text) ? [403] : [])], `hostile text not refused: ${where}`).toContain(res.status);
          expect(badLogLines(logs), `error-level log line or database refusal: ${where}`).toEqual([]);
        }
      });
    },
    testTimeout(textBudget),
  );

  it("left the bystander's account, progress and workspace records alone, and logged no error", async () => {
    console.log(`fuzz REST text rule: ${textRequests} requests, each with one string of a valid request made hostile`);
    const slow = [...slowest].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([op, ms]) => `${op} ${ms} ms`);
    console.log(`fuzz REST: slowest cases: ${slow.join(", ")}`);
    console.log(`fuzz REST: ${cases} cases over ${byOperation.size} of ${Object.values(doc.paths).flatMap(Object.keys).length} operations`);
    expect(server.alive()).toBe(true);
    expect(await bystanderRecords()).toEqual(bystanderBefore);
    expect(badLogLines(server.logs)).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
// Rooms
// ------------------------------------------------------------------------------------------------

const jsonSchemaOf = (schema: z.ZodType | undefined): JsonSchema =>
  schema ? (z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema) : { type: "object" };

/** What a room streams to a well-behaved client, and where its players may be. */
/** `continuous`: the room streams to a client even when nobody moves (a boss that moves, an arena with its own tick). */
const streams: Record<string, { continuous: boolean; bounds: { width: number; height: number }; maxSpeed: number; slack: number }> = {
  [BOSS_ROOM]: { continuous: true, bounds: BOSS_BOUNDS, maxSpeed: BOSS_MAX_SPEED * SPEED_BOOST_MULTIPLIER, slack: 2 * BOSS_RADIUS_PLAYER },
  [PVP_ROOM]: { continuous: false, bounds: PVP_BOUNDS, maxSpeed: PVP_MAX_SPEED, slack: 2 * PVP_RADIUS },
  [SLITHERRUSH_ROOM]: { continuous: true, bounds: { width: ARENA_WIDTH, height: ARENA_HEIGHT }, maxSpeed: SNAKE_SPEED, slack: 1 },
};

/** The /matchmake refusal of a room that is locked (full) or gone (src/http/matchmake.ts). */
const roomLockedOrGone = (e: { code?: number; message?: string }) => (e.code === 409 && /takes no more players/.test(e.message ?? "")) || e.code === 404;

/** A message type the rooms do not know: its `unknown_message` answer tells that everything before it was handled. */
const PROBE = "fuzz_probe";

class Observer {
  room!: SdkRoom;
  problems: string[] = [];
  updates: number[] = [];
  private last = new Map<string, { x: number; y: number; t: number }>();
  private world = new SlitherRushWorld();
  left = false;

  constructor(readonly name: string) {}

  async join(client: ColyseusClient): Promise<void> {
    this.room = await client.joinOrCreate(this.name, this.name === BOSS_ROOM || this.name === PVP_ROOM ? { bullets: 30 } : {});
    this.left = false;
    this.room.onLeave(() => (this.left = true));
    this.room.onMessage("*", (type: string | number, payload: unknown) => this.message(type, payload));
    this.room.onStateChange(() => this.patch());
  }

  private message(type: string | number, payload: unknown) {
    if (payload instanceof Uint8Array || ArrayBuffer.isView(payload)) {
      if (type === "slitherrush_state") this.snapshot(payload as Uint8Array);
      return;
    }
    if (hasNonFinite(payload)) this.problems.push(`non-finite number in ${String(type)}: ${JSON.stringify(payload)}`);
  }

  private snapshot(bytes: Uint8Array) {
    const before = new Map([...this.world.snakes].map(([slot, s]) => [slot, { ...s.body[0] }]));
    const tick = this.world.tick;
    const snap = this.world.apply(bytes);
    this.updates.push(Date.now());
    const limit = streams[SLITHERRUSH_ROOM];
    for (const rec of snap.snakes) {
      const head = this.world.snakes.get(rec.slot)?.body[0];
      if (!head) continue;
      if (!(head.x >= 0 && head.x <= limit.bounds.width && head.y >= 0 && head.y <= limit.bounds.height)) this.problems.push(`snake ${rec.slot} outside the arena at ${head.x},${head.y}`);
      const prev = before.get(rec.slot);
      if (prev && !rec.full && snap.tick > tick) {
        const moved = Math.hypot(head.x - prev.x, head.y - prev.y);
        const allowed = limit.maxSpeed * ((snap.tick - tick) / TICK_RATE) * 1.05 + limit.slack;
        if (moved > allowed) this.problems.push(`snake ${rec.slot} moved ${moved.toFixed(1)} px in ${snap.tick - tick} ticks (at most ${allowed.toFixed(1)})`);
      }
    }
  }

  private patch() {
    const now = Date.now();
    if (this.name !== SLITHERRUSH_ROOM) this.updates.push(now); // its stream is the binary snapshots
    const state = (this.room.state as { toJSON?: () => unknown })?.toJSON?.() as { players?: Record<string, { x: number; y: number }> } | undefined;
    if (hasNonFinite(state)) this.problems.push(`non-finite number in the state: ${JSON.stringify(state)}`);
    const limit = streams[this.name];
    if (!limit || !state?.players) return;
    for (const [id, p] of Object.entries(state.players)) {
      if (!(p.x >= 0 && p.x <= limit.bounds.width && p.y >= 0 && p.y <= limit.bounds.height)) this.problems.push(`player ${id} outside the arena at ${p.x},${p.y}`);
      const prev = this.last.get(id);
      if (prev) {
        const allowed = limit.maxSpeed * ((now - prev.t) / 1000 + MOVE_BURST_SECONDS) * 1.25 + limit.slack;
        const moved = Math.hypot(p.x - prev.x, p.y - prev.y);
        if (moved > allowed) this.problems.push(`player ${id} moved ${moved.toFixed(1)} in ${now - prev.t} ms (at most ${allowed.toFixed(1)})`);
      }
      this.last.set(id, { x: p.x, y: p.y, t: now });
    }
  }
}

interface RoomCase {
  options: Generated & { valid: boolean };
  messages: { type: string | number; payload: Generated & { valid: boolean } }[];
}

function roomCases(name: string): fc.Arbitrary<RoomCase> {
  const protocol = roomProtocols[name];
  const known = Object.entries(protocol.inbound).map(([type, schema]) => ({ type, schema: jsonSchemaOf(schema) }));
  const message = fc.oneof(
    { arbitrary: fc.constantFrom(...known).chain(({ type, schema }) => aroundOrValid(schema).map((payload) => ({ type: type as string | number, payload }))), weight: 9 },
    { arbitrary: fc.tuple(fc.constantFrom<string | number>("nope", "", "__proto__", "x".repeat(300), 0, 7, 255), aroundOrValid({})).map(([type, payload]) => ({ type, payload })), weight: 1 },
  );
  const options = fc.oneof(
    { arbitrary: valid(jsonSchemaOf(protocol.joinOptions)).map((value) => ({ value, poisoned: false, valid: true })), weight: 3 },
    { arbitrary: aroundOrValid(jsonSchemaOf(protocol.joinOptions)), weight: 1 },
  );
  return fc.record({ options, messages: fc.array(message, { minLength: 1, maxLength: 20 }) });
}

describe("rooms: every inbound message of every room", () => {
  const names = Object.keys(roomProtocols);
  const perRoomMs = Math.floor(budgetMs.roomsTotal / names.length);
  const counts: Record<string, { cases: number; messages: number; refusedJoins: Record<string, number>; unsendable: number; cutOff: number }> = {};

  it("the server defines exactly the rooms the protocol table lists", async () => {
    const listed = (await call("GET", "/")).json.endpoints.rooms as string[];
    expect([...listed].sort()).toEqual([...names].sort());
  });

  for (const name of names) {
    const budget = new Budget(perRoomMs);
    const observerClient = () => new ColyseusClient(server.wsBase);
    let observer: Observer;
    let baseline = 0;

    it.prop([budget.cases(once(() => roomCases(name)))], runParameters(budget, 5_000))(
      `${name}: the server stays up, the observer keeps its stream, no NaN/Infinity, positions and speeds within the rules, the abuser is answered or cut off`,
      async (c) => {
        if (!budget.admit(c)) return;
        await budget.check(async () => {
          const count = (counts[name] ??= { cases: 0, messages: 0, refusedJoins: {}, unsendable: 0, cutOff: 0 });
          const logsBefore = server.logs.length;
          if (!observer || observer.left) {
            observer = new Observer(name);
            await observer.join(observerClient());
            if (streams[name]?.continuous) {
              await expect.poll(() => observer.updates.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
              const u = observer.updates;
              baseline ||= (u.length - 1) / Math.max(1, (u[u.length - 1] - u[0]) / 1000);
            }
          }
          count.cases++;
          const options = asJson(c.options.value) as Record<string, unknown>;
          const abuser = await new ColyseusClient(server.wsBase).joinById(observer.room.roomId, options).catch((e: { code?: number; message?: string }) => e);
          if (!("roomId" in abuser) && abuser.code === undefined) {
            // The SDK itself could not send these options (null, thousands deep): nothing reached the server.
            count.unsendable++;
            return;
          }
          if (!("roomId" in abuser)) {
            // A refused join is a client mistake: 4xx, never a server fault.
            count.refusedJoins[abuser.code!] = (count.refusedJoins[abuser.code!] ?? 0) + 1;
            // A room locked or gone: a seat held for a cut-off abuser's reconnection fills it. The next case gets a new room.
            const refusal = `join refused with ${abuser.code} ${abuser.message}`;
            expect((abuser.code ?? 0) >= 400 && (abuser.code ?? 0) < 500, refusal).toBe(true);
            if (roomLockedOrGone(abuser)) {
              await observer.room.leave().catch(() => undefined);
              observer.left = true;
            }
            return;
          }
          expect(c.options.poisoned, `join options with hostile text were accepted: ${JSON.stringify(c.options.value)}`).toBe(false);
          const answers: unknown[] = [];
          let left = false;
          const outcome = new Promise<"answered" | "cut off">((resolve) => {
            abuser.onMessage("*", (type: string | number, payload: unknown) => {
              answers.push(payload);
              if (type === "error" && (payload as { type?: string }).type === PROBE) resolve("answered");
            });
            abuser.onLeave(() => {
              left = true;
              resolve("cut off");
            });
          });
          for (const m of c.messages) {
            if (left) break;
            count.messages++;
            try {
              abuser.send(m.type as string, asJson(m.payload.value));
            } catch {
              // The SDK refuses to encode some payloads (e.g. 2,000-deep nesting): nothing was sent.
            }
          }
          if (!left) abuser.send(PROBE, {});
          const result = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve("silent"), 10_000))]);
          expect(result, `the abuser was neither answered nor cut off after ${JSON.stringify(c.messages.map((m) => m.type))}`).not.toBe("silent");
          if (result === "cut off") count.cutOff++;
          for (const a of answers) expect(hasNonFinite(a), `non-finite number sent to the abuser: ${JSON.stringify(a)}`).toBe(false);
          if (!left) await abuser.leave().catch(() => undefined);
          expect(server.alive(), `server died: ${server.rawOutput().slice(-2000)}`).toBe(true);
          expect(observer.problems).toEqual([]);
          expect(badLogLines(server.logs.slice(logsBefore)), "error-level log line").toEqual([]);
        });
      },
      testTimeout(budget) + 15_000,
    );

    it(`${name}: the observer's stream held`, async () => {
      console.log(`fuzz ${name}: ${JSON.stringify(counts[name] ?? {})}`);
      if (!observer) return;
      expect(observer.problems).toEqual([]);
      if (streams[name]?.continuous && observer.updates.length > 1) {
        const u = observer.updates;
        const gaps = u.slice(1).map((t, i) => t - u[i]);
        const rate = (u.length - 1) / Math.max(0.001, (u[u.length - 1] - u[0]) / 1000);
        console.log(`fuzz ${name}: observer ${rate.toFixed(1)} updates/s (baseline ${baseline.toFixed(1)}), longest gap ${Math.max(...gaps)} ms`);
        expect(rate).toBeGreaterThan(baseline * 0.3);
        expect(Math.max(...gaps)).toBeLessThan(3_000);
      }
      if (!observer.left) await observer.room.leave().catch(() => undefined);
    });
  }
});
