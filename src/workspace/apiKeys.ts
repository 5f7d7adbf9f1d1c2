// API key pairs for the workspace platform API: the key names the pair, the secret proves it.
//
// The secret is 256 random bits, shown once, and stored as its SHA-256 digest. A slow password hash
// (scrypt) exists to make guessing low-entropy human passwords expensive; a 256-bit random secret
// cannot be guessed either way, and scrypt would cost ~50 ms of CPU on every API request, which an
// unauthenticated caller could use to exhaust the server. Comparison is constant-time
// (timingSafeEqual over equal-length digests), and an unknown or revoked key costs the same work as
// a valid one: one indexed lookup and one digest comparison against a dummy when there is no row.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "../db/client.js";

const SCHEME = "sha256";
/** Skip rewriting last_used_at more often than this (one write per minute per key, not per request). */
const LAST_USED_RESOLUTION_MS = 60_000;
export const MAX_KEY_NAME_LENGTH = 100;

export interface ApiKeyPair {
  api_key: string;
  api_key_secret: string;
}

export interface ApiKeySummary {
  api_key: string;
  name: string;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

/**
 * Hex, not base64url: a value starting with "-" would be read as an option by command lines
 * (`revoke-api-key --api-key -x…` fails as "ambiguous"), and hex survives any shell or URL.
 */
export function generateApiKeyPair(): ApiKeyPair {
  return { api_key: randomBytes(12).toString("hex"), api_key_secret: randomBytes(32).toString("hex") };
}

function digest(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

export function hashApiSecret(secret: string): string {
  return `${SCHEME}$${digest(secret).toString("base64url")}`;
}

const DUMMY_HASH = hashApiSecret(randomBytes(32).toString("base64url"));

/** Constant-time check of a secret against a stored "sha256$…" hash. */
export function apiSecretMatches(secret: string, stored: string): boolean {
  const [scheme, encoded] = stored.split("$");
  const expected = scheme === SCHEME && encoded ? Buffer.from(encoded, "base64url") : digest(randomBytes(16).toString("hex"));
  const actual = digest(secret);
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

export async function createApiKey(prisma: PrismaClient, name: string): Promise<ApiKeyPair> {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > MAX_KEY_NAME_LENGTH) throw new RangeError(`the key name must have 1 to ${MAX_KEY_NAME_LENGTH} characters`);
  const pair = generateApiKeyPair();
  await prisma.apiKey.create({ data: { key: pair.api_key, secretHash: hashApiSecret(pair.api_key_secret), name: trimmed } });
  return pair;
}

export async function listApiKeys(prisma: PrismaClient): Promise<ApiKeySummary[]> {
  const rows = await prisma.apiKey.findMany({ orderBy: { id: "asc" } });
  return rows.map((r) => ({
    api_key: r.key,
    name: r.name,
    created: r.createdAt.toISOString(),
    last_used: r.lastUsedAt?.toISOString() ?? null,
    revoked: r.revokedAt?.toISOString() ?? null,
  }));
}

export type RevokeResult = { status: "revoked"; at: Date } | { status: "already_revoked"; at: Date } | { status: "unknown" };

export async function revokeApiKey(prisma: PrismaClient, key: string): Promise<RevokeResult> {
  const now = new Date();
  const { count } = await prisma.apiKey.updateMany({ where: { key, revokedAt: null }, data: { revokedAt: now } });
  if (count === 1) return { status: "revoked", at: now };
  const row = await prisma.apiKey.findUnique({ where: { key } });
  return row?.revokedAt ? { status: "already_revoked", at: row.revokedAt } : { status: "unknown" };
}

/** The key's id when the pair is valid and not revoked; undefined otherwise (same work either way). */
export async function authenticateApiKey(prisma: PrismaClient, key: string, secret: string): Promise<number | undefined> {
  const row = await prisma.apiKey.findUnique({ where: { key } });
  const matches = apiSecretMatches(secret, row?.secretHash ?? DUMMY_HASH);
  if (!row || !matches || row.revokedAt) return undefined;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await prisma.apiKey.updateMany({
      where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
      data: { lastUsedAt: new Date(now) },
    });
  }
  return row.id;
}
