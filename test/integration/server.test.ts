import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { defineRoom } from "@colyseus/core";
import { startTestApp, TEST_ORIGIN, type TestApp } from "../helpers/app.js";
import { IdentityRoom } from "../helpers/rooms.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { rooms: { identity: defineRoom(IdentityRoom) } });
});
afterAll(() => t?.stop());

describe("operations endpoints", () => {
  it("GET /health and GET /ready", async () => {
    const health = await t.http().get("/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    const ready = await t.http().get("/ready");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", database: process.env.TEST_DB === "postgres" ? "postgres" : "pglite" });
  });

  it("/ready answers 503 when the database is gone", async () => {
    const original = t.prisma.$queryRaw;
    (t.prisma as any).$queryRaw = () => Promise.reject(new Error("connection refused"));
    try {
      const res = await t.http().get("/ready");
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("not_ready");
    } finally {
      (t.prisma as any).$queryRaw = original;
    }
  });

  it("answers unknown paths with a 404 JSON error and a request id", async () => {
    const res = await t.http().get("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "not_found", message: "No route for GET /api/nothing-here" } });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.http().get("/health", { "x-request-id": "trace-abc.1" });
    expect(echoed.headers.get("x-request-id")).toBe("trace-abc.1");
  });

  it("does not mount the monitor without MONITOR_USER/MONITOR_PASSWORD, nor the playground outside development", async () => {
    expect((await t.http().get("/monitor/api")).status).toBe(404);
    expect((await t.http().get("/playground")).status).toBe(404);
  });
});

describe("CORS restricted to CORS_ORIGINS", () => {
  it("reflects a listed origin with credentials", async () => {
    const res = await t.http().get("/health", { origin: TEST_ORIGIN });
    expect(res.headers.get("access-control-allow-origin")).toBe(TEST_ORIGIN);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("vary")).toMatch(/Origin/);
  });

  it("gives an unlisted origin no CORS grant, on Express routes and on matchmaking", async () => {
    const res = await t.http().get("/health", { origin: "https://evil.example" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    const pre = await t.http().request("OPTIONS", "/matchmake/joinOrCreate/identity", undefined, {
      origin: "https://evil.example",
      "access-control-request-method": "POST",
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const ok = await t.http().request("OPTIONS", "/api/auth/login", undefined, { origin: TEST_ORIGIN, "access-control-request-method": "POST" });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(TEST_ORIGIN);
  });

  it("refuses cookie-authenticated writes from other origins (CSRF), and only those", async () => {
    const { cookie } = await t.account();
    const http = t.http({ cookie });
    const login = { username: "nobody", password: "wrong password" };
    const crossSite: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }];
    for (const headers of crossSite) {
      const res = await http.post("/api/auth/login", login, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe("origin_not_allowed");
      expect((await http.post("/api/snakes/add-bullets", { bullets: 1 }, headers)).status).toBe(403);
    }
    expect((await http.get("/api/snakes/progress")).body.total_bullets).toBe(0); // nothing was written
    // Listed origins, the server's own origin and non-browser clients are served.
    expect((await http.post("/api/auth/login", login, { origin: TEST_ORIGIN })).status).toBe(401);
    expect((await http.post("/api/auth/login", login, { origin: t.baseUrl })).status).toBe(401);
    expect((await http.post("/api/auth/login", login, { "sec-fetch-site": "same-origin" })).status).toBe(401);
    expect((await http.post("/api/auth/login", login)).status).toBe(401);
    // Reads are not writes; the workspace API authenticates by key pair, not by cookie.
    expect((await http.get("/api/snakes/progress", { origin: "https://evil.example" })).status).toBe(200);
    expect((await http.post("/api/public/get_users", { api_key: "k", api_key_secret: "s" }, { origin: "https://evil.example" })).status).toBe(401);
  });

  it("refuses WebSocket upgrades from unlisted origins", async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.wsUrl}/anything/room`, { headers: { origin: "https://evil.example" } });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => {});
    });
    expect(status).toBe(403);
  });
});

describe("room onAuth helper", () => {
  it("resolves the session cookie to the account", async () => {
    const { cookie, user } = await t.account();
    const room = await t.sdk(cookie).joinOrCreate("identity", {});
    expect(await room.request("whoami")).toMatchObject({ kind: "account", userId: user.id, username: user.username, guest: false });
    await room.leave();
  });

  it("makes a guest without a cookie (or with an expired one), with a sanitised, marked name", async () => {
    const room = await t.sdk().joinOrCreate("identity", { name: "  Zed\u0007 " });
    expect(await room.request("whoami")).toMatchObject({ kind: "guest", userId: null, username: "Zed (guest)", guest: true });
    await room.leave();
    const { user } = await t.account();
    const expired = await t.app.ctx.tokens.sign(user.id, -1);
    const room2 = await t.sdk(`jwt=${expired}`).joinOrCreate("identity", {});
    expect(await room2.request("whoami")).toMatchObject({ kind: "guest" });
    await room2.leave();
  });

  it("lets a listed browser origin connect over WebSocket", async () => {
    const { Client } = await import("@colyseus/sdk");
    const room = await new Client(t.wsUrl, { headers: { origin: TEST_ORIGIN } }).joinOrCreate("identity", {});
    expect(room.roomId).toBeTruthy();
    await room.leave();
  });
});

describe("OpenAPI document", () => {
  it("is served at /api/openapi.json and describes the auth routes and the error body", async () => {
    const res = await t.http().get("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(["/api/auth/register", "/api/auth/login", "/api/auth/me"]));
    expect(res.body.components.schemas.Error.properties.error.required).toEqual(["code", "message"]);
  });
});

describe("service index", () => {
  it("GET / lists the endpoints and the rooms", async () => {
    const res = await t.http().get("/");
    expect(res.status).toBe(200);
    expect(res.body.endpoints).toMatchObject({ auth: "/api/auth", progress: "/api/snakes", boss: "/api/boss", rooms: expect.arrayContaining(["boss_lobby", "boss", "mode_select", "pvp"]) });
  });
});
