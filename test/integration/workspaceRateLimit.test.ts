// Failed API-key authentications are limited per client address (its own server: the limiter is
// per process and the main workspace test file must not trip it), on the default
// RATE_LIMIT_API_KEY_FAILURES; successes never count (issue 40: a school's integration and a class
// behind one NAT are not refused for an attacker's failures).
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApp, testConfig, type TestApp } from "../helpers/app.js";
import { createApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";
import { defaultRateLimits } from "../../src/config.js";

let t: TestApp;
let key: ApiKeyPair;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { ...testConfig().rateLimits, apiKeyFailures: defaultRateLimits().apiKeyFailures } });
  key = await createApiKey(t.prisma, "rate limit tests");
});
afterAll(() => t?.stop());

const call = (address: string, secret: string) =>
  t.http().post("/api/public/validate_credentials", { api_key: key.api_key, api_key_secret: secret }, { "x-forwarded-for": address });

it("answers 429 with Retry-After after 20 failures from one address, and only there; the right secret is still served (issue 23)", async () => {
  const attacker = "192.0.2.66";
  for (let i = 0; i < 20; i++) expect((await call(attacker, `guess-${i}`)).status).toBe(401);
  const limited = await call(attacker, "guess-20");
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ error_message: expect.stringMatching(/^Too many failed authentication attempts; try again in \d+ s$/) });
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  // The real integration behind the same NAT is not locked out by the attacker's failures.
  expect((await call(attacker, key.api_key_secret)).status).toBe(200);
  expect((await call(attacker, "guess-21")).status).toBe(429);

  expect((await call("192.0.2.67", key.api_key_secret)).status).toBe(200);
  expect((await call("192.0.2.67", "wrong")).status).toBe(401);
});

it("does not count successful requests", async () => {
  const address = "192.0.2.80";
  for (let i = 0; i < 30; i++) expect((await call(address, key.api_key_secret)).status).toBe(200);
  expect((await call(address, "wrong")).status).toBe(401);
});
