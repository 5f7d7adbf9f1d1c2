// Issue 23: the fuzz suite at /matchmake, the HTTP route the Colyseus SDK calls before any room code
// runs. A server started as `npm start` starts it gets generated matchmaking requests: every method
// (and unknown ones) on every room type, room ids live and junk, join options generated from each
// room's own schema (valid and around valid, src/protocol/rooms.ts), hostile bodies (not JSON, not
// objects, prototype keys, deep nesting) and sizes around and far over the 16 KB limit, declared or
// chunked. What must hold after each request:
// - the answer is a 2xx, or a 4xx in the service's shape ({ error: { code, message }, message }),
//   never a 5xx, a stack or a path of the server's;
// - the server answers /health within 1 s and its RSS stays bounded;
// - nothing is logged at `error` and nothing is printed outside the JSON log.
// The first tests replay the requests of issue 23 that answered 523 with JavaScript's own text.
import { request } from "node:http";
import { fc, it } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { z } from "zod";
import { Client as ColyseusClient, type Room as SdkRoom } from "@colyseus/sdk";
import { aroundOrValid, jsonText, type Generated, type JsonSchema } from "./arbitraries.js";
import { Budget, budgetMs, runParameters, testTimeout } from "./settings.js";
import { startFuzzServer, type FuzzServer, type LogLine } from "./server.js";
import { roomProtocols } from "../../src/protocol/rooms.js";
import { projectRoot } from "../helpers/process.js";

let server: FuzzServer;
let rssBaseline = 0;
/** A room that stays open: joinById and reconnect get its id. */
let resident: SdkRoom;
/** Past this much RSS above the idle server, a request made it hold what it should not have. */
const RSS_HEADROOM_MB = 300;
/** The body limit of /matchmake (src/http/limits.ts), and sizes around and far past it. */
const LIMIT = 16 * 1024;
const SIZES = [0, LIMIT - 64, LIMIT + 1, 64 * 1024, 1024 * 1024, 200 * 1024 * 1024];
/** At most this much of a chunked body is sent. */
const SENT_AT_MOST = 256 * 1024;
/** Of a declared body over the limit, only this much is sent: the server must answer without the rest. */
const OVERSIZE_SENT = 1024;
const METHODS = ["joinOrCreate", "join", "create", "joinById", "reconnect"];
const ROOMS = Object.keys(roomProtocols);
let addressCounter = 0;

beforeAll(async () => {
  server = await startFuzzServer();
  resident = await new ColyseusClient(server.wsBase).joinOrCreate("boss_lobby", { username: "resident" });
  rssBaseline = rssMb();
}, 180_000);
afterAll(async () => {
  await resident?.leave().catch(() => undefined);
  await server?.stop();
});

const rssMb = () => server.rssMb();
const healthWithin = (ms: number) => server.healthWithin(ms);

const jsonSchemaOf = (schema: z.ZodType): JsonSchema => z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;

/** A stack frame or one of the server's own paths in a body. */
const LEAK = new RegExp(`(\\n\\s+at\\s.+:\\d+:\\d+)|${projectRoot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|node_modules|file://|is not a function|Cannot read prop|Cannot use 'in'`);

type Body =
  | { kind: "options"; options: Generated & { valid: boolean } }
  | { kind: "raw"; text: string }
  | { kind: "sized"; bytes: number; chunked: boolean };

interface MatchmakeCase {
  method: string;
  /** A room type, a junk path segment, or "<resident>" for the live room's id. */
  target: string;
  /** The room type whose schema generated the options. */
  room: string;
  body: Body;
  contentType: string | undefined;
}

const RAW_BODIES = [
  "null",
  "5",
  '"x"',
  "[]",
  "true",
  "{",
  "{not json",
  '{"hasOwnProperty":1}',
  '{"__proto__":{"arena":"x","party":"create","bullets":1000000}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"toString":1,"valueOf":2,"then":3}',
  '{"username":"\\u0000","party":"\\ud800"}',
  '{"reconnectionToken":{"length":1e9}}',
  `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`,
  `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`,
  "\u0000\u0001\u0002",
];
const JUNK_TARGETS = ["", "nope", "..", "%00", "a%00b", "__proto__", "constructor", "x".repeat(300), "%E2%80%AE", "boss_lobby%2F..", "AbCdEfGhI"];

function matchmakeCases(): fc.Arbitrary<MatchmakeCase> {
  const options = (room: string) => aroundOrValid(jsonSchemaOf(roomProtocols[room].joinOptions));
  const body = (room: string): fc.Arbitrary<Body> =>
    fc.oneof(
      { arbitrary: options(room).map((o) => ({ kind: "options" as const, options: o })), weight: 6 },
      { arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ kind: "raw" as const, text })), weight: 2 },
      { arbitrary: fc.record({ bytes: fc.constantFrom(...SIZES), chunked: fc.boolean() }).map((s) => ({ kind: "sized" as const, ...s })), weight: 2 },
    );
  return fc.constantFrom(...ROOMS).chain((room) =>
    fc.record({
      method: fc.oneof({ arbitrary: fc.constantFrom(...METHODS), weight: 9 }, { arbitrary: fc.constantFrom("explode", "JOINORCREATE", "hasOwnProperty", "constructor", ""), weight: 1 }),
      target: fc.oneof({ arbitrary: fc.constant(room), weight: 6 }, { arbitrary: fc.constant("<resident>"), weight: 2 }, { arbitrary: fc.constantFrom(...JUNK_TARGETS), weight: 2 }),
      room: fc.constant(room),
      body: body(room),
      contentType: fc.constantFrom("application/json", "application/json", "text/plain", undefined),
    }),
  );
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  requestId?: string;
  /** The server answered and closed while the body was still being sent: its status is from its request log line. */
  unread?: boolean;
}

/** A body of exactly `bytes` bytes: a JSON object with one long string. */
function sizedBody(bytes: number): Buffer {
  if (bytes < 16) return Buffer.from("{}".padEnd(bytes, " ").slice(0, bytes));
  const text = Buffer.alloc(bytes, 0x61);
  text.write('{"username":"', 0);
  text.write('"}', bytes - 2);
  return text;
}

/**
 * One request on its own connection. A declared body over the limit is sent only in part: the
 * server must answer without the rest. A chunked one is sent (up to SENT_AT_MOST) until the server
 * answers or the body ends.
 */
function send(c: MatchmakeCase): Promise<Answer> {
  const target = c.target === "<resident>" ? resident.roomId : c.target;
  const requestId = `mm-${++addressCounter}`;
  const headers: Record<string, string> = { "x-forwarded-for": `10.77.${(addressCounter >> 8) & 255}.${addressCounter & 255}`, "x-request-id": requestId };
  if (c.contentType) headers["content-type"] = c.contentType;
  let payload: Buffer | undefined;
  let declared: number | undefined;
  let chunked = false;
  if (c.body.kind === "options") {
    const text = jsonText(c.body.options.value);
    payload = text === undefined ? undefined : Buffer.from(text);
  } else if (c.body.kind === "raw") payload = Buffer.from(c.body.text);
  else if (c.body.chunked) {
    chunked = true;
    payload = sizedBody(Math.min(c.body.bytes, SENT_AT_MOST));
  } else {
    declared = c.body.bytes;
    payload = declared > LIMIT ? sizedBody(LIMIT + OVERSIZE_SENT).subarray(0, OVERSIZE_SENT) : sizedBody(declared);
  }
  if (!chunked && payload) headers["content-length"] = String(declared ?? payload.length);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${server.base}/matchmake/${c.method}/${target}`, { method: "POST", headers, agent: false }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(parts).toString("utf8"), requestId: res.headers["x-request-id"] as string | undefined });
        req.destroy();
      });
      res.on("error", reject);
    });
    // The server may answer and close before the whole body is written: that is the point. If the
    // closed socket stops the upload before the answer is read, the server's request line tells it.
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      if (err.code !== "EPIPE" && err.code !== "ECONNRESET") return reject(err);
      server.waitForLine((l) => l.msg === "request" && l.requestId === requestId, 5_000).then(
        (line) => resolve({ status: Number(line.status), contentType: "application/json", text: "", requestId, unread: true }),
        () => reject(err),
      );
    });
    if (!payload) return void req.end();
    const step = 16 * 1024;
    let at = 0;
    const writeMore = () => {
      while (at < payload.length && !answered) {
        const ok = req.write(payload.subarray(at, at + step));
        at += step;
        if (!ok) return void req.once("drain", writeMore);
      }
      // A declared body longer than what is sent stays open: only an early answer ends the request.
      if (declared === undefined || declared <= payload.length) req.end();
    };
    writeMore();
  });
}

function badLines(from: number): LogLine[] {
  return server.logs.slice(from).filter((l) => l.level >= 50);
}

function expectOurShape(a: Answer, where: string): void {
  expect(a.status, `5xx or no answer: ${where}`).toBeGreaterThanOrEqual(200);
  expect(a.status, `5xx: ${where}`).toBeLessThan(500);
  expect(LEAK.test(a.text), `stack, path or JavaScript's own text in the answer: ${where}`).toBe(false);
  if (a.status < 400 || a.unread) return;
  expect(a.contentType, `non-JSON error: ${where}`).toMatch(/application\/json/);
  const json = JSON.parse(a.text);
  expect(json, `error shape: ${where}`).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }), message: json.error?.message });
}

describe("the /matchmake requests of issue 23", () => {
  const replays: [string, string, string][] = [
    ["create", "boss_lobby", '{"hasOwnProperty":1}'],
    ["joinOrCreate", "pvp", '{"hasOwnProperty":1}'],
    ["joinOrCreate", "slitherrush", '{"hasOwnProperty":1}'],
    ["joinOrCreate", "pvp", "null"],
    ["joinOrCreate", "slitherrush", "null"],
    ["joinOrCreate", "slitherrush", '{"__proto__":{"arena":"x"}}'],
    ["joinOrCreate", "boss_lobby", `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`],
    ["create", "slitherrush", "{}"],
  ];
  for (const [method, room, text] of replays) {
    it(`${method} ${room} ${text.slice(0, 40)}: a 2xx or a 4xx in the service's shape, within a second, nothing at error`, async () => {
      const logsFrom = server.logs.length;
      const started = Date.now();
      const a = await send({ method, target: room, room, body: { kind: "raw", text }, contentType: "application/json" });
      expectOurShape(a, `${method} ${room} ${text.slice(0, 40)} → ${a.status} ${a.text.slice(0, 200)}`);
      expect(Date.now() - started).toBeLessThan(1_000);
      if (a.requestId) await server.waitForLine((l) => l.msg === "request" && l.requestId === a.requestId, 5_000);
      expect(badLines(logsFrom)).toEqual([]);
    });
  }
});

describe("/matchmake: generated requests to every method and room", () => {
  const budget = new Budget(budgetMs.matchmake);
  const statuses: Record<string, number> = {};
  let cases = 0;

  it.prop([budget.cases(matchmakeCases)], runParameters(budget, 5_000))(
    "2xx or a 4xx in the service's shape, /health within 1 s, RSS bounded, nothing logged at error or printed",
    async (c) => {
      if (!budget.admit(c)) return;
      await budget.check(async () => {
        cases++;
        const logsFrom = server.logs.length;
        const rawFrom = server.rawOutput().length;
        const a = await send(c);
        const body = c.body.kind === "options" ? (jsonText(c.body.options.value) ?? "").slice(0, 120) : c.body.kind === "raw" ? c.body.text.slice(0, 60) : `${c.body.bytes} bytes${c.body.chunked ? " chunked" : ""}`;
        const where = `${c.method} ${c.target.slice(0, 40)} ${body} (${c.contentType ?? "no content type"}) → ${a.status} ${a.text.slice(0, 200)}`;
        statuses[a.status] = (statuses[a.status] ?? 0) + 1;
        expectOurShape(a, where);
        if (c.body.kind === "sized" && c.body.bytes > LIMIT && METHODS.includes(c.method)) expect([404, 413], `oversized body not refused: ${where}`).toContain(a.status);
        // Hostile text in a field of the room's own schema is refused (in a field it does not have, it is dropped).
        if (c.body.kind === "options" && c.body.options.poisoned && c.target === c.room && a.status < 300) expect.fail(`hostile text accepted: ${where}`);
        expect(await healthWithin(1_000), `/health did not answer within 1 s after ${where}`).toBe(true);
        expect(rssMb() - rssBaseline, `RSS grew past ${RSS_HEADROOM_MB} MB after ${where}`).toBeLessThan(RSS_HEADROOM_MB);
        if (a.requestId) await server.waitForLine((l) => l.msg === "request" && l.requestId === a.requestId, 5_000);
        expect(badLines(logsFrom), `error-level log line: ${where}`).toEqual([]);
        expect(server.rawOutput().slice(rawFrom), `output outside the JSON log: ${where}`).toBe("");
      });
    },
    testTimeout(budget),
  );

  it("covered every method and room; the server is up", () => {
    console.log(`fuzz /matchmake: ${cases} requests; statuses ${JSON.stringify(statuses)}; RSS ${Math.round(rssMb())} MB (idle ${Math.round(rssBaseline)} MB)`);
    expect(server.alive()).toBe(true);
    expect(badLines(0)).toEqual([]);
  });
});
