// The workspace platform API over real HTTP: every operation and every error row of the spec.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type HttpResponse, type TestApp } from "../helpers/app.js";
import { createApiKey, revokeApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";
import { upsertEntry } from "../../src/workspace/registryStore.js";
import { verifyPassword } from "../../src/auth/passwords.js";
import type { RegistryEntry } from "../../src/workspace/registry.js";

let t: TestApp;
let key: ApiKeyPair;
beforeAll(async () => {
  t = await startTestApp();
  key = await createApiKey(t.prisma, "integration tests");
});
afterAll(() => t?.stop());

let addressCounter = 0;
/** Each caller gets its own client address (the server trusts X-Forwarded-For from loopback). */
const freshAddress = () => `198.51.100.${++addressCounter}`;

function api(operation: string, body: Record<string, unknown> = {}, credentials: Partial<ApiKeyPair> = key, address = "203.0.113.1"): Promise<HttpResponse> {
  return t.http().post(`/api/public/${operation}`, { ...credentials, ...body }, { "x-forwarded-for": address });
}

const STRONG = "NewP@ssw0rd";
let userCounter = 0;
async function newUser(fields: Record<string, unknown> = {}) {
  const res = await api("create_user", { target_user: { username: `user${++userCounter}`, password: STRONG, ...fields } });
  expect(res.status, res.text).toBe(200);
  return res.body.user as { user_id: string; username: string; groups: { group_id: string; name: string }[] };
}
const row = (id: string) => t.prisma.workspaceUser.findUniqueOrThrow({ where: { id } });

function expectError(res: HttpResponse, status: number, message: RegExp | string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  expect(Object.keys(res.body)).toEqual(["error_message"]);
  if (typeof message === "string") expect(res.body.error_message).toBe(message);
  else expect(res.body.error_message).toMatch(message);
}

const fixture = (name: string): RegistryEntry =>
  JSON.parse(readFileSync(new URL(`../fixtures/registry/workspaces/${name}/workspace.json`, import.meta.url), "utf8"));

describe("authentication (every operation)", () => {
  it("validate_credentials answers 200 {} for a valid pair and records its use", async () => {
    const res = await api("validate_credentials");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const stored = await t.prisma.apiKey.findUniqueOrThrow({ where: { key: key.api_key } });
    expect(stored.lastUsedAt).toBeInstanceOf(Date);
    expect(stored.secretHash).not.toContain(key.api_key_secret);
  });

  it("answers 401 with the same message for a wrong key, a wrong secret and a revoked key", async () => {
    const address = freshAddress();
    const wrongKey = await api("validate_credentials", {}, { ...key, api_key: "no-such-key" }, address);
    expectError(wrongKey, 401, "Invalid API credentials");
    const wrongSecret = await api("validate_credentials", {}, { ...key, api_key_secret: key.api_key_secret.slice(0, -2) + "xx" }, address);
    expectError(wrongSecret, 401, "Invalid API credentials");
    const other = await createApiKey(t.prisma, "to revoke");
    expect((await api("validate_credentials", {}, other, address)).status).toBe(200);
    expect((await revokeApiKey(t.prisma, other.api_key)).status).toBe("revoked");
    expectError(await api("validate_credentials", {}, other, address), 401, "Invalid API credentials");
    // Another key's secret does not open this key.
    expectError(await api("validate_credentials", {}, { api_key: key.api_key, api_key_secret: other.api_key_secret }, address), 401, "Invalid API credentials");
  });

  it("refuses a bad key pair before looking at the rest of the body", async () => {
    const user = await newUser();
    const before = await row(user.user_id);
    const res = await api("update_user", { target_user: { user_id: user.user_id, first_name: "Mallory", bogus: 1 } }, { ...key, api_key_secret: "wrong" }, freshAddress());
    expectError(res, 401, "Invalid API credentials");
    expect(await row(user.user_id)).toEqual(before);
  });

  it.each([
    ["missing credentials", {}, /api_key is required; api_key_secret is required/],
    ["a numeric key", { api_key: 12, api_key_secret: "x" }, /api_key must be a string/],
    ["an empty secret", { api_key: "k", api_key_secret: "" }, /api_key_secret must not be empty/],
  ])("answers 400 for %s", async (_name, credentials, message) => {
    const res = await t.http().post("/api/public/validate_credentials", credentials);
    expectError(res, 400, message);
  });

  it("keeps the error shape for malformed JSON, oversized bodies, other content types and non-objects", async () => {
    expectError(await t.http().post("/api/public/update_user", '{"api_key": "x", '), 400, "Request body is not valid JSON");
    expectError(await api("update_user", { target_user: { user_id: "x", notes: "n".repeat(20_000) } }), 413, "Request body is too large");
    expectError(await t.http().post("/api/public/update_user", "api_key=x", { "content-type": "application/x-www-form-urlencoded" }), 400, /body must be a JSON object/);
    expectError(await t.http().post("/api/public/update_user", [1, 2]), 400, /body must be a JSON object/);
  });

  it("answers 404 for an unknown operation and 405 for a known one without POST", async () => {
    expectError(await api("drop_tables"), 404, /^Unknown operation "drop_tables"; operations: validate_credentials, create_user/);
    expectError(await t.http().post("/api/public", {}), 404, /Unknown operation/);
    expectError(await t.http().get("/api/public/update_user/extra"), 404, /Unknown operation "update_user\/extra"/);
    const get = await t.http().get("/api/public/update_user");
    expectError(get, 405, "Use POST for update_user");
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("leaves the rest of the server's error shape alone", async () => {
    const res = await t.http().post("/api/auth/login", '{"username": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_json");
  });
});

describe("update_user", () => {
  it("changes only the given fields and answers 200 {user} without the password", async () => {
    const user = await newUser({ first_name: "Ada", last_name: "Lovelace", organization: "Analytical", phone: "555-0100" });
    const before = await row(user.user_id);
    const res = await api("update_user", { target_user: { user_id: user.user_id, phone: "123-456-7890", last_name: "King" } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["user"]);
    expect(res.body.user).toEqual({
      user_id: user.user_id,
      username: user.username,
      first_name: "Ada",
      last_name: "King",
      organization: "Analytical",
      phone: "123-456-7890",
      realm: "local",
      locked: false,
      disabled: false,
      groups: [{ group_id: expect.stringMatching(/^[0-9a-f]{32}$/), name: "All Users" }],
      created: before.createdAt.toISOString(),
      last_session: null,
      notes: null,
    });
    expect(res.text).not.toMatch(/password|scrypt|hash/i);
    const after = await row(user.user_id);
    expect(after).toEqual({ ...before, lastName: "King", phone: "123-456-7890", updatedAt: after.updatedAt });
  });

  it("updates every field at once; a new password is hashed with scrypt and ends existing sessions", async () => {
    const user = await newUser();
    const res = await api("update_user", {
      target_user: {
        user_id: user.user_id,
        username: "grace.hopper@example.com",
        first_name: "Grace",
        last_name: "Hopper",
        locked: true,
        disabled: true,
        organization: "Navy",
        phone: "+1 (555) 010-0199",
        password: "C0b0l&Rules",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username: "grace.hopper@example.com", first_name: "Grace", last_name: "Hopper", locked: true, disabled: true, organization: "Navy", phone: "+1 (555) 010-0199" });
    const stored = await row(user.user_id);
    expect(stored.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword("C0b0l&Rules", stored.passwordHash!)).toBe(true);
    expect(stored.sessionEpoch).toBe(1);
    const back = await api("update_user", { target_user: { user_id: user.user_id, locked: false, disabled: false } });
    expect(back.body.user).toMatchObject({ locked: false, disabled: false, username: "grace.hopper@example.com" });
  });

  it("with only user_id changes nothing and answers the current details", async () => {
    const user = await newUser();
    const before = await row(user.user_id);
    const res = await api("update_user", { target_user: { user_id: user.user_id } });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe(user.username);
    expect((await row(user.user_id)).passwordHash).toBe(before.passwordHash);
  });

  it("answers 404 for an unknown user (the platform README's example id) and writes nothing", async () => {
    const count = await t.prisma.workspaceUser.count();
    expectError(await api("update_user", { target_user: { user_id: "1234", password: STRONG, phone: "123-456-7890" } }), 404, "User not found");
    expectError(await api("update_user", { target_user: { user_id: "0".repeat(32) } }), 404, "User not found");
    expect(await t.prisma.workspaceUser.count()).toBe(count);
  });

  it.each([
    ["Sh0rt!", ["at least 8 characters"]],
    ["newp@ssw0rd", ["at least one uppercase letter"]],
    ["NEWP@SSW0RD", ["at least one lowercase letter"]],
    ["NewP@ssword", ["at least one digit"]],
    ["NewPassw0rd", ["at least one special character"]],
    ["password", ["at least one uppercase letter", "at least one digit", "at least one special character"]],
    ["", ["at least 8 characters", "at least one uppercase letter", "at least one lowercase letter", "at least one digit", "at least one special character"]],
  ])("rejects password %j with 400 naming %j, and changes nothing else sent with it", async (password, rules) => {
    const user = await newUser();
    const before = await row(user.user_id);
    const res = await api("update_user", { target_user: { user_id: user.user_id, first_name: "Changed", password } });
    expect(res.status).toBe(400);
    expect(res.body.error_message).toMatch(/^Password does not meet requirements: /);
    for (const rule of rules) expect(res.body.error_message).toContain(rule);
    expect(res.body.error_message.split(";")).toHaveLength(rules.length);
    expect(await row(user.user_id)).toEqual(before);
  });

  it.each([
    ["a string for locked", { locked: "true" }, /target_user\.locked must be a boolean/],
    ["a number for first_name", { first_name: 5 }, /target_user\.first_name must be a string/],
    ["null for phone", { phone: null }, /target_user\.phone must be a string/],
    ["a number for password", { password: 12345678 }, /target_user\.password must be a string/],
    ["an unknown field", { is_admin: true }, /target_user has unknown field\(s\): is_admin/],
    ["a username with spaces", { username: "ada lovelace" }, /target_user\.username may only contain/],
    ["an empty username", { username: "" }, /target_user\.username must not be empty/],
    ["a 300-character last name", { last_name: "x".repeat(300) }, /target_user\.last_name must have at most 128 characters/],
    ["a control character", { organization: "Evil\u0007Corp" }, /target_user\.organization must not contain control characters/],
    ["a 300-character password", { password: "Aa1!".repeat(75) }, /target_user\.password must have at most 256 characters/],
  ])("rejects %s with 400 naming the field, and changes nothing", async (_name, change, message) => {
    const user = await newUser();
    const before = await row(user.user_id);
    const res = await api("update_user", { target_user: { user_id: user.user_id, last_name: "Valid", ...change } });
    expectError(res, 400, message);
    expect(await row(user.user_id)).toEqual(before);
  });

  it.each([
    ["no target_user", {}, /target_user is required/],
    ["target_user as a string", { target_user: "abc" }, /target_user must be an object/],
    ["no user_id", { target_user: { first_name: "Ada" } }, /target_user\.user_id is required/],
    ["a numeric user_id", { target_user: { user_id: 1234 } }, /target_user\.user_id must be a string/],
    ["an unknown top-level field", { target_user: { user_id: "x" }, dry_run: true }, /body has unknown field\(s\): dry_run/],
  ])("rejects %s with 400", async (_name, body, message) => {
    expectError(await api("update_user", body), 400, message);
  });

  it("lists every problem at once", async () => {
    const res = await api("update_user", { target_user: { locked: 1, disabled: "no", extra: true } });
    expectError(res, 400, /user_id is required.*locked must be a boolean.*disabled must be a boolean.*unknown field\(s\): extra/);
  });

  it("answers 409 for a username another user holds, in any letter case, and changes nothing", async () => {
    const ada = await newUser({ username: "ada" });
    const bob = await newUser({ username: "bob" });
    const before = await row(bob.user_id);
    for (const taken of ["ada", "ADA", "Ada"]) {
      const res = await api("update_user", { target_user: { user_id: bob.user_id, username: taken, first_name: "Robert" } });
      expectError(res, 409, `Username "${taken}" is already taken`);
    }
    expect(await row(bob.user_id)).toEqual(before);
    // Changing the case of one's own name is not a conflict.
    const own = await api("update_user", { target_user: { user_id: ada.user_id, username: "Ada" } });
    expect(own.status).toBe(200);
    expect(own.body.user.username).toBe("Ada");
  });

  it("lets exactly one of two concurrent renames to the same name win", async () => {
    const a = await newUser();
    const b = await newUser();
    const [ra, rb] = await Promise.all([
      api("update_user", { target_user: { user_id: a.user_id, username: "Contested" } }),
      api("update_user", { target_user: { user_id: b.user_id, username: "contested" } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const holders = await t.prisma.workspaceUser.findMany({ where: { username: { in: ["Contested", "contested"] } } });
    expect(holders).toHaveLength(1);
  });
});

describe("create_user, get_user, get_users, delete_user, logout_user", () => {
  it("create_user answers {user} with a 32-hex id in the All Users group and stores only a hash", async () => {
    const res = await api("create_user", {
      target_user: { username: "margaret", first_name: "Margaret", last_name: "Hamilton", organization: "MIT", phone: "555-0101", password: "Ap0ll0!11", locked: false, disabled: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username: "margaret", first_name: "Margaret", realm: "local", locked: false, disabled: false, last_session: null });
    expect(res.body.user.user_id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.user.groups.map((g: { name: string }) => g.name)).toEqual(["All Users"]);
    expect(new Date(res.body.user.created).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(res.text).not.toMatch(/password|scrypt/i);
    expect((await row(res.body.user.user_id)).passwordHash).toMatch(/^scrypt\$/);
  });

  it("create_user allows no password, and refuses a weak one, a taken name and a missing username", async () => {
    expect((await api("create_user", { target_user: { username: "sso-only" } })).status).toBe(200);
    const count = await t.prisma.workspaceUser.count();
    expectError(await api("create_user", { target_user: { username: "weakling", password: "weak" } }), 400, /Password does not meet requirements: at least 8 characters; at least one uppercase letter; at least one digit; at least one special character/);
    expectError(await api("create_user", { target_user: { username: "SSO-ONLY", password: STRONG } }), 409, 'Username "SSO-ONLY" is already taken');
    expectError(await api("create_user", { target_user: { first_name: "Nobody" } }), 400, /target_user\.username is required/);
    expectError(await api("create_user", { target_user: { username: "x", user_id: "f".repeat(32) } }), 400, /unknown field\(s\): user_id/);
    expect(await t.prisma.workspaceUser.count()).toBe(count);
  });

  it("get_user finds a user by user_id or by username in any case", async () => {
    const user = await newUser({ username: "Katherine.J" });
    const byId = await api("get_user", { target_user: { user_id: user.user_id } });
    expect(byId.status).toBe(200);
    expect(byId.body.user).toEqual(user);
    const byName = await api("get_user", { target_user: { username: "katherine.j" } });
    expect(byName.body.user).toEqual(user);
    expectError(await api("get_user", { target_user: { user_id: "f".repeat(32) } }), 404, "User not found");
    expectError(await api("get_user", { target_user: { username: "nobody" } }), 404, "User not found");
    expectError(await api("get_user", { target_user: {} }), 400, /needs exactly one of user_id or username/);
    expectError(await api("get_user", { target_user: { user_id: user.user_id, username: "katherine.j" } }), 400, /exactly one/);
  });

  it("get_users pages through every user, oldest first", async () => {
    const total = await t.prisma.workspaceUser.count();
    const all = await api("get_users");
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total, page: 1, page_size: 100 });
    expect(all.body.users).toHaveLength(Math.min(total, 100));
    const first = await api("get_users", { page: 1, page_size: 2 });
    const second = await api("get_users", { page: 2, page_size: 2 });
    expect(first.body.users).toHaveLength(2);
    expect(second.body).toMatchObject({ total, page: 2, page_size: 2 });
    expect(second.body.users[0]).toEqual(all.body.users[2]);
    expect((await api("get_users", { page: 10_000 })).body.users).toEqual([]);
    expect(all.text).not.toMatch(/password|scrypt/i);
    expectError(await api("get_users", { page: 0 }), 400, /page must be at least 1/);
    expectError(await api("get_users", { page_size: 501 }), 400, /page_size must be at most 500/);
    expectError(await api("get_users", { page: 1.5 }), 400, /page must be an integer/);
  });

  it("delete_user removes the user (force accepted) and then answers 404", async () => {
    const user = await newUser();
    const res = await api("delete_user", { target_user: { user_id: user.user_id }, force: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await t.prisma.workspaceUser.findUnique({ where: { id: user.user_id } })).toBeNull();
    expect(await t.prisma.workspaceGroupMember.count({ where: { userId: user.user_id } })).toBe(0);
    expectError(await api("delete_user", { target_user: { user_id: user.user_id }, force: true }), 404, "User not found");
    expectError(await api("get_user", { target_user: { user_id: user.user_id } }), 404, "User not found");
    expectError(await api("delete_user", { target_user: { user_id: user.user_id }, force: "yes" }), 400, /force must be a boolean/);
    expectError(await api("delete_user", {}), 400, /target_user is required/);
  });

  it("logout_user ends the user's sessions", async () => {
    const user = await newUser();
    const res = await api("logout_user", { target_user: { user_id: user.user_id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await row(user.user_id)).sessionEpoch).toBe(1);
    expectError(await api("logout_user", { target_user: { user_id: "f".repeat(32) } }), 404, "User not found");
  });
});

describe("groups and allowed workspaces", () => {
  let chromium: RegistryEntry;
  let nighthawk: RegistryEntry;
  beforeAll(async () => {
    chromium = fixture("Chromium");
    nighthawk = fixture("Nighthawk");
    await upsertEntry(t.prisma, chromium);
    await upsertEntry(t.prisma, nighthawk);
  });

  const group = async (name: string) => {
    const res = await api("create_group", { target_group: { name, description: `${name} members` } });
    expect(res.status, res.text).toBe(200);
    return res.body.group as { group_id: string; name: string; workspaces: string[] };
  };

  it("get_groups lists the default All Users group first", async () => {
    const res = await api("get_groups");
    expect(res.status).toBe(200);
    expect(res.body.groups[0]).toMatchObject({ name: "All Users", is_default: true, workspaces: [] });
    expect(res.body.groups[0].group_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("create_group refuses a name taken in any letter case, and bad names", async () => {
    const students = await group("Students");
    expect(students).toMatchObject({ name: "Students", member_count: 0, workspaces: [], is_default: false });
    expectError(await api("create_group", { target_group: { name: "STUDENTS" } }), 409, 'A group named "STUDENTS" already exists');
    expectError(await api("create_group", { target_group: { name: "all users" } }), 409, /already exists/);
    expectError(await api("create_group", { target_group: { name: " padded " } }), 400, /target_group\.name must be non-empty without leading or trailing spaces/);
    expectError(await api("create_group", { target_group: {} }), 400, /target_group\.name is required/);
  });

  it("add_user_group and remove_user_group change membership idempotently", async () => {
    const user = await newUser();
    const teachers = await group("Teachers");
    const add = { target_user: { user_id: user.user_id }, target_group: { group_id: teachers.group_id } };
    expect((await api("add_user_group", add)).body).toEqual({});
    expect((await api("add_user_group", add)).status).toBe(200);
    const after = await api("get_user", { target_user: { user_id: user.user_id } });
    expect(after.body.user.groups.map((g: { name: string }) => g.name)).toEqual(["All Users", "Teachers"]);
    expect((await api("remove_user_group", add)).body).toEqual({});
    expect((await api("remove_user_group", add)).status).toBe(200);
    expect((await api("get_user", { target_user: { user_id: user.user_id } })).body.user.groups.map((g: { name: string }) => g.name)).toEqual(["All Users"]);
  });

  it("group operations answer 404 for an unknown user or group, 409 for the default group", async () => {
    const user = await newUser();
    const g = await group("Staff");
    const defaultGroup = (await api("get_groups")).body.groups[0];
    expectError(await api("add_user_group", { target_user: { user_id: "f".repeat(32) }, target_group: { group_id: g.group_id } }), 404, "User not found");
    expectError(await api("add_user_group", { target_user: { user_id: user.user_id }, target_group: { group_id: "f".repeat(32) } }), 404, "Group not found");
    expectError(await api("remove_user_group", { target_user: { user_id: user.user_id }, target_group: { group_id: "f".repeat(32) } }), 404, "Group not found");
    expectError(await api("remove_user_group", { target_user: { user_id: user.user_id }, target_group: { group_id: defaultGroup.group_id } }), 409, /cannot be removed from the default group/);
    expectError(await api("delete_group", { target_group: { group_id: defaultGroup.group_id } }), 409, /cannot be deleted/);
    expectError(await api("delete_group", { target_group: { group_id: "f".repeat(32) } }), 404, "Group not found");
    expectError(await api("add_user_group", { target_user: { user_id: user.user_id } }), 400, /target_group is required/);
  });

  it("delete_group removes the group and its memberships", async () => {
    const user = await newUser();
    const g = await group("Temporary");
    await api("add_user_group", { target_user: { user_id: user.user_id }, target_group: { group_id: g.group_id } });
    expect((await api("delete_group", { target_group: { group_id: g.group_id } })).body).toEqual({});
    expect((await api("get_user", { target_user: { user_id: user.user_id } })).body.user.groups.map((x: { name: string }) => x.name)).toEqual(["All Users"]);
  });

  it("set_group_workspaces sets a group's allowed workspaces; unknown names are a 400 naming them", async () => {
    const g = await group("Browsers");
    const res = await api("set_group_workspaces", { target_group: { group_id: g.group_id }, workspaces: [chromium.name, chromium.name] });
    expect(res.status).toBe(200);
    expect(res.body.group).toMatchObject({ name: "Browsers", workspaces: [chromium.name] });
    const bad = await api("set_group_workspaces", { target_group: { group_id: g.group_id }, workspaces: [nighthawk.name, "kasmweb/doom:1.0", "kasmweb/quake:2.0"] });
    expectError(bad, 400, "Unknown workspaces (no registry entry with that name): kasmweb/doom:1.0, kasmweb/quake:2.0");
    expect((await api("get_groups")).body.groups.find((x: { name: string }) => x.name === "Browsers").workspaces).toEqual([chromium.name]);
    expectError(await api("set_group_workspaces", { target_group: { group_id: "f".repeat(32) }, workspaces: [] }), 404, "Group not found");
    expectError(await api("set_group_workspaces", { target_group: { group_id: g.group_id }, workspaces: chromium.name }), 400, /workspaces must be an array/);
    const cleared = await api("set_group_workspaces", { target_group: { group_id: g.group_id }, workspaces: [] });
    expect(cleared.body.group.workspaces).toEqual([]);
  });

  it("get_workspaces gives a user only what their groups allow, and nothing while locked or disabled", async () => {
    const user = await newUser();
    const outsider = await newUser();
    const devs = await group("Developers");
    await api("set_group_workspaces", { target_group: { group_id: devs.group_id }, workspaces: [nighthawk.name] });
    await api("add_user_group", { target_user: { user_id: user.user_id }, target_group: { group_id: devs.group_id } });

    const mine = await api("get_workspaces", { target_user: { user_id: user.user_id } });
    expect(mine.status).toBe(200);
    expect(mine.body.workspaces).toEqual([{ ...nighthawk, sha: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
    expect((await api("get_workspaces", { target_user: { user_id: outsider.user_id } })).body.workspaces).toEqual([]);

    await api("update_user", { target_user: { user_id: user.user_id, locked: true } });
    expect((await api("get_workspaces", { target_user: { user_id: user.user_id } })).body.workspaces).toEqual([]);
    await api("update_user", { target_user: { user_id: user.user_id, locked: false, disabled: true } });
    expect((await api("get_workspaces", { target_user: { user_id: user.user_id } })).body.workspaces).toEqual([]);
    await api("update_user", { target_user: { user_id: user.user_id, disabled: false } });
    expect((await api("get_workspaces", { target_user: { user_id: user.user_id } })).body.workspaces).toHaveLength(1);

    // The default group's workspaces reach everyone.
    const everyone = (await api("get_groups")).body.groups[0];
    await api("set_group_workspaces", { target_group: { group_id: everyone.group_id }, workspaces: [chromium.name] });
    const outsiders = await api("get_workspaces", { target_user: { user_id: outsider.user_id } });
    expect(outsiders.body.workspaces.map((w: RegistryEntry) => w.name)).toEqual([chromium.name]);
    const both = await api("get_workspaces", { target_user: { user_id: user.user_id } });
    expect(both.body.workspaces.map((w: RegistryEntry) => w.friendly_name)).toEqual(["Chromium", "CSSE Ubuntu Jammy"]);
    await api("set_group_workspaces", { target_group: { group_id: everyone.group_id }, workspaces: [] });

    expectError(await api("get_workspaces", { target_user: { user_id: "f".repeat(32) } }), 404, "User not found");
  });

  it("get_workspaces without a user lists the whole registry", async () => {
    const res = await api("get_workspaces");
    expect(res.status).toBe(200);
    expect(res.body.workspaces.map((w: RegistryEntry) => w.name).sort()).toEqual([chromium.name, nighthawk.name].sort());
  });
});
