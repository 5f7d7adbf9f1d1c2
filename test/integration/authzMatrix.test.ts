// Issue 37: the authorisation matrix. For every REST operation (from the OpenAPI document and the
// live Express route table), every operator surface (in development and in production), every
// room's join options (from the rooms' zod schemas), reconnection and party codes, a second account,
// a guest and a caller without credentials try to read or change account A's data; each probe
// asserts the refusal (or that the answer is the caller's own) and that A's rows did not change.
// The classification of each route, option and room is in test/helpers/authzMatrix.ts: a route, an
// operation, a room or an option without a row fails the completeness tests here. Every probe and
// its answer is written to test/output/authz-matrix.<database>.md.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import jwt from "jsonwebtoken";
import { z } from "zod";
import { matchMaker, type Room as ServerRoom } from "@colyseus/core";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually, MessageLog, waitForMessage } from "../helpers/boss.js";
import { JOIN_OPTION_CLASSES, OTHER_ROUTES, REST_ACCESS, ROOM_SEATS, routeTable, sampleFromSchema, type JsonSchema, type RestAccess } from "../helpers/authzMatrix.js";
import { configureExpress } from "../../src/http/app.js";
import { roomProtocols } from "../../src/protocol/rooms.js";
import { gameRooms } from "../../src/rooms/index.js";
import { WORKSPACE_OPERATIONS } from "../../src/http/workspaceRoutes.js";
import { createApiKey, revokeApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";
import { loadConfig } from "../../src/config.js";
import type { Identity } from "../../src/auth/identity.js";

/** One table per database project (both run at once in CI): authz-matrix.pglite.md, authz-matrix.postgres.md. */
const OUTPUT = join(dirname(fileURLToPath(import.meta.url)), `../output/authz-matrix.${process.env.TEST_DB ?? "pglite"}.md`);
const MONITOR = { user: "ops", password: "monitor-password-0123456789" };
const METRICS_TOKEN = "metrics-token-0123456789abcdefghijklmnop";
const ADMIN_TOKEN = "admin-token-0123456789abcdefghijklmnopqrstuv";
const STRONG_SECRET = randomBytes(32).toString("hex");

interface Probe {
  surface: string;
  target: string;
  who: string;
  expected: string;
  answer: string;
  ok: boolean;
}
const probes: Probe[] = [];
function record(p: Probe): Probe {
  probes.push(p);
  return p;
}
/** Fails with every probe of `rows` that did not get its expected answer, listed. */
function allAnswered(rows: Probe[]) {
  const wrong = rows.filter((p) => !p.ok);
  expect(wrong.map((p) => `${p.surface} ${p.target} by ${p.who}: expected ${p.expected}, got ${p.answer}`)).toEqual([]);
}

let t: TestApp;
type Account = Awaited<ReturnType<TestApp["account"]>>;
let A: Account;
let B: Account;
let aEndedCookie: string;
let aBossRoomId: string;
let key: ApiKeyPair;
let otherKey: ApiKeyPair;
let revokedKey: ApiKeyPair;
let wsUser: { user_id: string; username: string; cookie: string };
let wsVictim: { user_id: string; username: string };
let wsGroupId: string;
let doc: { paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { schema: JsonSchema }> }; parameters?: Array<{ name: string; in: string; schema: JsonSchema }> }>>; components: { schemas: Record<string, JsonSchema> } };

/** Every request of the matrix from an address of its own: the per-address limits never answer for the probe. */
let addressCounter = 0;
const freshAddress = () => `203.0.${Math.floor(++addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`;

const STARTING_BULLETS = 30;

/** A new session for an account (its earlier one was ended by a probe of its own logout). */
async function signInAgain(acc: Account, password: string) {
  const http = t.http({ "x-forwarded-for": freshAddress() });
  expect((await http.post("/api/auth/login", { username: acc.user.username, password })).status).toBe(200);
  acc.http = http;
  acc.cookie = http.cookieHeader;
}

beforeAll(async () => {
  t = await startTestApp({ monitorUser: MONITOR.user, monitorPassword: MONITOR.password, metricsToken: METRICS_TOKEN });
  A = await t.account(`victim_a${process.pid % 10000}`, "victim-a-password");
  B = await t.account(`other_b${process.pid % 10000}`, "other-b-password");
  for (const acc of [A, B]) {
    await t.prisma.gameProgress.upsert({ where: { userId: acc.user.id }, create: { userId: acc.user.id, totalBullets: STARTING_BULLETS }, update: { totalBullets: STARTING_BULLETS } });
  }
  // A second session of A, ended by its own logout: its token must open nothing (A's first goes on).
  const second = t.http({ "x-forwarded-for": freshAddress() });
  expect((await second.post("/api/auth/login", { username: A.user.username, password: "victim-a-password" })).status).toBe(200);
  aEndedCookie = second.cookieHeader;
  expect((await second.post("/api/auth/logout")).status).toBe(200);

  key = await createApiKey(t.prisma, "matrix key");
  otherKey = await createApiKey(t.prisma, "matrix other key");
  revokedKey = await createApiKey(t.prisma, "matrix revoked key");
  await revokeApiKey(t.prisma, revokedKey.api_key);
  const api = (op: string, body: Record<string, unknown>) => t.http().post(`/api/public/${op}`, { ...key, ...body });
  const mk = async (username: string) => (await api("create_user", { target_user: { username, password: "Plain!User1", locked: true } })).body.user;
  const u = await mk(`plain.user${process.pid}`);
  expect((await api("update_user", { target_user: { user_id: u.user_id, locked: false } })).status).toBe(200);
  wsVictim = await mk(`victim.user${process.pid}`);
  wsGroupId = (await api("create_group", { target_group: { name: `Admins${process.pid}` } })).body.group.group_id;
  const desk = t.http({ "x-forwarded-for": freshAddress() });
  expect((await desk.post("/api/workspace/login", { username: u.username, password: "Plain!User1" })).status).toBe(200);
  wsUser = { user_id: u.user_id, username: u.username, cookie: desk.cookieHeader };
  doc = (await t.http().get("/api/openapi.json")).body;
  // A's boss battle: what B's boss probes aim at (read its roster, leave it for A, join it).
  const battle = await A.http.post("/api/boss/join", {});
  expect(battle.status, battle.text).toBe(200);
  aBossRoomId = battle.body.room_id;
});

afterAll(async () => {
  mkdirSync(dirname(OUTPUT), { recursive: true });
  const lines = [
    "# Authorisation matrix: every probe and its answer",
    "",
    `${probes.length} probes, ${probes.filter((p) => !p.ok).length} not answered as expected. Written by test/integration/authzMatrix.test.ts.`,
    "",
    "| surface | target | who | expected | answer | ok |",
    "|---|---|---|---|---|---|",
    ...probes.map((p) => `| ${p.surface} | ${p.target} | ${p.who} | ${p.expected} | ${p.answer.replace(/\|/g, "\\|")} | ${p.ok ? "yes" : "**NO**"} |`),
  ];
  writeFileSync(OUTPUT, `${lines.join("\n")}\n`);
  console.log(`authz matrix: ${probes.length} probes, ${probes.filter((p) => !p.ok).length} failed; table in ${OUTPUT}`);
  await t?.stop();
});

// ---------------------------------------------------------------------------------------------
// What "A's data" is: A's users row, every row of a table with a user_id column that is A's, the
// squares of A's progress and A's ended sessions. A new table keyed by user_id is read without edits.

let accountQuery: string | undefined;
let workspaceQuery: string | undefined;

/**
 * One statement reading every table of `tables` (each `[name, where]`) as a JSON object. Without
 * users.last_seen_at: A's own requests in the probes' set-up (seating A in a room) move it, and
 * only a request on A's live session can (src/auth/lastSeen.ts).
 */
const snapshotQuery = (tables: Array<[string, string]>) =>
  `SELECT json_build_object(${tables.map(([name, where]) => `'${name}', (SELECT coalesce(json_agg(to_jsonb(r) - 'last_seen_at' ORDER BY r::text), '[]') FROM "${name}" r ${where})`).join(", ")})::text AS state`;

async function accountState(userId: number): Promise<string> {
  if (!accountQuery) {
    const tables = await t.prisma.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'user_id' AND data_type = 'integer' ORDER BY table_name`;
    accountQuery = snapshotQuery([
      ["users", "WHERE id = $1"],
      ...tables.map(({ table_name }): [string, string] => [table_name, "WHERE user_id = $1"]),
      ["square_completions", "WHERE progress_id IN (SELECT id FROM game_progress WHERE user_id = $1)"],
      ["revoked_sessions", "WHERE subject = 'u:' || $1::text"],
    ]);
  }
  return (await t.prisma.$queryRawUnsafe<{ state: string }[]>(accountQuery, userId))[0].state;
}

/** The workspace platform's whole state: users, groups, memberships, allowed images, API keys, registry, workspace sessions. */
async function workspaceState(): Promise<string> {
  if (!workspaceQuery) {
    const tables = await t.prisma.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND (table_name LIKE 'workspace%' OR table_name = 'api_keys') ORDER BY table_name`;
    workspaceQuery = snapshotQuery([...tables.map(({ table_name }): [string, string] => [table_name, ""]), ["revoked_sessions", "WHERE subject LIKE 'w:%'"]]);
  }
  return (await t.prisma.$queryRawUnsafe<{ state: string }[]>(workspaceQuery))[0].state;
}

// ---------------------------------------------------------------------------------------------
// Credentials that are not A's session but name A.

/** A token claiming to be A, signed with a key that is not the server's. */
const forgedCookie = () => `jwt=${jwt.sign({ _uid: A.user.id, sid: "forged-session", sep: 0 }, "not-the-server-secret-0123456789abcdef", { algorithm: "HS256", expiresIn: 3600 })}`;
/** A token claiming to be A with no signature at all. */
const unsignedCookie = () => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  return `jwt=${part({ alg: "none", typ: "JWT" })}.${part({ _uid: A.user.id, sid: "unsigned", sep: 0, iat: now, exp: now + 3600 })}.`;
};
const workspaceToken = () => wsUser.cookie.split("=").slice(1).join("=");

interface Caller {
  who: string;
  headers: Record<string, string>;
  /** Fields merged into a JSON body (into the query string of a GET). */
  body?: Record<string, unknown>;
  /** The plain workspace user aiming at itself (raising its own rights) instead of another user. */
  onItself?: boolean;
}

function callersForSession(): { refused: Caller[]; other: Caller[] } {
  return {
    refused: [
      { who: "no credentials", headers: {} },
      { who: "a token naming A signed with another key", headers: { cookie: forgedCookie() } },
      { who: "an unsigned (alg none) token naming A", headers: { cookie: unsignedCookie() } },
      { who: "A's ended session (logged out)", headers: { cookie: aEndedCookie } },
      { who: "a workspace user's session token as the game cookie", headers: { cookie: `jwt=${workspaceToken()}` } },
      { who: "a valid API key pair (body and bearer)", headers: { authorization: `Bearer ${key.api_key}:${key.api_key_secret}` }, body: { ...key } },
    ],
    other: [
      { who: "account B", headers: { cookie: B.cookie } },
      { who: "account B naming A's id and name", headers: { cookie: B.cookie }, body: { user_id: A.user.id, userId: A.user.id, _uid: A.user.id, id: A.user.id, username: A.user.username, uid: A.user.username } },
    ],
  };
}

function callersForApiKey(): Caller[] {
  return [
    { who: "no credentials", headers: {} },
    { who: "a wrong secret", headers: {}, body: { api_key: key.api_key, api_key_secret: "0".repeat(64) } },
    { who: "a revoked key", headers: {}, body: { ...revokedKey } },
    { who: "a key with another key's secret", headers: {}, body: { api_key: key.api_key, api_key_secret: otherKey.api_key_secret } },
    { who: "the key pair in a header, not the body", headers: { authorization: `Bearer ${key.api_key}:${key.api_key_secret}`, "x-api-key": key.api_key, "x-api-key-secret": key.api_key_secret } },
    { who: "account A's game session", headers: { cookie: A.cookie } },
    { who: "the plain workspace user's own session (on itself)", headers: { cookie: wsUser.cookie }, onItself: true },
    { who: "the plain workspace user's own session (on another user)", headers: { cookie: wsUser.cookie } },
  ];
}

const answerOf = (res: { status: number; body: any }) =>
  `${res.status}${res.body?.error?.code ? ` ${res.body.error.code}` : res.body?.error_message ? ` ${String(res.body.error_message).slice(0, 40)}` : ""}`;

// ---------------------------------------------------------------------------------------------

interface Operation {
  id: string;
  method: string;
  path: string;
  bodySchema?: JsonSchema;
  parameters: Array<{ name: string; in: string; schema: JsonSchema }>;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== "object" || !op.operationId) continue;
      out.push({ id: op.operationId, method: method.toUpperCase(), path, bodySchema: op.requestBody?.content?.["application/json"]?.schema, parameters: op.parameters ?? [] });
    }
  }
  return out;
}

const resolveRef = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")] ?? {};

/** The request an attacker sends: the operation's schema filled in, A's (or the victim's) ids wherever a field names one. */
function attackRequest(op: Operation, named: Record<string, unknown>, extra: Record<string, unknown> = {}): { path: string; body?: unknown } {
  let path = op.path;
  const query = new URLSearchParams();
  for (const p of op.parameters) {
    const value = String(p.name in named ? named[p.name] : sampleFromSchema(p.schema, named, resolveRef));
    if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === "query") query.set(p.name, value);
  }
  for (const [k, v] of Object.entries(extra)) if (typeof v !== "object") query.set(k, String(v));
  const qs = query.toString();
  const body = op.bodySchema ? { ...(sampleFromSchema(op.bodySchema, named, resolveRef) as object), ...extra } : Object.keys(extra).length && op.method !== "GET" ? extra : undefined;
  return { path: qs ? `${path}?${qs}` : path, body };
}

async function send(op: Operation, caller: Caller, named: Record<string, unknown>) {
  const req = attackRequest(op, caller.onItself ? { ...named, user_id: wsUser.user_id, username: wsUser.username } : named, caller.body);
  return t.http({ "x-forwarded-for": freshAddress(), ...caller.headers }).request(op.method, req.path, op.method === "GET" ? undefined : (req.body ?? {}));
}

describe("the matrix covers everything the server serves", () => {
  it("every OpenAPI operation has a row, and every row an operation", () => {
    const ids = operations().map((o) => o.id).sort();
    expect(ids.filter((id) => !(id in REST_ACCESS)), "operations without a row in REST_ACCESS").toEqual([]);
    expect(Object.keys(REST_ACCESS).filter((id) => !ids.includes(id)).sort(), "rows for operations that no longer exist").toEqual([]);
    // The workspace API's router serves exactly the operations the document lists.
    expect(operations().filter((o) => o.path.startsWith("/api/public/")).map((o) => o.path.slice("/api/public/".length)).sort()).toEqual([...WORKSPACE_OPERATIONS].sort());
  });

  it("every route Express serves (development, with every operator surface on) is an OpenAPI operation or has a row", async () => {
    const app = await operatorApp("development");
    try {
      const table = routeTable(app.express as never);
      const documented = new Set(operations().filter((o) => !o.path.startsWith("/api/public/")).map((o) => `${o.method} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`));
      const unclassified = table.filter((r) => !documented.has(r) && !(r in OTHER_ROUTES));
      expect(unclassified, "routes neither in the OpenAPI document nor in OTHER_ROUTES").toEqual([]);
      expect(Object.keys(OTHER_ROUTES).filter((r) => !table.includes(r)), "OTHER_ROUTES rows for routes that are gone").toEqual([]);
      expect([...documented].filter((r) => !table.includes(r)), "documented operations Express does not serve").toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("every room has a seat row and every join option of every room's schema a class", () => {
    const rooms = Object.keys(roomProtocols).sort();
    expect(Object.keys(gameRooms()).sort()).toEqual(rooms);
    expect(Object.keys(ROOM_SEATS).sort()).toEqual(rooms);
    const options = new Set<string>();
    for (const name of rooms) for (const option of joinOptionNames(name)) options.add(option);
    expect([...options].filter((o) => !(o in JOIN_OPTION_CLASSES)), "join options without a class").toEqual([]);
    expect(Object.keys(JOIN_OPTION_CLASSES).filter((o) => !options.has(o)), "classes for options no room has").toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("REST: every operation, every caller", () => {
  const byAccess = (access: RestAccess) => () => operations().filter((o) => REST_ACCESS[o.id] === access);

  it("account data (own and shared): refused without A's live session; account B gets only its own; A's rows unchanged", { timeout: 240_000 }, async () => {
    const rows: Probe[] = [];
    const named = { username: A.user.username, user_id: A.user.id, room_id: aBossRoomId, password: "attacker-password", current_password: "attacker-password", new_password: "attacker-password-2" };
    for (const op of [...byAccess("own")(), ...byAccess("shared")()]) {
      const access = REST_ACCESS[op.id];
      const { refused, other } = callersForSession();
      for (const caller of refused) {
        const before = await accountState(A.user.id);
        const res = await send(op, caller, named);
        const unchanged = (await accountState(A.user.id)) === before;
        rows.push(record({ surface: `REST ${access}`, target: `${op.method} ${op.path} (${op.id})`, who: caller.who, expected: "401, A unchanged", answer: `${answerOf(res)}${unchanged ? "" : ", A CHANGED"}`, ok: res.status === 401 && unchanged }));
      }
      for (const caller of other) {
        const before = await accountState(A.user.id);
        const res = await send(op, caller, named);
        const unchanged = (await accountState(A.user.id)) === before;
        const leaks = access === "own" && res.text.includes(A.user.username);
        rows.push(
          record({
            surface: `REST ${access}`,
            target: `${op.method} ${op.path} (${op.id})`,
            who: caller.who,
            expected: access === "own" ? "B's own answer or 4xx, A unchanged, A not named" : "a shared listing or 4xx, A unchanged",
            answer: `${answerOf(res)}${unchanged ? "" : ", A CHANGED"}${leaks ? ", NAMES A" : ""}`,
            // 401 only as a refusal of what B sent (a wrong current password), never as "no session".
            ok: res.status < 500 && (res.status !== 401 || res.body?.error?.code === "invalid_credentials") && unchanged && !leaks,
          }),
        );
      }
    }
    // A's own session still works: nothing above ended it.
    expect((await A.http.get("/api/auth/me")).body.user.id).toBe(A.user.id);
    allAnswered(rows);
  });

  it("public operations: whoever calls, A's rows and A's session stay as they were", { timeout: 120_000 }, async () => {
    const rows: Probe[] = [];
    // Sign-ins and registrations naming A (in another case): a wrong password, a taken name.
    const named = { username: A.user.username.toUpperCase(), password: "attacker-password", room_id: "matrix_room" };
    const { refused, other } = callersForSession();
    for (const op of byAccess("public")()) {
      for (const caller of [...refused, ...other]) {
        const before = await accountState(A.user.id);
        const res = await send(op, caller, named);
        const unchanged = (await accountState(A.user.id)) === before;
        const sessionSet = res.headers.getSetCookie().some((c) => /^jwt(_workspace)?=[^;]+/.test(c) && !/^jwt(_workspace)?=;/.test(c));
        rows.push(
          record({
            surface: "REST public",
            target: `${op.method} ${op.path} (${op.id})`,
            who: caller.who,
            expected: "no session for A, A unchanged",
            answer: `${answerOf(res)}${unchanged ? "" : ", A CHANGED"}${sessionSet ? ", SESSION ISSUED" : ""}`,
            ok: res.status < 500 && unchanged && !sessionSet,
          }),
        );
      }
    }
    expect((await A.http.get("/api/auth/me")).status).toBe(200);
    // B's callers signed B's own session out (POST /api/auth/logout): B signs in again for the rooms.
    await signInAgain(B, "other-b-password");
    allAnswered(rows);
  });

  it("the workspace platform API (update_user and every sibling): nothing but a valid, unrevoked key pair in the body acts; no workspace row changes", { timeout: 240_000 }, async () => {
    const rows: Probe[] = [];
    // The plain user raising its own rights (unlock, enable, join the admins' group) or changing another user.
    const named = { user_id: wsVictim.user_id, group_id: wsGroupId, username: `taken.over${process.pid}`, password: "Takeover!99", name: `Escalated${process.pid}`, workspaces: [] };
    for (const op of byAccess("api_key")()) {
      for (const caller of callersForApiKey()) {
        const before = await workspaceState();
        const res = await send(op, caller, named);
        const unchanged = (await workspaceState()) === before;
        rows.push(record({ surface: "REST api_key", target: `${op.method} ${op.path}`, who: caller.who, expected: "400/401, no workspace row changed", answer: `${answerOf(res)}${unchanged ? "" : ", CHANGED"}`, ok: [400, 401].includes(res.status) && unchanged }));
      }
    }
    // The control: the same key pair does act.
    const ok = await t.http().post("/api/public/validate_credentials", { ...key });
    rows.push(record({ surface: "REST api_key", target: "POST /api/public/validate_credentials", who: "the valid key pair (control)", expected: "200", answer: answerOf(ok), ok: ok.status === 200 }));
    allAnswered(rows);
  });

  it("API keys: stored as a digest only, revoked keys refused everywhere, and no key opens a game account or an operator surface", async () => {
    const rows: Probe[] = [];
    const stored = await t.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM api_keys WHERE key = $1`, key.api_key);
    const plaintext = JSON.stringify(stored).includes(key.api_key_secret);
    const digest = `sha256$${createHash("sha256").update(key.api_key_secret).digest("base64url")}`;
    const asDigest = stored[0]?.secret_hash === digest;
    rows.push(record({ surface: "API keys", target: "api_keys row", who: "the database", expected: "the secret's SHA-256 digest, no plaintext", answer: plaintext ? "PLAINTEXT STORED" : asDigest ? "sha256$ digest only" : "no plaintext, NOT THE DIGEST", ok: !plaintext && asDigest }));
    const revoked = await t.http({ "x-forwarded-for": freshAddress() }).post("/api/public/get_users", { ...revokedKey });
    rows.push(record({ surface: "API keys", target: "POST /api/public/get_users", who: "a revoked key", expected: "401", answer: answerOf(revoked), ok: revoked.status === 401 }));
    for (const [path, method] of [["/api/auth/me", "GET"], ["/api/snakes/", "GET"], ["/api/snakes/add-bullets", "POST"], ["/api/workspace/me", "GET"]] as const) {
      const res = await t.http({ authorization: `Bearer ${key.api_key}:${key.api_key_secret}` }).request(method, path, method === "GET" ? undefined : { ...key, bullets: 10 });
      rows.push(record({ surface: "API keys", target: `${method} ${path}`, who: "a valid API key pair", expected: "401", answer: answerOf(res), ok: res.status === 401 }));
    }
    allAnswered(rows);
  });

  it("a workspace user's own session: refused without it, and it shows that user only", async () => {
    const rows: Probe[] = [];
    for (const op of byAccess("workspace_session")()) {
      const callers: Caller[] = [
        { who: "no credentials", headers: {} },
        { who: "account A's game session (as both cookies)", headers: { cookie: `${A.cookie}; jwt_workspace=${A.cookie.split("=").slice(1).join("=")}` } },
        { who: "a forged workspace token", headers: { cookie: `jwt_workspace=${jwt.sign({ wsu: wsVictim.user_id, sid: "forged", sep: 0, aud: "workspace" }, "not-the-server-secret-0123456789abcdef", { expiresIn: 3600 })}` } },
        { who: "a valid API key pair", headers: { authorization: `Bearer ${key.api_key}:${key.api_key_secret}` } },
      ];
      for (const caller of callers) {
        const res = await send(op, caller, {});
        rows.push(record({ surface: "REST workspace_session", target: `${op.method} ${op.path}`, who: caller.who, expected: "401", answer: answerOf(res), ok: res.status === 401 }));
      }
      const own = await send(op, { who: "the plain workspace user", headers: { cookie: wsUser.cookie } }, {});
      const onlyOwn = own.status === 200 && own.body.user.user_id === wsUser.user_id && !own.text.includes(wsVictim.user_id);
      rows.push(record({ surface: "REST workspace_session", target: `${op.method} ${op.path}`, who: "the plain workspace user", expected: "200, itself only", answer: `${answerOf(own)}${onlyOwn ? ", itself only" : ", NOT ITSELF ONLY"}`, ok: onlyOwn }));
    }
    allAnswered(rows);
  });
  it("teachers' routes (issue 42): a teacher of another class, student B, a guest and no credentials reach nothing of teacher T's class or of its student A", { timeout: 120_000 }, async () => {
    const rows: Probe[] = [];
    const T = await t.account(`teacher_t${process.pid % 10000}`, "teacher-t-password");
    const U = await t.account(`teacher_u${process.pid % 10000}`, "teacher-u-password");
    await t.prisma.user.updateMany({ where: { id: { in: [T.user.id, U.user.id] } }, data: { role: "teacher" } });
    const made = await T.http.post("/api/classes", { name: "T's class" });
    expect(made.status, made.text).toBe(201);
    const tClass = made.body.class as { id: number; code: string };
    expect((await A.http.post("/api/classes/join", { code: tClass.code })).status).toBe(200);
    const classState = async () =>
      JSON.stringify([await t.prisma.schoolClass.findUnique({ where: { id: tClass.id } }), await t.prisma.classMember.findMany({ where: { classId: tClass.id }, orderBy: { userId: "asc" } })]);
    const named = { id: tClass.id, studentId: A.user.id, name: "probe class", format: "json" };
    const { refused } = callersForSession();
    const callers: Array<Caller & { expect: "401" | "403" | "403_or_own" }> = [
      ...refused.map((c) => ({ ...c, expect: "401" as const })),
      { who: "a guest (no session: guests never have one)", headers: {}, expect: "401" },
      { who: "student B", headers: { cookie: B.cookie }, expect: "403" },
      { who: "student B naming A's and T's ids", headers: { cookie: B.cookie }, body: { teacherId: T.user.id, userId: A.user.id, id: tClass.id }, expect: "403" },
      { who: "student A itself (in T's class)", headers: { cookie: A.cookie }, expect: "403" },
      { who: "teacher U of another class", headers: { cookie: U.cookie }, expect: "403_or_own" },
    ];
    for (const op of byAccess("teacher")()) {
      for (const caller of callers) {
        const beforeA = await accountState(A.user.id);
        const beforeClass = await classState();
        const res = await send(op, caller, named);
        const unchanged = (await accountState(A.user.id)) === beforeA && (await classState()) === beforeClass;
        const leaks = res.text.includes(A.user.username) || res.text.includes(tClass.code);
        const refusedAs = caller.expect === "401" ? res.status === 401 : caller.expect === "403" ? res.status === 403 : res.status === 403 || (res.status < 300 && !leaks);
        rows.push(
          record({
            surface: "REST teacher",
            target: `${op.method} ${op.path} (${op.id})`,
            who: caller.who,
            expected: caller.expect === "403_or_own" ? "403, or its own answer naming neither A nor T's class; both unchanged" : `${caller.expect}, A and T's class unchanged`,
            answer: `${answerOf(res)}${unchanged ? "" : ", CHANGED"}${leaks ? ", NAMES A OR T'S CLASS" : ""}`,
            ok: refusedAs && unchanged && !leaks,
          }),
        );
      }
      // T itself is answered (the probes above are refusals of a route that works).
      const own = await send(op, { who: "teacher T", headers: { cookie: T.cookie } }, { ...named, studentId: U.user.id });
      rows.push(record({ surface: "REST teacher", target: `${op.method} ${op.path} (${op.id})`, who: "teacher T (its own class)", expected: "answered (2xx, or 4xx for the probe's sample body)", answer: answerOf(own), ok: own.status < 500 && own.status !== 401 && own.status !== 403 }));
    }
    allAnswered(rows);
  });
});

// ---------------------------------------------------------------------------------------------
// Operator surfaces, composed by the server's own configureExpress under each NODE_ENV: the
// monitor, the playground, /metrics and the admin endpoint.

async function operatorApp(nodeEnv: "development" | "production") {
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: nodeEnv,
    JWT_SECRET: STRONG_SECRET,
    CORS_ORIGINS: "https://school.example",
    DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/unused",
    MONITOR_USER: MONITOR.user,
    MONITOR_PASSWORD: MONITOR.password,
    METRICS_TOKEN,
  };
  // The configuration a production server accepts (a strong JWT_SECRET and CORS_ORIGINS are required).
  const loaded = loadConfig(env);
  const config = { ...t.config, nodeEnv: loaded.nodeEnv, cookieSecure: loaded.cookieSecure, corsOrigins: loaded.corsOrigins, monitorUser: loaded.monitorUser, monitorPassword: loaded.monitorPassword, metricsToken: loaded.metricsToken };
  const app = express();
  await configureExpress(app, { ...t.app.ctx, config }, { roomNames: Object.keys(roomProtocols), matchmakeRooms: roomProtocols, adminToken: ADMIN_TOKEN });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { express: app, base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("operator surfaces in development and in production", () => {
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

  it("production config needs a strong JWT_SECRET and CORS_ORIGINS", () => {
    const env = { NODE_ENV: "production", DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/unused" };
    expect(() => loadConfig(env)).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ ...env, JWT_SECRET: STRONG_SECRET })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ ...env, JWT_SECRET: "short", CORS_ORIGINS: "https://school.example" })).toThrow(/too weak/);
  });

  for (const nodeEnv of ["development", "production"] as const) {
    it(`${nodeEnv}: the monitor, /metrics and /admin/commands open to their own credentials only; the playground in development only`, { timeout: 60_000 }, async () => {
      const app = await operatorApp(nodeEnv);
      const rows: Probe[] = [];
      const probe = async (target: string, method: string, path: string, who: string, headers: Record<string, string>, expect: (s: number) => boolean, expected: string) => {
        const res = await fetch(app.base + path, { method, headers: { "content-type": "application/json", ...headers }, body: method === "POST" ? "{}" : undefined });
        const text = await res.text();
        const code = /"code":"(\w+)"/.exec(text)?.[1];
        rows.push(record({ surface: `operator (${nodeEnv})`, target, who, expected, answer: `${res.status}${code ? ` ${code}` : ""}`, ok: expect(res.status) }));
      };
      try {
        const strangers: Array<[string, Record<string, string>]> = [
          ["no credentials", {}],
          ["account A's session", { cookie: A.cookie }],
          ["a valid API key pair (bearer and basic)", { authorization: `Bearer ${key.api_key_secret}`, "x-api-key": key.api_key }],
          ["the API key as basic auth", { authorization: basic(key.api_key, key.api_key_secret) }],
          ["wrong monitor password", { authorization: basic(MONITOR.user, "wrong-password") }],
        ];
        const refused = (s: number) => s === 401 || s === 403 || s === 404;
        for (const [who, headers] of strangers) {
          await probe("GET /monitor/", "GET", "/monitor/", who, headers, refused, "401");
          await probe("GET /monitor/api", "GET", "/monitor/api", who, headers, refused, "401");
          await probe("GET /metrics", "GET", "/metrics", who, headers, refused, "401");
          await probe("POST /admin/commands", "POST", "/admin/commands", who, headers, refused, "401");
          if (nodeEnv === "production") await probe("GET /playground", "GET", "/playground", who, headers, (s) => s === 404, "404 (not mounted)");
        }
        await probe("POST /admin/commands", "POST", "/admin/commands", "the admin token relayed by a proxy", { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "198.51.100.7" }, (s) => s === 404, "404");
        await probe("POST /admin/commands", "POST", "/admin/commands", "the monitor credentials", { authorization: basic(MONITOR.user, MONITOR.password) }, refused, "401");
        await probe("GET /metrics", "GET", "/metrics", "the admin token", { authorization: `Bearer ${ADMIN_TOKEN}` }, refused, "401");
        // Controls: each surface does open to its own credentials.
        await probe("GET /monitor/api", "GET", "/monitor/api", "the monitor credentials (control)", { authorization: basic(MONITOR.user, MONITOR.password) }, (s) => s === 200, "200");
        await probe("GET /metrics", "GET", "/metrics", "METRICS_TOKEN (control)", { authorization: `Bearer ${METRICS_TOKEN}` }, (s) => s === 200, "200");
        await probe("POST /admin/commands", "POST", "/admin/commands", "the admin token, an empty command (control)", { authorization: `Bearer ${ADMIN_TOKEN}` }, (s) => s === 400, "400 (past authentication)");
        if (nodeEnv === "development") await probe("GET /playground", "GET", "/playground", "anyone (development only; loopback by default)", {}, (s) => s === 200 || s === 301 || s === 302, "served");
      } finally {
        await app.close();
      }
      allAnswered(rows);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Rooms: join options (every option of every room's schema, by its class), reconnection, party codes.

function joinOptionsJsonSchema(room: string): JsonSchema {
  return z.toJSONSchema(roomProtocols[room].joinOptions, { io: "input", unrepresentable: "any" }) as JsonSchema;
}
function joinOptionNames(room: string): string[] {
  return Object.keys(joinOptionsJsonSchema(room).properties ?? {});
}

const serverRoom = (roomId: string) => matchMaker.getLocalRoomById(roomId) as ServerRoom;
const identityOf = (roomId: string, sessionId: string): Identity | undefined =>
  (serverRoom(roomId)?.clients.find((c) => c.sessionId === sessionId)?.auth as { identity?: Identity } | undefined)?.identity;

interface Seat {
  room: SdkRoom;
  log: MessageLog;
  partyCode?: string;
  others: SdkRoom[];
}

/** What a guest needs to be seated at all in a room (bullets, where the room asks for them). */
const baseOptions = (roomName: string): Record<string, unknown> => (joinOptionNames(roomName).includes("bullets") ? { bullets: STARTING_BULLETS } : {});

/**
 * A seated in a room of its own (SlitherRush: leading a party of its own). With `companion`, a
 * guest sits beside A (a duel needs two; a room with a player left keeps a dropped seat).
 */
async function seatA(roomName: string, companion: boolean): Promise<Seat> {
  const others: SdkRoom[] = [];
  let room: SdkRoom;
  if (roomName === "slitherrush") room = await t.sdk(A.cookie).joinOrCreate(roomName, { party: "create" });
  else room = await t.joinNewRoom(roomName, {}, A.cookie);
  // A's own client must not take its seat back by itself while others present its token.
  room.reconnection.enabled = false;
  const log = new MessageLog(room);
  let partyCode: string | undefined;
  if (roomName === "slitherrush") partyCode = (await waitForMessage(log, "slitherrush_joined")).party_code;
  if (companion) others.push(await t.sdk().joinById(room.roomId, baseOptions(roomName)));
  return { room, log, partyCode, others };
}

async function leaveAll(rooms: SdkRoom[]) {
  await Promise.all(rooms.map((r) => (r.connection.isOpen ? r.leave().catch(() => undefined) : undefined)));
}

const roomCallers = () => [
  { who: "account B", cookie: B.cookie as string | undefined, expect: (id: Identity | undefined) => id?.kind === "account" && id.userId === B.user.id },
  { who: "a guest (no cookie)", cookie: undefined, expect: (id: Identity | undefined) => id?.kind === "guest" && id.username.endsWith(" (guest)") },
  { who: "a guest with a token naming A signed with another key", cookie: forgedCookie() as string | undefined, expect: (id: Identity | undefined) => id?.kind === "guest" },
];

describe("rooms: join options, party codes and reconnection", () => {
  // The REST probes let B reset its own game: both accounts bring bullets to the rooms again.
  beforeAll(async () => {
    for (const acc of [A, B]) await t.prisma.gameProgress.update({ where: { userId: acc.user.id }, data: { totalBullets: STARTING_BULLETS } });
  });

  for (const roomName of Object.keys(roomProtocols)) {
    it(`${roomName}: every join option, set by B or a guest against A, seats the caller as itself and changes nothing of A's`, { timeout: 120_000 }, async () => {
      const rows: Probe[] = [];
      const schema = joinOptionsJsonSchema(roomName);
      // A join without options too: the room's seat alone must never be A's.
      const cases: Array<[string, Record<string, unknown>]> = [["(no options)", {}]];
      for (const option of joinOptionNames(roomName)) {
        const cls = JOIN_OPTION_CLASSES[option];
        const value =
          cls === "display_name" ? A.user.username : cls === "party_code" ? "(A's party code)" : sampleFromSchema(schema.properties![option], {});
        cases.push([`${option} (${cls})`, { [option]: value }]);
      }
      for (const [label, options] of cases) {
        for (const caller of roomCallers()) {
          const seat = await seatA(roomName, false);
          const opened: SdkRoom[] = [seat.room, ...seat.others];
          try {
            const attack = { ...baseOptions(roomName), ...options };
            let join: Promise<SdkRoom>;
            if ("party" in attack) {
              attack.party = seat.partyCode;
              join = t.sdk(caller.cookie).joinOrCreate(roomName, attack);
            } else join = t.sdk(caller.cookie).joinById(seat.room.roomId, attack);
            const before = await accountState(A.user.id);
            const joined = await join.then((r) => r, (e: Error & { code?: number }) => e);
            let answer: string;
            let ok: boolean;
            if (joined instanceof Error) {
              answer = `refused ${joined.code ?? ""} ${joined.message.slice(0, 60)}`;
              ok = false; // a valid option must not stop a join: an unexpected refusal is reported too
            } else {
              opened.push(joined);
              const id = identityOf(joined.roomId, joined.sessionId);
              const aStill = identityOf(seat.room.roomId, seat.room.sessionId);
              const asItself = caller.expect(id);
              if (ROOM_SEATS[roomName].identity === "none") {
                // A room that keeps nobody's identity (the mode page): nobody is anyone there, A stays connected.
                const anonymous = id === undefined && aStill === undefined;
                const aConnected = serverRoom(seat.room.roomId)?.clients.some((c) => c.sessionId === seat.room.sessionId) ?? false;
                answer = `${anonymous ? "seated, no identity kept (anonymous room)" : "AN IDENTITY IS KEPT: classify the room"}${aConnected ? "" : ", A's SEAT TOUCHED"}`;
                ok = anonymous && aConnected;
              } else {
                const aKept = aStill?.kind === "account" && aStill.userId === A.user.id;
                answer = `seated as ${id ? (id.kind === "account" ? `account ${id.userId === B.user.id ? "B" : id.userId === A.user.id ? "A" : id.userId}` : `guest "${id.username}"`) : "?"}${joined.roomId === seat.room.roomId ? " beside A" : " elsewhere"}${aKept ? "" : ", A's SEAT TOUCHED"}`;
                ok = asItself && aKept;
              }
            }
            const unchanged = (await accountState(A.user.id)) === before;
            if (!unchanged) answer += ", A CHANGED";
            rows.push(record({ surface: `room ${roomName}`, target: `join option ${label}`, who: caller.who, expected: "seated as itself, A's seat and rows untouched", answer, ok: ok && unchanged }));
          } finally {
            await leaveAll(opened);
          }
        }
      }
      allAnswered(rows);
    });
  }

  it("slitherrush: a malformed or unknown party code is refused; the guest/B with A's code joins as itself (above)", async () => {
    const rows: Probe[] = [];
    for (const code of ["NOPE99", "A".repeat(40), "../../x"]) {
      const err = await t.sdk(B.cookie).joinOrCreate("slitherrush", { party: code }).then(
        async (r) => (await r.leave(), undefined),
        (e: Error & { code?: number }) => e,
      );
      rows.push(record({ surface: "room slitherrush", target: `party code ${JSON.stringify(code)}`, who: "account B", expected: "refused", answer: err ? `refused ${err.code ?? ""}` : "JOINED", ok: Boolean(err) }));
    }
    allAnswered(rows);
  });

  for (const roomName of Object.keys(roomProtocols)) {
    // Depends on the seat-binding change (issue 37's other half): until a seat is bound to its
    // account, another account's reconnection with A's token is accepted as A, and these fail.
    it(`${roomName}: A's reconnection token, presented by another account, a guest or a forged cookie, is refused; A keeps its seat and its rows`, { timeout: 120_000 }, async () => {
      const rows: Probe[] = [];
      // Each caller against a seat of its own: one accepted caller must not hide what the next would get.
      for (const caller of [...roomCallers(), { who: "A's ended session (logged out)", cookie: aEndedCookie as string | undefined }]) {
        const seat = await seatA(roomName, true);
        const opened: SdkRoom[] = [seat.room, ...seat.others];
        try {
          const token = seat.room.reconnectionToken;
          const server = serverRoom(seat.room.roomId);
          // A network drop: the server side of A's socket dies without a close frame.
          (server.clients.find((c) => c.sessionId === seat.room.sessionId)!.ref as unknown as { terminate(): void }).terminate();
          await eventually(() => !server.clients.some((c) => c.sessionId === seat.room.sessionId) || undefined, "A's connection dropped");
          const before = await accountState(A.user.id);
          const got = await t.sdk(caller.cookie).reconnect(token).then((r) => r, (e: Error & { code?: number }) => e);
          let answer: string;
          if (got instanceof Error) answer = `refused ${got.code ?? ""} ${got.message.slice(0, 50)}`;
          else {
            opened.push(got);
            const id = identityOf(got.roomId, got.sessionId);
            answer = `ACCEPTED as ${id?.kind === "account" && id.userId === A.user.id ? "A" : JSON.stringify(id)}`;
          }
          const unchanged = (await accountState(A.user.id)) === before;
          rows.push(record({ surface: `room ${roomName}`, target: "reconnection with A's token", who: caller.who, expected: "refused, nothing of A's spent", answer: `${answer}${unchanged ? "" : ", A CHANGED"}`, ok: got instanceof Error && unchanged }));
          // The control: A itself, with its own live session, still gets the seat back (where the room keeps one).
          if (ROOM_SEATS[roomName].reconnection === "window") {
            const own = await t.sdk(A.cookie).reconnect(token).then((r) => r, (e: Error & { code?: number }) => e);
            if (!(own instanceof Error)) opened.push(own);
            rows.push(record({ surface: `room ${roomName}`, target: "reconnection with A's token, after that", who: "A itself (control)", expected: "accepted as A", answer: own instanceof Error ? `refused ${own.code ?? ""} ${own.message.slice(0, 50)}` : "accepted", ok: !(own instanceof Error) }));
          }
        } finally {
          await leaveAll(opened);
        }
      }
      allAnswered(rows);
    });
  }
});
