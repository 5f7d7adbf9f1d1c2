import { afterAll, beforeAll, describe, expect, it } from "vitest";
import jwt from "jsonwebtoken";
import { startTestApp, testConfig, TEST_JWT_SECRET, type TestApp } from "../helpers/app.js";
import { defaultRateLimits } from "../../src/config.js";

let t: TestApp;
beforeAll(async () => {
  // The sign-in limits as shipped (failures only); registrations unlimited, for the many accounts here.
  const { login, loginAccount, loginAddress } = defaultRateLimits();
  t = await startTestApp({ rateLimits: { ...testConfig().rateLimits, login, loginAccount, loginAddress } });
});
afterAll(() => t?.stop());

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("register", () => {
  it("creates the account, sets the HttpOnly SameSite=Lax session cookie, never returns the hash", async () => {
    const http = t.http();
    const res = await http.post("/api/auth/register", { username: "ada_l", password: "analytical1" });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username: "ada_l", password_change_required: false });
    // The one field named after the password says only whether it must be changed.
    const { password_change_required: _flag, ...rest } = res.body.user;
    expect(JSON.stringify({ ...res.body, user: rest })).not.toMatch(/hash|password|scrypt/i);
    const cookie = res.headers.getSetCookie()[0];
    expect(cookie).toMatch(/^jwt=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const stored = await t.prisma.user.findUnique({ where: { username: "ada_l" } });
    expect(stored!.passwordHash).toMatch(/^scrypt\$/);
    expect((await http.get("/api/auth/me")).body.user.username).toBe("ada_l");
  });

  it("refuses a duplicate username with 409 and writes nothing", async () => {
    await t.account("dup_user");
    const before = await t.prisma.user.count();
    const res = await t.http().post("/api/auth/register", { username: "dup_user", password: "whatever123" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("username_taken");
    expect(await t.prisma.user.count()).toBe(before);
  });

  it("usernames are unique in any letter case, like workspace users; login ignores case (issue 10, fault 10)", async () => {
    await t.account("Ada_Case");
    for (const variant of ["ada_case", "ADA_CASE", "aDa_cAsE"]) {
      const res = await t.http().post("/api/auth/register", { username: variant, password: "whatever123" });
      expect(res.status, variant).toBe(409);
      expect(res.body.error.code).toBe("username_taken");
    }
    expect(await t.prisma.user.count({ where: { username: { equals: "ada_case", mode: "insensitive" } } })).toBe(1);
    const login = await t.http().post("/api/auth/login", { username: "ADA_case", password: "correct horse battery" });
    expect(login.status).toBe(200);
    expect(login.body.user.username).toBe("Ada_Case");
    // Concurrent registrations of one name in different cases: exactly one wins.
    const results = await Promise.all(["Bob_Race", "bob_race", "BOB_RACE", "bob_Race"].map((u) => t.http().post("/api/auth/register", { username: u, password: "whatever123" })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it.each([
    ["missing fields", {}, /username/],
    ["wrong types", { username: 5, password: true }, /username must be a string/],
    ["short password", { username: "shorty", password: "abc" }, /at least 8/],
    ["bad username characters", { username: "a b<c>", password: "longenough" }, /may only contain/],
    ["unknown fields", { username: "extra1", password: "longenough", admin: true }, /admin|Unrecognized/i],
    ["an array body", [1, 2], /body/],
  ])("rejects %s with 400 and the JSON error body", async (_name, body, message) => {
    const res = await t.http().post("/api/auth/register", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.message).toMatch(message);
  });

  it("rejects malformed JSON with 400 and oversized bodies with 413", async () => {
    const bad = await t.http().post("/api/auth/register", '{"username": "x", ');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ code: "invalid_json", message: "Request body is not valid JSON" });
    const huge = await t.http().post("/api/auth/register", { username: "big", password: "x".repeat(40_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe("payload_too_large");
  });

  it("treats a non-JSON content type as a missing body", async () => {
    const res = await t.http().post("/api/auth/register", "username=a&password=b", { "content-type": "application/x-www-form-urlencoded" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
  });
});

describe("login and logout", () => {
  it("enforces exactly the login schema its OpenAPI document states, with a message naming each problem (issue 23)", async () => {
    const doc = (await t.http().get("/api/openapi.json")).body;
    const schema = doc.paths["/api/auth/login"].post.requestBody.content["application/json"].schema;
    const { minLength, maxLength } = schema.properties.username;
    expect([minLength, maxLength]).toEqual([1, 64]);
    const login = (username: string, password = "some password") => t.http({ "x-forwarded-for": "203.0.113.77" }).post("/api/auth/login", { username, password });
    // Inside the documented bounds: judged as credentials (no such account).
    for (const name of ["a", "ab", "x".repeat(maxLength), "Not-A_Registrable.Name!"]) expect((await login(name)).status, name).toBe(401);
    // Outside them: 400, saying what is wrong.
    const empty = await login("");
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("Invalid request body: username: username must not be empty");
    const long = await login("x".repeat(maxLength + 1));
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe(`Invalid request body: username: username must have at most ${maxLength} characters`);
    expect((await login("someone", "")).body.error.message).toBe("Invalid request body: password: password must not be empty");
    expect((await login("someone", "p".repeat(257))).body.error.message).toBe("Invalid request body: password: password must have at most 256 characters");
  });

  it("logs in with the right password only", async () => {
    await t.account("grace_h", "cobol-rules-1");
    const wrong = await t.http().post("/api/auth/login", { username: "grace_h", password: "fortran-1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("invalid_credentials");
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const unknown = await t.http().post("/api/auth/login", { username: "nobody_here", password: "cobol-rules-1" });
    expect(unknown.status).toBe(401);
    const http = t.http();
    const ok = await http.post("/api/auth/login", { username: "grace_h", password: "cobol-rules-1" });
    expect(ok.status).toBe(200);
    expect(ok.body.user.username).toBe("grace_h");
    expect((await http.get("/api/auth/me")).status).toBe(200);
  });

  it("logout clears the cookie", async () => {
    const { http } = await t.account();
    const res = await http.post("/api/auth/logout");
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()[0]).toMatch(/^jwt=;.*Expires=Thu, 01 Jan 1970/);
    expect((await http.get("/api/auth/me")).status).toBe(401);
  });

  it("never counts a successful login; limits failed ones from one address with 429 and Retry-After (issue 40)", async () => {
    const http = t.http({ "x-forwarded-for": "203.0.113.9" });
    const { user } = await t.account(undefined, "correct horse battery");
    // The default limits: 10 logins a minute per address used to refuse the 11th, successful or not.
    for (let i = 0; i < 25; i++) expect((await http.post("/api/auth/login", { username: user.username, password: "correct horse battery" })).status).toBe(200);
    const { loginAddress } = defaultRateLimits();
    const statuses: number[] = [];
    for (let i = 0; i < loginAddress.limit; i++) statuses.push((await http.post("/api/auth/login", { username: `ghost${i}`, password: "nope-nope" })).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const limited = await http.post("/api/auth/login", { username: "ghost", password: "nope-nope" });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("protected routes", () => {
  const me = (cookie?: string) => t.http().get("/api/auth/me", cookie ? { cookie } : {});

  it("no token → 401", async () => {
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
  });

  it("expired token → 403", async () => {
    const { user } = await t.account();
    const expired = await t.app.ctx.tokens.sign(user.id, -5);
    const res = await me(`jwt=${expired}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("token_expired");
  });

  it("bad signature, alg none, other algorithms, garbage and unknown users → 401", async () => {
    const { user, cookie } = await t.account();
    const token = cookie.slice("jwt=".length);
    const [h, p, s] = token.split(".");
    const forged = `${h}.${b64({ _uid: user.id + 1000, exp: 9e9 })}.${s}`;
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ _uid: user.id, exp: 9e9 })}.`;
    const otherSecret = jwt.sign({ _uid: user.id }, "x".repeat(40), { algorithm: "HS256", expiresIn: "1h" });
    const hs384 = jwt.sign({ _uid: user.id }, TEST_JWT_SECRET, { algorithm: "HS384", expiresIn: "1h" });
    const ghost = await t.app.ctx.tokens.sign(999_999);
    for (const bad of [forged, none, otherSecret, hs384, "not.a.jwt", `${h}.${p}.${s}x`]) {
      const res = await me(`jwt=${bad}`);
      expect(res.status, bad).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
    }
    const unknown = await me(`jwt=${ghost}`);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toMatch(/unknown user/);
    expect((await me(cookie)).status).toBe(200);
  });
});

describe("out-of-range user ids (issue 10, fault 5)", () => {
  it("a signed token whose _uid is beyond the database's integer range is an invalid token: 401, never 500", async () => {
    for (const uid of [2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const token = jwt.sign({ _uid: uid }, TEST_JWT_SECRET, { algorithm: "HS256", expiresIn: "1h" });
      const res = await me(`jwt=${token}`);
      expect(res.status, String(uid)).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
      const write = await t.http({ cookie: `jwt=${token}` }).put("/api/snakes/", { lives: 3 });
      expect(write.status, String(uid)).toBe(401);
    }
  });
});

const me = (cookie?: string) => t.http().get("/api/auth/me", cookie ? { cookie } : {});

describe("revocable sessions (issue 10, fault 7)", () => {
  it("logout ends that session: a token copied before POST /api/auth/logout gets 401; the account's other sessions go on", async () => {
    const { http, cookie } = await t.account("logout_one");
    const other = t.http();
    expect((await other.post("/api/auth/login", { username: "logout_one", password: "correct horse battery" })).status).toBe(200);
    expect((await me(cookie)).status).toBe(200);
    expect((await http.post("/api/auth/logout")).status).toBe(200);
    const copied = await me(cookie);
    expect(copied.status).toBe(401);
    expect(copied.body.error.code).toBe("invalid_token");
    expect((await t.http({ cookie }).put("/api/snakes/", { lives: 2 })).status).toBe(401);
    expect((await other.get("/api/auth/me")).status).toBe(200);
  });

  it("a password change ends every other session of the account and keeps the caller signed in", async () => {
    const { http, cookie } = await t.account("changes_pw");
    const other = t.http();
    await other.post("/api/auth/login", { username: "changes_pw", password: "correct horse battery" });
    const wrong = await http.post("/api/auth/password", { current_password: "not it at all", new_password: "brand-new-pass-1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("invalid_credentials");
    const changed = await http.post("/api/auth/password", { current_password: "correct horse battery", new_password: "brand-new-pass-1" });
    expect(changed.status).toBe(200);
    expect((await http.get("/api/auth/me")).status).toBe(200); // the new cookie
    expect((await me(cookie)).status).toBe(401); // the caller's old token
    expect((await other.get("/api/auth/me")).status).toBe(401);
    expect((await t.http().post("/api/auth/login", { username: "changes_pw", password: "correct horse battery" })).status).toBe(401);
    expect((await t.http().post("/api/auth/login", { username: "changes_pw", password: "brand-new-pass-1" })).status).toBe(200);
  });

  it("a revoked token joins a room as a guest, like any invalid token", async () => {
    const { http, cookie } = await t.account("room_after_logout");
    await http.post("/api/auth/logout");
    const room = await t.sdk(cookie).joinOrCreate("boss_lobby", { username: "Mallory" });
    const state = await new Promise<any>((resolve) => room.onMessage("boss_lobby_state", resolve));
    expect(state.players.find((p: any) => p.sid === room.sessionId)).toMatchObject({ guest: true, username: "Mallory (guest)" });
    await room.leave();
  });

  it("ending every session (operator logout) ends tokens issued before it, and logins after it work", async () => {
    const { cookie, user } = await t.account("operator_target");
    await t.app.ctx.sessions.endAllSessions({ kind: "account", id: user.id });
    expect((await me(cookie)).status).toBe(401);
    const again = t.http();
    expect((await again.post("/api/auth/login", { username: "operator_target", password: "correct horse battery" })).status).toBe(200);
    expect((await again.get("/api/auth/me")).status).toBe(200);
  });
});

describe("GET /api/user/current (the original web client's first request)", () => {
  it("answers a signed-in session with the original's {id, uid, name}, listed in the OpenAPI document", async () => {
    const { http, user } = await t.account("tm_frontend");
    const res = await http.get("/api/user/current");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.id, uid: "tm_frontend", name: "tm_frontend" });
    const doc = (await t.http().get("/api/openapi.json")).body;
    expect(doc.paths["/api/user/current"].get).toMatchObject({ operationId: "getCurrentUserOriginalShape", summary: expect.stringMatching(/^Compatibility route/) });
  });

  it("is 401 without a session and after logout, never the 404 that makes the client stop at \"Please log in\"", async () => {
    const anonymous = await t.http().get("/api/user/current");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthenticated");
    const { http } = await t.account();
    await http.post("/api/auth/logout");
    expect((await http.get("/api/user/current")).status).toBe(401);
  });
});

