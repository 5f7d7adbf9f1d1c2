// Issue 37: the per-account sign-in limits count the account, not the text that names it. 20 wrong
// passwords for one account from changing addresses, then the same name padded, in another case,
// with Unicode spaces, a zero-width mark or full-width letters: 429, never a fresh budget (401),
// even with the right password. Game login and workspace sign-in alike.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, startTestApp, testConfig, type TestApp } from "../helpers/app.js";
import { defaultRateLimits } from "../../src/config.js";
import { createApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";
import { authRoutes } from "../../src/http/authRoutes.js";
import { workspaceSessionRoutes } from "../../src/http/workspaceSessionRoutes.js";
import { jsonErrorHandler } from "../../src/http/errorHandler.js";
import { RedisWindowCounters } from "../../src/shared/counters.js";

let t: TestApp;
let key: ApiKeyPair;
beforeAll(async () => {
  // The shipped sign-in limits: 20 failures per account (RATE_LIMIT_LOGIN_ACCOUNT), then a growing delay.
  const { login, loginAccount, loginAddress } = defaultRateLimits();
  t = await startTestApp({ rateLimits: { ...testConfig().rateLimits, login, loginAccount, loginAddress } });
  key = await createApiKey(t.prisma, "account limits");
});
afterAll(() => t?.stop());

/** Every attempt from an address of its own: the per-address and per-account+address limits never answer. */
let address = 0;
const fromNewAddress = () => t.http({ "x-forwarded-for": `198.51.${Math.floor(++address / 250)}.${(address % 250) + 1}` });

/** The same name as typed by someone looking for a fresh budget. */
const spellings = (name: string) => [
  ` ${name}`,
  `${name} `,
  name.toUpperCase(),
  `${name[0].toUpperCase()}${name.slice(1)}`,
  `\u00a0${name}`,
  `${name}\u3000`,
  `\u2003${name}\u2009`,
  `\u200b${name}`,
  `${name.slice(0, 2)}\u200b${name.slice(2)}`,
  `${name}\ufeff`,
  [...name].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join(""), // full-width
];

describe.each([
  { surface: "game login", path: "/api/auth/login", create: async (name: string, password: string) => void (await t.account(name, password)) },
  {
    surface: "workspace sign-in",
    path: "/api/workspace/login",
    create: async (name: string, password: string) => {
      const res = await t.http().post("/api/public/create_user", { ...key, target_user: { username: name, password } });
      expect(res.status, res.text).toBe(200);
    },
  },
])("$surface: the per-account limit keys on the account", ({ path, create }) => {
  const login = (username: string, password: string) => fromNewAddress().post(path, { username, password });

  it("a padded, re-cased or Unicode-spaced name logs in to its account (padding is accepted, so it must count as that account)", async () => {
    const name = `pad${process.pid % 1000}${address}`;
    const password = "Right!Passw0rd";
    await create(name, password);
    for (const typed of [` ${name} `, `\u00a0${name.toUpperCase()}\u3000`, spellings(name).at(-1)!]) {
      const res = await login(typed, password);
      expect(res.status, JSON.stringify(typed)).toBe(200);
    }
    // Invisible marks inside or around a name are refused by the text rule (400), never looked up.
    expect((await login(`\u200b${name}`, password)).status).toBe(400);
  });

  it("20 wrong passwords from 20 addresses, then every other spelling of the name gets 429, even with the right password", async () => {
    const name = `victim${process.pid % 1000}${address}`;
    const password = "Right!Passw0rd";
    await create(name, password);
    for (let i = 0; i < 20; i++) expect((await login(name, `Wrong!Passw0rd${i}`)).status).toBe(401);
    const answers: Record<string, number> = {};
    for (const typed of [name, ...spellings(name)]) {
      const res = await login(typed, password);
      answers[JSON.stringify(typed)] = res.status;
      if (res.status === 429) {
        expect(res.body.error.code).toBe("rate_limited");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    // 429 before any password check; a spelling with an invisible mark is refused by the text rule
    // (400) before the name is looked up. Never 401 (a fresh budget) and never 200.
    expect(Object.values(answers).every((s) => s === 429 || s === 400), JSON.stringify(answers)).toBe(true);
    expect(Object.values(answers).filter((s) => s === 429).length, JSON.stringify(answers)).toBeGreaterThanOrEqual(9);
    // Another account's budget is its own.
    const other = `bystander${process.pid % 1000}${address}`;
    await create(other, password);
    expect((await login(other, password)).status).toBe(200);
  });
});

// Scaled out, the limits are counted in Redis (src/shared/counters.ts): a name's attempts on one
// process count on every other, whatever spelling each one gets. Two "processes" here: the sign-in
// routes twice, each with its own Redis connection, under one key prefix of this run's own.
describe.skipIf(!process.env.TEST_REDIS_URL)("scaled out: the per-account budget is one across processes", () => {
  const prefix = `account-limits-test:${process.pid}:${Date.now()}:`;
  const servers: Server[] = [];
  const connections: Redis[] = [];
  const processes: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const redis = new Redis(process.env.TEST_REDIS_URL!);
      connections.push(redis);
      const ctx = { ...t.app.ctx, counters: new RedisWindowCounters(redis, prefix) };
      const app = express();
      app.set("trust proxy", ctx.proxies.trusts);
      app.use(express.json());
      app.use("/api/auth", authRoutes(ctx));
      app.use("/api/workspace", workspaceSessionRoutes(ctx));
      app.use(jsonErrorHandler(ctx.logger, ctx.storage));
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      servers.push(server);
      processes.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    connections.forEach((c) => c.disconnect());
  });

  it.each([
    ["game login", "/api/auth/login"],
    ["workspace sign-in", "/api/workspace/login"],
  ])("%s: 20 wrong passwords on one process, then other spellings on the other: 429", async (_surface, path) => {
    const name = `spread${process.pid % 1000}${address}`;
    const password = "Right!Passw0rd";
    if (path === "/api/auth/login") await t.account(name, password);
    else expect((await t.http().post("/api/public/create_user", { ...key, target_user: { username: name, password } })).status).toBe(200);
    const on = (i: number) => new HttpClient(processes[i], { "x-forwarded-for": `198.18.${Math.floor(++address / 250) % 250}.${(address % 250) + 1}` });
    for (let i = 0; i < 20; i++) expect((await on(0).post(path, { username: name, password: `Wrong!Passw0rd${i}` })).status).toBe(401);
    // 429 on the other process; a spelling with an invisible mark is refused by the text rule (400) first.
    for (const typed of spellings(name)) expect((await on(1).post(path, { username: typed, password })).status, JSON.stringify(typed)).toBe(/[\u200b\ufeff]/.test(typed) ? 400 : 429);
  });
});
