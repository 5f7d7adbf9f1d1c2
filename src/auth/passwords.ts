// scrypt password hashes (node:crypto, no native addon): "scrypt$N$r$p$salt$hash", base64url parts.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** scrypt's cost (N) for new hashes unless PASSWORD_HASH_COST says otherwise; production's floor. */
export const DEFAULT_PASSWORD_HASH_COST = 16384;
let N = DEFAULT_PASSWORD_HASH_COST;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Refuse absurd inputs before spending CPU on them. */
export const MAX_PASSWORD_LENGTH = 256;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * Sets the cost of this process's new hashes (start-up, from PASSWORD_HASH_COST). A hash carries its
 * own parameters and is verified with them, so changing the cost never locks anyone out.
 */
export function usePasswordHashCost(cost: number): void {
  if (cost === N) return;
  N = cost;
  dummyHash = undefined; // a login of an unknown name must cost what a real one costs
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64url");
  const expected = Buffer.from(parts[5], "base64url");
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  const actual = await scrypt(password, salt, expected.length, { N: n, r, p, maxmem: 64 * 1024 * 1024 });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash to verify against when the user does not exist, so timing does not reveal usernames. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}
