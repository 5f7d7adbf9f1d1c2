import { afterEach, describe, expect, it, vi } from "vitest";
import jwt from "jsonwebtoken";
import { TokenService } from "../../src/auth/tokens.js";
import { DEFAULT_PASSWORD_HASH_COST, hashPassword, usePasswordHashCost, verifyPassword } from "../../src/auth/passwords.js";
import { readCookie } from "../../src/auth/cookies.js";
import { sanitizeDisplayName, guestIdentity } from "../../src/auth/identity.js";
import { FixedWindowLimiter } from "../../src/http/rateLimit.js";
import { MemoryWindowCounters } from "../../src/shared/counters.js";

const secret = "unit-test-secret-0123456789abcdefghijklmnop";
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("TokenService", () => {
  const tokens = new TokenService(secret, 60);

  it("signs HS256 with _uid and exp, and verifies", async () => {
    const token = await tokens.sign(42);
    const [header, payload] = token.split(".").slice(0, 2).map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header.alg).toBe("HS256");
    expect(payload._uid).toBe(42);
    expect(payload.exp - payload.iat).toBe(60);
    expect(payload.sid).toMatch(/^[\w-]{22}$/);
    expect(payload.sep).toBe(0);
    expect(await tokens.verify(token)).toEqual({ status: "ok", uid: 42, sid: payload.sid, epoch: 0, generation: "", expiresAt: new Date(payload.exp * 1000) });
    expect(await tokens.verify(await tokens.sign(42, 60, 3))).toMatchObject({ status: "ok", epoch: 3 });
  });

  it("reads tokens from before sessions were revocable (no sid, no sep) as epoch 0", async () => {
    const legacy = jwt.sign({ _uid: 5 }, secret, { algorithm: "HS256", expiresIn: 60 });
    expect(await tokens.verify(legacy)).toMatchObject({ status: "ok", uid: 5, sid: undefined, epoch: 0 });
  });

  it("carries the database's authentication generation once it was restored (gen), none before", async () => {
    const before = tokens.sign(42, 60, 0, "");
    expect(JSON.parse(Buffer.from(before.split(".")[1], "base64url").toString()).gen).toBeUndefined();
    expect(tokens.verify(tokens.sign(42, 60, 1, "g1"))).toMatchObject({ status: "ok", epoch: 1, generation: "g1" });
    expect(tokens.verifyWorkspace(tokens.signWorkspace("0123456789abcdef0123456789abcdef", 0, 60, "g2"))).toMatchObject({ status: "ok", generation: "g2" });
    const bad = jwt.sign({ _uid: 5, sid: "aaaaaaaaaa", gen: 7 }, secret, { algorithm: "HS256", expiresIn: 60 });
    expect(tokens.verify(bad)).toMatchObject({ status: "invalid", reason: "token has malformed session claims" });
  });

  it("keeps game and workspace tokens apart", async () => {
    const workspace = await tokens.signWorkspace("0123456789abcdef0123456789abcdef", 2);
    expect(await tokens.verifyWorkspace(workspace)).toMatchObject({ status: "ok", userId: "0123456789abcdef0123456789abcdef", epoch: 2 });
    expect((await tokens.verify(workspace)).status).toBe("invalid");
    expect((await tokens.verifyWorkspace(await tokens.sign(7))).status).toBe("invalid");
  });

  it("refuses a token that outlives JWT_TTL or is issued in the future, even signed with the key (issue 41)", () => {
    const now = Math.floor(Date.now() / 1000);
    const forever = jwt.sign({ _uid: 7, iat: now, exp: Math.floor(Date.UTC(9999, 0, 1) / 1000) }, secret, { algorithm: "HS256" });
    expect(tokens.verify(forever)).toEqual({ status: "invalid", reason: "token lifetime exceeds JWT_TTL" });
    expect(tokens.verifyWorkspace(jwt.sign({ wsu: "0123456789abcdef0123456789abcdef", sid: "s".repeat(16), aud: "workspace", iat: now, exp: now + 61 }, secret, { algorithm: "HS256" })).status).toBe("invalid");
    // Both ends moved into the future keep the lifetime short but would still last for ever.
    const future = jwt.sign({ _uid: 7, iat: now + 86_400 * 365, exp: now + 86_400 * 365 + 30 }, secret, { algorithm: "HS256" });
    expect(tokens.verify(future)).toEqual({ status: "invalid", reason: "token issued in the future" });
    expect(tokens.verify(jwt.sign({ _uid: 7, exp: now + 30 }, secret, { algorithm: "HS256", noTimestamp: true }))).toEqual({ status: "invalid", reason: "token has no iat claim" });
    // Exactly JWT_TTL, and a few seconds of another clock's lead, pass.
    expect(tokens.verify(jwt.sign({ _uid: 7, iat: now + 5, exp: now + 65 }, secret, { algorithm: "HS256" })).status).toBe("ok");
  });

  it("reports expiry separately from invalidity", async () => {
    expect((await tokens.verify(await tokens.sign(1, -10))).status).toBe("expired");
  });

  it("rejects tampering, other secrets, alg none, missing exp and bad _uid", async () => {
    const token = await tokens.sign(7);
    const [h, , s] = token.split(".");
    expect((await tokens.verify(`${h}.${b64({ _uid: 8, exp: 9e9 })}.${s}`)).status).toBe("invalid");
    expect((await new TokenService("another-secret-0123456789abcdefghijkl", 60).verify(token)).status).toBe("invalid");
    expect((await tokens.verify(`${b64({ alg: "none", typ: "JWT" })}.${b64({ _uid: 7, exp: 9e9 })}.`)).status).toBe("invalid");
    const noExp = jwt.sign({ _uid: 7 }, secret, { algorithm: "HS256" });
    expect(tokens.verify(noExp)).toEqual({ status: "invalid", reason: "token has no exp claim" });
    const hs512 = jwt.sign({ _uid: 7 }, secret, { algorithm: "HS512", expiresIn: "1h" });
    expect(tokens.verify(hs512)).toEqual({ status: "invalid", reason: "invalid algorithm" });
    const strUid = jwt.sign({ _uid: "7" }, secret, { algorithm: "HS256", expiresIn: "1h" });
    expect((await tokens.verify(strUid)).status).toBe("invalid");
    expect(tokens.verify(jwt.sign("a string payload", secret, { algorithm: "HS256" })).status).toBe("invalid");
    expect((await tokens.verify("garbage")).status).toBe("invalid");
  });

  describe("remembered verdicts", () => {
    afterEach(() => {
      vi.useRealTimers();
      vi.restoreAllMocks();
    });

    it("verifies a session's token once (its signature cannot change) and still expires it on time", () => {
      vi.useFakeTimers({ now: new Date("2026-11-26T12:00:00Z"), toFake: ["Date"] });
      const service = new TokenService(secret, 30);
      const token = service.sign(11);
      const verify = vi.spyOn(jwt, "verify");
      expect(service.verify(token)).toMatchObject({ status: "ok", uid: 11 });
      expect(service.verify(token)).toMatchObject({ status: "ok", uid: 11 });
      expect(service.verifyWorkspace(token).status).toBe("invalid"); // another audience: its own verdict
      expect(verify).toHaveBeenCalledTimes(2);
      vi.setSystemTime(new Date("2026-11-26T12:00:29.999Z"));
      expect(service.verify(token).status).toBe("ok");
      vi.setSystemTime(new Date("2026-11-26T12:00:30Z"));
      expect(service.verify(token).status).toBe("expired");
      expect(service.verify(token).status).toBe("expired");
    });

    it("keeps nothing for a token that failed: a tampered twin of a remembered token stays invalid", () => {
      const service = new TokenService(secret, 60);
      const token = service.sign(7);
      expect(service.verify(token).status).toBe("ok");
      const [h, p] = token.split(".");
      expect(service.verify(`${h}.${p}.${"A".repeat(43)}`).status).toBe("invalid");
      expect(service.verify(`${h}.${b64({ _uid: 8, exp: 9e9 })}.${token.split(".")[2]}`).status).toBe("invalid");
    });
  });

  it("rejects an expired token signed with another secret as invalid, not expired", () => {
    const stale = jwt.sign({ _uid: 7, exp: Math.floor(Date.now() / 1000) - 60 }, "another-secret-0123456789abcdefghijkl", { algorithm: "HS256" });
    expect(tokens.verify(stale).status).toBe("invalid");
  });
});

describe("passwords", () => {
  it("hashes with scrypt and a salt, verifies only the right password", async () => {
    const a = await hashPassword("hunter22!");
    const b = await hashPassword("hunter22!");
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("hunter22");
    expect(await verifyPassword("hunter22!", a)).toBe(true);
    expect(await verifyPassword("hunter23!", a)).toBe(false);
    expect(await verifyPassword("hunter22!", "plaintext")).toBe(false);
  });

  it("hashes new passwords at the configured cost and verifies every hash with its own", async () => {
    const standard = await hashPassword("hunter22!");
    usePasswordHashCost(1024);
    try {
      const cheap = await hashPassword("hunter22!");
      expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await verifyPassword("hunter22!", cheap)).toBe(true);
      expect(await verifyPassword("hunter23!", cheap)).toBe(false);
      expect(await verifyPassword("hunter22!", standard)).toBe(true); // hashed at 16384, still verifies
    } finally {
      usePasswordHashCost(DEFAULT_PASSWORD_HASH_COST);
    }
    expect(await hashPassword("hunter22!")).toMatch(/^scrypt\$16384\$/);
  });
});

describe("readCookie", () => {
  it("finds a cookie among others and decodes it", () => {
    expect(readCookie("a=1; jwt=abc.def; b=2", "jwt")).toBe("abc.def");
    expect(readCookie("xjwt=1; jwt=%41", "jwt")).toBe("A");
    expect(readCookie("a=1", "jwt")).toBeUndefined();
    expect(readCookie(undefined, "jwt")).toBeUndefined();
    expect(readCookie("jwt=first; jwt=second", "jwt")).toBe("first");
    expect(readCookie("jwt=%E0%A4%A", "jwt")).toBe("%E0%A4%A");
  });
});

describe("guest identities", () => {
  it("sanitises display names and marks guests", () => {
    expect(sanitizeDisplayName("  Ann\u0000\u202e  Lee  ")).toBe("Ann Lee");
    expect(sanitizeDisplayName("<script>x")).toBe("scriptx");
    expect(sanitizeDisplayName("x".repeat(100))).toHaveLength(24);
    expect(sanitizeDisplayName(42)).toBe("Guest");
    const g = guestIdentity("Bob");
    expect(g).toMatchObject({ kind: "guest", userId: null, username: "Bob (guest)", guest: true });
    expect(g.guestId).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("FixedWindowLimiter", () => {
  it("allows `limit` hits per window, then reports the wait, then resets", async () => {
    let now = 0;
    const counters = new MemoryWindowCounters(() => now);
    const l = new FixedWindowLimiter(counters, "test", 2, 1000);
    expect(await l.hit("k")).toBe(0);
    expect(await l.hit("k")).toBe(0);
    expect(await l.blockedFor("k")).toBe(0);
    now = 400;
    expect(await l.hit("k")).toBe(600);
    expect(await l.blockedFor("k")).toBe(600); // peeking counts nothing
    expect(await l.blockedFor("k")).toBe(600);
    expect(await l.hit("other")).toBe(0);
    // Limiters sharing one store keep apart by name.
    expect(await new FixedWindowLimiter(counters, "another", 2, 1000).hit("k")).toBe(0);
    now = 1000;
    expect(await l.blockedFor("k")).toBe(0);
    expect(await l.hit("k")).toBe(0);
    now = 5000;
    await l.hit("z");
    expect(counters.size).toBe(1); // expired windows are swept
  });
});
