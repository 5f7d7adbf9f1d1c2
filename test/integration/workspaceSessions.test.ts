// Issue 10, fault 7 (the workspace side): workspace users sign in with their username and password
// and get a session; the workspace API's logout_user, a new password, a lock or a disable end
// every session of the user, and the user's own logout ends that one session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type HttpClient, type TestApp } from "../helpers/app.js";
import { createApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";

let t: TestApp;
let key: ApiKeyPair;
beforeAll(async () => {
  t = await startTestApp();
  key = await createApiKey(t.prisma, "workspace sessions");
});
afterAll(() => t?.stop());

const PASSWORD = "Str0ng!Pass";
const api = (operation: string, body: Record<string, unknown>) => t.http().post(`/api/public/${operation}`, { ...key, ...body });

let counter = 0;
async function workspaceUser(fields: Record<string, unknown> = {}): Promise<{ user_id: string; username: string }> {
  const res = await api("create_user", { target_user: { username: `Desk.User${++counter}`, password: PASSWORD, ...fields } });
  expect(res.status, res.text).toBe(200);
  return res.body.user;
}

/** Sign-ins are limited per client address (10 a minute): each comes from its own. */
let address = 0;
const fromFreshAddress = () => t.http({ "x-forwarded-for": `192.0.2.${++address}` });

async function signIn(username: string, password = PASSWORD): Promise<HttpClient> {
  const http = fromFreshAddress();
  const res = await http.post("/api/workspace/login", { username, password });
  expect(res.status, res.text).toBe(200);
  return http;
}

const me = (http: HttpClient) => http.get("/api/workspace/me");

describe("workspace sessions", () => {
  it("sign in (username in any case), see yourself and your workspaces; last_session is recorded", async () => {
    const user = await workspaceUser();
    const wrong = await fromFreshAddress().post("/api/workspace/login", { username: user.username, password: "Wr0ng!Pass" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("invalid_credentials");
    const http = await signIn(user.username.toUpperCase());
    const res = await me(http);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ user_id: user.user_id, username: user.username });
    expect(res.body.user.last_session).not.toBeNull();
    expect(res.body.workspaces).toEqual([]);
    expect(JSON.stringify(res.body)).not.toMatch(/password|scrypt/i);
  });

  it("logout_user ends every session of the user", async () => {
    const user = await workspaceUser();
    const [a, b] = [await signIn(user.username), await signIn(user.username)];
    expect((await api("logout_user", { target_user: { user_id: user.user_id } })).status).toBe(200);
    for (const http of [a, b]) {
      const res = await me(http);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_token");
    }
    expect((await me(await signIn(user.username))).status).toBe(200); // a new sign-in works
  });

  it("a new password, a lock or a disable (update_user) end every session; locked users cannot sign in", async () => {
    const user = await workspaceUser();
    const before = await signIn(user.username);
    expect((await api("update_user", { target_user: { user_id: user.user_id, password: "An0ther!Pass" } })).status).toBe(200);
    expect((await me(before)).status).toBe(401);
    const second = await signIn(user.username, "An0ther!Pass");
    expect((await api("update_user", { target_user: { user_id: user.user_id, locked: true } })).status).toBe(200);
    expect((await me(second)).status).toBe(401);
    const refused = await fromFreshAddress().post("/api/workspace/login", { username: user.username, password: "An0ther!Pass" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("account_locked");
    expect((await api("update_user", { target_user: { user_id: user.user_id, locked: false } })).status).toBe(200);
    const third = await signIn(user.username, "An0ther!Pass");
    expect((await api("update_user", { target_user: { user_id: user.user_id, disabled: true } })).status).toBe(200);
    expect((await me(third)).status).toBe(401);
  });

  it("the user's own logout ends that session only; deleting the user ends them all", async () => {
    const user = await workspaceUser();
    const [a, b] = [await signIn(user.username), await signIn(user.username)];
    const copied = a.cookieHeader;
    expect((await a.post("/api/workspace/logout")).status).toBe(200);
    expect((await t.http({ cookie: copied }).get("/api/workspace/me")).status).toBe(401);
    expect((await me(b)).status).toBe(200);
    expect((await api("delete_user", { target_user: { user_id: user.user_id } })).status).toBe(200);
    expect((await me(b)).status).toBe(401);
  });

  it("keeps game and workspace sessions apart", async () => {
    const user = await workspaceUser();
    const desk = await signIn(user.username);
    const game = await t.account();
    const gameToken = game.cookie.split("=")[1];
    const deskToken = [...desk.cookies.values()][0];
    expect((await t.http({ cookie: `${[...desk.cookies.keys()][0]}=${gameToken}` }).get("/api/workspace/me")).status).toBe(401);
    expect((await t.http({ cookie: `jwt=${deskToken}` }).get("/api/auth/me")).status).toBe(401);
    expect((await t.http().get("/api/workspace/me")).status).toBe(401);
    const noPassword = await workspaceUser({ password: undefined });
    expect((await fromFreshAddress().post("/api/workspace/login", { username: noPassword.username, password: PASSWORD })).status).toBe(401);
  });
});
