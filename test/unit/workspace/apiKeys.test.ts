import { describe, expect, it } from "vitest";
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

  it("costs about the same for a right and a wrong secret (constant-time compare of fixed-size digests)", () => {
    const { api_key_secret } = generateApiKeyPair();
    const stored = hashApiSecret(api_key_secret);
    const wrong = `${api_key_secret.slice(0, -1)}${api_key_secret.endsWith("A") ? "B" : "A"}`;
    const time = (secret: string) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 5_000; i++) apiSecretMatches(secret, stored);
      return Number(process.hrtime.bigint() - start);
    };
    // Alternate the two and keep each one's best round, so load on the machine affects both alike.
    let right = Infinity;
    let wrongBest = Infinity;
    for (let round = 0; round < 8; round++) {
      right = Math.min(right, time(api_key_secret));
      wrongBest = Math.min(wrongBest, time(wrong));
    }
    const ratio = right / wrongBest;
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
