import { describe, expect, it, vi } from "vitest";

/** Sizes of the buffers each timingSafeEqual call compared (a pass-through spy). */
const compared: Array<[number, number]> = [];
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});
import { apiSecretMatches, generateApiKeyPair, hashApiSecret } from "../../../src/workspace/apiKeys.js";

describe("API key pairs", () => {
  it("generates distinct random keys and 256-bit secrets", () => {
    const a = generateApiKeyPair();
    const b = generateApiKeyPair();
    expect(a.api_key).toMatch(/^[0-9a-f]{24}$/);
    expect(a.api_key_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(a.api_key_secret, "hex")).toHaveLength(32);
    expect(a.api_key).not.toBe(b.api_key);
    expect(a.api_key_secret).not.toBe(b.api_key_secret);
  });

  it("never generates a value a command line would take for an option (no leading '-')", () => {
    for (let i = 0; i < 2000; i++) {
      const pair = generateApiKeyPair();
      expect(pair.api_key.startsWith("-") || pair.api_key_secret.startsWith("-")).toBe(false);
    }
  });

  it("stores a digest, never the secret, and matches only the right secret", () => {
    const { api_key_secret } = generateApiKeyPair();
    const stored = hashApiSecret(api_key_secret);
    expect(stored).toMatch(/^sha256\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(api_key_secret);
    expect(apiSecretMatches(api_key_secret, stored)).toBe(true);
    expect(apiSecretMatches(api_key_secret.slice(0, -1), stored)).toBe(false);
    expect(apiSecretMatches(`${api_key_secret}x`, stored)).toBe(false);
    expect(apiSecretMatches("", stored)).toBe(false);
  });

  it("refuses unknown or damaged stored hashes instead of throwing", () => {
    expect(apiSecretMatches("secret", "plain")).toBe(false);
    expect(apiSecretMatches("secret", "scrypt$16384$8$1$abc$def")).toBe(false);
    expect(apiSecretMatches("secret", "sha256$")).toBe(false);
    expect(apiSecretMatches("secret", "sha256$dG9vc2hvcnQ")).toBe(false);
  });

  it("compares in constant time: right and wrong secrets alike reach timingSafeEqual with equal-size digests", () => {
    const { api_key_secret } = generateApiKeyPair();
    const stored = hashApiSecret(api_key_secret);
    for (const secret of [api_key_secret, `${api_key_secret.slice(0, -1)}x`, "", "short", "x".repeat(500)]) {
      compared.length = 0;
      apiSecretMatches(secret, stored);
      expect(compared).toEqual([[32, 32]]);
    }
    compared.length = 0;
    apiSecretMatches(api_key_secret, "damaged"); // an unknown account's dummy hash costs the same
    expect(compared).toEqual([[32, 32]]);
  });
});
