// Issue 10, fault 8: register (an scrypt hash each) is limited per client address, and writes to
// the progress and boss routes per account; both answer 429 with Retry-After. The counters live in
// the shared state (Redis when scaled out), like the login limits. Issue 40: /matchmake counts a
// signed-in player on its account and a guest on its address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, testConfig, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    rateLimits: {
      ...testConfig().rateLimits,
      register: { limit: 3, windowMs: 60_000 },
      accountWrites: { limit: 5, windowMs: 60_000 },
      matchmake: { limit: 3, windowMs: 60_000 },
      matchmakeAddress: { limit: 4, windowMs: 60_000 },
    },
  });
});
afterAll(() => t?.stop());

function expectLimited(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe("rate_limited");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
}

describe("rate limits", () => {
  it("limits registrations per client address", async () => {
    const from = (address: string) => t.http({ "x-forwarded-for": address });
    for (let i = 0; i < 3; i++) expect((await from("198.51.100.7").post("/api/auth/register", { username: `reg_${process.pid}_${i}`, password: "long-enough-1" })).status).toBe(201);
    const refused = await from("198.51.100.7").post("/api/auth/register", { username: `reg_${process.pid}_x`, password: "long-enough-1" });
    expectLimited(refused);
    expect(await t.prisma.user.count({ where: { username: `reg_${process.pid}_x` } })).toBe(0);
    // Another address is not affected.
    expect((await from("198.51.100.8").post("/api/auth/register", { username: `reg_${process.pid}_y`, password: "long-enough-1" })).status).toBe(201);
  });

  it("limits writes to the progress and boss routes per account, not reads, not other accounts", async () => {
    const a = await t.account();
    const b = await t.account();
    const writes = [
      () => a.http.put("/api/snakes/", { lives: 4 }),
      () => a.http.post("/api/snakes/update-square", { square: 2 }),
      () => a.http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 5 }),
      () => a.http.post("/api/boss/leave", { room_id: "nowhere" }),
      () => a.http.post("/api/snakes/", {}),
    ];
    for (const write of writes) expect((await write()).status).not.toBe(429);
    expectLimited(await a.http.post("/api/snakes/add-bullets", { bullets: 1 }));
    expectLimited(await a.http.post("/api/boss/join", {}));
    expect((await a.http.get("/api/snakes/progress")).status).toBe(200);
    expect((await a.http.get("/api/boss/stats")).status).toBe(200);
    expect((await b.http.put("/api/snakes/", { lives: 3 })).status).toBe(200);
    expect((await a.http.get("/api/snakes/progress")).body.total_bullets).toBe(5); // the refused add-bullets wrote nothing
  });

  it("limits guests' matchmaking requests per client address (issue 23), before reading a body", async () => {
    const from = (address: string) => t.http({ "x-forwarded-for": address });
    const join = (address: string) => from(address).post("/matchmake/joinOrCreate/mode_select", {});
    for (let i = 0; i < 4; i++) expect((await join("198.51.100.20")).status).toBe(200);
    expectLimited(await join("198.51.100.20"));
    // Refused before the body is looked at: a malformed one gets 429 too, not 400.
    expectLimited(await from("198.51.100.20").post("/matchmake/joinOrCreate/mode_select", "{not json"));
    expect((await join("198.51.100.21")).status).toBe(200);
  });

  it("limits a signed-in player's matchmaking on its account, not its address (issue 40)", async () => {
    const school = "198.51.100.30";
    // Registered elsewhere (this file allows 3 registrations per address).
    const signUp = async (from: string) => {
      const http = t.http({ "x-forwarded-for": from });
      expect((await http.post("/api/auth/register", { username: `mm_${process.pid}_${from.replace(/\./g, "_")}`, password: "long-enough-1" })).status).toBe(201);
      return { cookie: http.cookieHeader };
    };
    const a = await signUp("198.51.100.41");
    const b = await signUp("198.51.100.42");
    const join = (cookie: string) => t.http({ "x-forwarded-for": school, cookie }).post("/matchmake/joinOrCreate/mode_select", {});
    // The address's guest budget is spent; accounts behind it are not refused for that.
    for (let i = 0; i < 4; i++) expect((await t.http({ "x-forwarded-for": school }).post("/matchmake/joinOrCreate/mode_select", {})).status).toBe(200);
    expectLimited(await t.http({ "x-forwarded-for": school }).post("/matchmake/joinOrCreate/mode_select", {}));
    for (let i = 0; i < 3; i++) expect((await join(a.cookie)).status).toBe(200);
    expectLimited(await join(a.cookie));
    // Another account at the same address has its own budget; a forged cookie is a guest (and limited as one).
    expect((await join(b.cookie)).status).toBe(200);
    expectLimited(await join("jwt=forged.token.here"));
  });
});
