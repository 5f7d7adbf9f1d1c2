// Session tokens: JWT, HS256 only (the algorithm is pinned on verify, so "alg: none" and RS/HS
// confusion are rejected), claim `_uid` = the user's id, `exp` always set.
import { SignJWT, jwtVerify, errors } from "jose";

/** users.id is a PostgreSQL integer: a larger id can name no account (and would make the query fail). */
export const MAX_USER_ID = 2 ** 31 - 1;

export type TokenCheck =
  | { status: "ok"; uid: number }
  | { status: "expired" }
  | { status: "invalid"; reason: string };

export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string, readonly ttlSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(uid: number, ttlSeconds = this.ttlSeconds): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ _uid: uid })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key);
  }

  async verify(token: string): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], requiredClaims: ["exp"] });
      const uid = payload._uid;
      if (typeof uid !== "number" || !Number.isSafeInteger(uid) || uid <= 0 || uid > MAX_USER_ID) {
        return { status: "invalid", reason: "token has no valid _uid claim" };
      }
      return { status: "ok", uid };
    } catch (err) {
      if (err instanceof errors.JWTExpired) return { status: "expired" };
      return { status: "invalid", reason: err instanceof Error ? err.message : "unverifiable token" };
    }
  }
}
