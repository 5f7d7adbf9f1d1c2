// Issue 40: sign-in limits count failures, not people (src/http/loginLimits.ts), on a fake clock.
import { describe, expect, it } from "vitest";
import { LoginLimits, lockoutMs, LOCKOUT_BASE_MS, LOCKOUT_MAX_MS } from "../../src/http/loginLimits.js";
import { MemoryWindowCounters } from "../../src/shared/counters.js";
import { defaultRateLimits } from "../../src/config.js";

function limits() {
  let now = 1_000_000;
  const counters = new MemoryWindowCounters(() => now);
  const { login, loginAccount, loginAddress } = defaultRateLimits();
  return { guard: new LoginLimits(counters, "login", { pair: login, account: loginAccount, address: loginAddress }), counters, advance: (ms: number) => (now += ms) };
}

describe("the growing delay", () => {
  it("is nothing below the limit, then 30 s doubling with each failure, at most 15 minutes", () => {
    expect([1, 4].map((n) => lockoutMs(n, 5))).toEqual([0, 0]);
    expect([5, 6, 7, 8].map((n) => lockoutMs(n, 5))).toEqual([LOCKOUT_BASE_MS, 2 * LOCKOUT_BASE_MS, 4 * LOCKOUT_BASE_MS, 8 * LOCKOUT_BASE_MS]);
    expect(lockoutMs(50, 5)).toBe(LOCKOUT_MAX_MS);
    expect(lockoutMs(10_000, 5)).toBe(LOCKOUT_MAX_MS);
  });
});

describe("LoginLimits", () => {
  it("locks one account from one address after 5 failures, for longer each time; other accounts and addresses are free", async () => {
    const { guard, advance } = limits();
    for (let i = 0; i < 4; i++) expect(await guard.failed("u:ada", "192.0.2.1")).toBeUndefined();
    expect(await guard.failed("u:ada", "192.0.2.1")).toMatchObject({ reason: "account_from_address", waitMs: 30_000 });
    expect(await guard.refusal("u:ada", "192.0.2.1")).toMatchObject({ reason: "account_from_address" });
    expect(await guard.refusal("u:bob", "192.0.2.1")).toBeUndefined();
    expect(await guard.refusal("u:ada", "192.0.2.2")).toBeUndefined();
    advance(30_000);
    expect(await guard.refusal("u:ada", "192.0.2.1")).toBeUndefined();
    expect(await guard.failed("u:ada", "192.0.2.1")).toMatchObject({ waitMs: 60_000 });
  });

  it("locks an account guessed at from many addresses after 20 failures, wherever the next attempt comes from", async () => {
    const { guard } = limits();
    for (let i = 0; i < 19; i++) expect(await guard.failed("u:ada", `198.51.100.${i}`)).toBeUndefined();
    expect(await guard.failed("u:ada", "198.51.100.19")).toMatchObject({ reason: "account" });
    expect(await guard.refusal("u:ada", "203.0.113.1")).toMatchObject({ reason: "account", waitMs: 30_000 });
  });

  it("stops spraying from one address after 30 failures over any accounts, for the rest of the window", async () => {
    const { guard, advance } = limits();
    for (let i = 0; i < 29; i++) expect(await guard.failed(`u:pupil${i}`, "192.0.2.9")).toBeUndefined();
    expect(await guard.failed("u:pupil29", "192.0.2.9")).toMatchObject({ reason: "address" });
    expect(await guard.refusal("u:pupil35", "192.0.2.9")).toMatchObject({ reason: "address", waitMs: 15 * 60_000 });
    expect(await guard.refusal("u:pupil35", "192.0.2.10")).toBeUndefined();
    advance(15 * 60_000);
    expect(await guard.refusal("u:pupil35", "192.0.2.9")).toBeUndefined();
  });

  it("forgives a typo once the right password follows: a class's typos never add up to the spraying budget", async () => {
    const { guard, counters } = limits();
    for (let i = 0; i < 40; i++) {
      await guard.failed(`u:pupil${i}`, "192.0.2.9");
      if (i % 2 === 0) await guard.failed(`u:pupil${i}`, "192.0.2.9");
      expect(await guard.refusal(`u:pupil${i}`, "192.0.2.9")).toBeUndefined();
      await guard.succeeded(`u:pupil${i}`, "192.0.2.9");
    }
    expect((await counters.peek("login-address:192.0.2.9")).count).toBe(0);
    // Logging in to one's own account forgives only that account's failures, never other accounts'.
    for (let i = 0; i < 10; i++) await guard.failed(`u:victim${i}`, "192.0.2.9");
    await guard.succeeded("u:attacker", "192.0.2.9");
    expect((await counters.peek("login-address:192.0.2.9")).count).toBe(10);
  });

  it("counts an IPv6 network as one address: rotating within a /64 is no fresh budget", async () => {
    const { guard } = limits();
    for (let i = 0; i < 5; i++) await guard.failed("u:ada", `2001:db8:1:2::${i + 1}`);
    expect(await guard.refusal("u:ada", "2001:db8:1:2:ffff::9")).toMatchObject({ reason: "account_from_address" });
  });
});
