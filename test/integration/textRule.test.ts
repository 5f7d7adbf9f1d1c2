// Issue 19: one text rule for every string a client sends. A NUL or a lone surrogate is a 400
// naming the field (workspace API: its error_message), in a room an `error` to that client, and
// nothing is stored; a database refusal the schemas missed is still a 400, logged at warn.
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type HttpResponse, type TestApp } from "../helpers/app.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { joined } from "../helpers/boss.js";
import { createApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";
import { DATABASE_REFUSED_INPUT, jsonErrorHandler } from "../../src/http/errorHandler.js";
import { textProblem } from "../../src/protocol/text.js";

const NUL = "a\u0000b";
const LONE = "a\ud800b";

let t: TestApp;
let logs: CapturedLogs;
let key: ApiKeyPair;
let userId: string;
let groupId: string;
beforeAll(async () => {
  logs = captureLogs("info");
  t = await startTestApp({}, { logger: logs.logger });
  key = await createApiKey(t.prisma, "text rule");
  const user = await api("create_user", { target_user: { username: "text-rule-user", first_name: "Ada", last_name: "Lovelace", organization: "Analytical" } });
  userId = user.body.user.user_id;
  const group = await api("create_group", { target_group: { name: "Readers", description: "reads" } });
  groupId = group.body.group.group_id;
});
afterAll(() => t?.stop());

function api(operation: string, body: Record<string, unknown> = {}): Promise<HttpResponse> {
  return t.http().post(`/api/public/${operation}`, { ...key, ...body }, { "x-forwarded-for": "203.0.113.9" });
}

function expectRefused(res: HttpResponse, field: string, problem: string) {
  expect(res.status, res.text).toBe(400);
  expect(Object.keys(res.body)).toEqual(["error_message"]);
  expect(res.body.error_message).toContain(`${field} ${problem}`);
}

const nulProblem = textProblem(NUL)!;
const loneProblem = textProblem(LONE)!;

describe("the text rule", () => {
  it("refuses NUL, lone surrogates and (for identifiers) control and format characters", () => {
    expect(textProblem("héllo wörld 👋\tok")).toBeUndefined();
    expect(textProblem("\ud83d\udc4b")).toBeUndefined(); // a surrogate pair is one well-formed character
    expect(textProblem(NUL)).toMatch(/NUL/);
    for (const s of ["\ud800", "x\udfff", "\udc00\ud800"]) expect(textProblem(s)).toMatch(/lone surrogate/);
    expect(textProblem("a\nb", "text")).toBeUndefined();
    expect(textProblem("a\nb", "line")).toMatch(/control/);
    expect(textProblem("a\u202eb", "line")).toBeUndefined();
    expect(textProblem("a\u202eb", "identifier")).toMatch(/format/);
  });
});

describe("workspace API: the issue's NUL cases answer 400 naming the field", () => {
  const cases: [string, string, () => Record<string, unknown>][] = [
    ["validate_credentials", "api_key", () => ({ api_key: NUL })],
    ["create_user", "api_key", () => ({ api_key: NUL, target_user: { username: "x" } })],
    ["get_user", "api_key", () => ({ api_key: NUL, target_user: { user_id: userId } })],
    ["get_user", "target_user.user_id", () => ({ target_user: { user_id: NUL } })],
    ["get_user", "target_user.username", () => ({ target_user: { username: NUL } })],
    ["update_user", "target_user.user_id", () => ({ target_user: { user_id: NUL, first_name: "x" } })],
    ["set_group_workspaces", "workspaces.0", () => ({ target_group: { group_id: groupId }, workspaces: [NUL] })],
    ["add_user_group", "target_group.group_id", () => ({ target_user: { user_id: userId }, target_group: { group_id: NUL } })],
  ];
  it.each(cases)("%s %s", async (operation, field, body) => {
    logs.lines.length = 0;
    expectRefused(await api(operation, body()), field, nulProblem);
    expect(logs.lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});

describe("workspace API: a lone surrogate is refused, not stored altered", () => {
  it.each(["first_name", "last_name", "organization"])("update_user %s", async (field) => {
    expectRefused(await api("update_user", { target_user: { user_id: userId, [field]: LONE } }), `target_user.${field}`, loneProblem);
    const read = await api("get_user", { target_user: { user_id: userId } });
    expect(read.body.user).toMatchObject({ first_name: "Ada", last_name: "Lovelace", organization: "Analytical" });
  });

  it.each(["name", "description"])("create_group %s", async (field) => {
    const before = (await api("get_groups")).body.groups.length;
    const target_group = { name: "Writers", description: "writes", [field]: LONE };
    expectRefused(await api("create_group", { target_group }), `target_group.${field}`, loneProblem);
    expect((await api("get_groups")).body.groups).toHaveLength(before);
  });
});

describe("game REST routes", () => {
  it("register and login refuse a NUL in the username with validation_failed naming the field", async () => {
    for (const path of ["/api/auth/register", "/api/auth/login"]) {
      const res = await t.http().post(path, { username: NUL, password: "long enough password" });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.problems).toContainEqual({ field: "username", message: nulProblem });
    }
  });

  it("a lone surrogate in a password is refused (UTF-8 would hash it as U+FFFD, like any other)", async () => {
    const res = await t.http().post("/api/auth/register", { username: "surrogate_pw", password: `password${LONE}` });
    expect(res.status).toBe(400);
    expect(res.body.error.details.problems).toContainEqual({ field: "password", message: loneProblem });
    expect(await t.prisma.user.findFirst({ where: { username: "surrogate_pw" } })).toBeNull();
  });
});

describe("rooms", () => {
  it("join options with a lone surrogate are refused; chat with a NUL gets an error to the sender only", async () => {
    await expect(t.sdk().joinOrCreate("boss_lobby", { username: LONE })).rejects.toMatchObject({ code: 400 });
    const sender = await joined(t.sdk().joinOrCreate("boss_lobby", {}));
    const other = await joined(t.sdk().joinById(sender.room.roomId, {}));
    const error = new Promise<{ code: string; message: string }>((resolve) => sender.room.onMessage("error", resolve));
    let relayed = 0;
    other.room.onMessage("boss_chat_message", () => relayed++);
    sender.room.send("boss_chat_send", { content: NUL });
    expect(await error).toMatchObject({ code: "invalid_payload", message: expect.stringContaining(`content: ${nulProblem}`) });
    // A well-formed message after it arrives, so the refused one would have arrived before it.
    const next = new Promise((resolve) => other.room.onMessage("boss_chat_message", resolve));
    sender.room.send("boss_chat_send", { content: "hello" });
    await next;
    expect(relayed).toBe(1);
    await sender.room.leave();
    await other.room.leave();
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it("a path parameter that does not decode as UTF-8 (a lone surrogate's bytes) is a 400, not a server error", async () => {
    const { http } = await t.account();
    logs.lines.length = 0;
    const res = await http.get("/api/boss/room/x%ed%af%bf");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "invalid_path", message: expect.any(String) } });
    expect(logs.errors()).toEqual([]);
  });

  it("a URL over the header limit gets a JSON 431, not an empty body", async () => {
    const res = await fetch(`${t.baseUrl}/api/snakes/leaderboard?limit=${"9".repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ error: { code: "headers_too_large", message: expect.any(String) } });
  });
});

describe("second line: a value the schemas missed", () => {
  it("a database encoding refusal is a 400 logged at warn without a stack", async () => {
    const refusal = await t.prisma.user.findFirst({ where: { username: NUL } }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(Error);
    const app = express();
    app.get("/x", () => {
      throw refusal;
    });
    app.use(jsonErrorHandler(logs.logger));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      logs.lines.length = 0;
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/x`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { code: "invalid_input", message: expect.any(String) } });
      expect(logs.lines).toHaveLength(1);
      expect(logs.lines[0]).toMatchObject({ level: 40, msg: DATABASE_REFUSED_INPUT, problem: expect.stringMatching(/^22021/) });
      expect(JSON.stringify(logs.lines[0])).not.toContain("    at ");
    } finally {
      server.close();
    }
  });
});
