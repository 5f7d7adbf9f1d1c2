// Session tokens: JWT, HS256 only (the algorithm is pinned on verify, so "alg: none" and RS/HS
// confusion are rejected), `exp` always set. A game account's token carries `_uid` (the user's
// id); a workspace user's carries `wsu` and the audience "workspace", so neither passes for the
// other. Both carry `sid` (this session, so a logout can end it alone) and `sep` (the subject's
// session epoch when it was issued: bumping the epoch ends every earlier session). Tokens from
// before sessions were revocable have neither: epoch 0, no sid. Both carry `gen` too once the
// database has been restored: the authentication generation it was issued under (src/auth/sessions.ts),
// so that no token from before a restore is live after it. A token lives at most JWT_TTL
// (exp - iat), whatever its signer wrote: lowering JWT_TTL shortens the sessions already issued.
// jsonwebtoken (the specified package) signs and verifies synchronously with node:crypto's HMAC:
// about 8 µs of CPU a verify, where WebCrypto (jose) cost 51–65 µs (docs/performance.md).
import { createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";

type JWTPayload = jwt.JwtPayload;

/** users.id is a PostgreSQL integer: a larger id can name no account (and would make the query fail). */
export const MAX_USER_ID = 2 ** 31 - 1;
const WORKSPACE_AUDIENCE = "workspace";
/** Verified tokens remembered (one per live session; ~0.5 KB each). */
export const VERIFIED_TOKENS_KEPT = 10_000;
const WORKSPACE_USER_ID = /^[0-9a-f]{32}$/;
/** How far another process's clock may run ahead of this one's when it issues a token. */
export const ISSUED_AT_SKEW_SECONDS = 60;

/** What a valid token says about its session. */
export interface SessionClaims {
  /** This session's id; absent in tokens issued before sessions were revocable. */
  sid?: string;
  /** The subject's session epoch when the token was issued. */
  epoch: number;
  /** The database's authentication generation when it was issued (absent or "": before any restore). */
  generation?: string;
  expiresAt: Date;
}

export type TokenCheck =
  | ({ status: "ok"; uid: number } & SessionClaims)
  | { status: "expired" }
  | { status: "invalid"; reason: string };

export type WorkspaceTokenCheck =
  | ({ status: "ok"; userId: string } & SessionClaims)
  | { status: "expired" }
  | { status: "invalid"; reason: string };

export const newSessionId = () => randomBytes(16).toString("base64url");

export class TokenService {
  private readonly key: KeyObject;

  constructor(secret: string, readonly ttlSeconds: number) {
    this.key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  /** A game account's session token, issued under the account's current session epoch. */
  sign(uid: number, ttlSeconds = this.ttlSeconds, epoch = 0, generation = ""): string {
    return this.signClaims({ _uid: uid, sid: newSessionId(), sep: epoch, ...generationClaim(generation) }, ttlSeconds);
  }

  /** A workspace user's session token. */
  signWorkspace(userId: string, epoch: number, ttlSeconds = this.ttlSeconds, generation = ""): string {
    return this.signClaims({ wsu: userId, sid: newSessionId(), sep: epoch, ...generationClaim(generation), aud: WORKSPACE_AUDIENCE }, ttlSeconds);
  }

  verify(token: string): TokenCheck {
    const checked = this.check(token);
    if (checked.status !== "ok") return checked;
    const { payload } = checked;
    const uid = payload._uid;
    if (payload.aud !== undefined) return { status: "invalid", reason: "not a game session token" };
    if (typeof uid !== "number" || !Number.isSafeInteger(uid) || uid <= 0 || uid > MAX_USER_ID) {
      return { status: "invalid", reason: "token has no valid _uid claim" };
    }
    const session = sessionClaims(payload);
    return session ? { status: "ok", uid, ...session } : { status: "invalid", reason: "token has malformed session claims" };
  }

  verifyWorkspace(token: string): WorkspaceTokenCheck {
    const checked = this.check(token, WORKSPACE_AUDIENCE);
    if (checked.status !== "ok") return checked;
    const { payload } = checked;
    const userId = payload.wsu;
    if (typeof userId !== "string" || !WORKSPACE_USER_ID.test(userId)) return { status: "invalid", reason: "token has no valid wsu claim" };
    const session = sessionClaims(payload);
    return session?.sid ? { status: "ok", userId, ...session } : { status: "invalid", reason: "token has malformed session claims" };
  }

  private signClaims(claims: JWTPayload, ttlSeconds: number): string {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign({ ...claims, iat: now, exp: now + ttlSeconds }, this.key, { algorithm: "HS256" });
  }

  /**
   * Tokens whose signature and claims verified, by audience + token: a session's every request
   * carries the same token, and its verdict (signature, algorithm, audience) cannot change, only
   * its expiry, checked on every use. Revocation is the session check's (src/auth/sessions.ts).
   */
  private readonly verified = new Map<string, JWTPayload & { exp: number }>();

  private check(token: string, audience?: string): { status: "ok"; payload: JWTPayload & { exp: number } } | { status: "expired" } | { status: "invalid"; reason: string } {
    const key = audience === undefined ? token : `${audience} ${token}`;
    const kept = this.verified.get(key);
    if (kept) {
      if (Date.now() < kept.exp * 1000) return { status: "ok", payload: kept };
      this.verified.delete(key);
      return { status: "expired" };
    }
    const checked = this.verifyToken(token, audience);
    // A not-before claim would make the verdict depend on the time: never issued here, never kept.
    if (checked.status === "ok" && checked.payload.nbf === undefined) {
      if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(key, Object.freeze(checked.payload));
    }
    return checked;
  }

  private verifyToken(token: string, audience?: string): { status: "ok"; payload: JWTPayload & { exp: number } } | { status: "expired" } | { status: "invalid"; reason: string } {
    let payload: string | JWTPayload;
    try {
      payload = jwt.verify(token, this.key, { algorithms: ["HS256"], ...(audience ? { audience } : {}) });
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) return { status: "expired" };
      return { status: "invalid", reason: err instanceof Error ? err.message : "unverifiable token" };
    }
    if (typeof payload !== "object") return { status: "invalid", reason: "token payload is not a claims object" };
    // jsonwebtoken checks exp only when present: a token without one never expires, so it is refused.
    if (typeof payload.exp !== "number") return { status: "invalid", reason: "token has no exp claim" };
    // Whoever holds the key could otherwise mint a token for ever (exp in year 9999): no token
    // outlives JWT_TTL from its issue, and none is issued in the future (which would stretch it).
    if (typeof payload.iat !== "number") return { status: "invalid", reason: "token has no iat claim" };
    if (payload.iat > Date.now() / 1000 + ISSUED_AT_SKEW_SECONDS) return { status: "invalid", reason: "token issued in the future" };
    if (payload.exp - payload.iat > this.ttlSeconds) return { status: "invalid", reason: "token lifetime exceeds JWT_TTL" };
    return { status: "ok", payload: payload as JWTPayload & { exp: number } };
  }
}

/** A database never restored has generation "": its tokens carry no `gen` (as before generations). */
const generationClaim = (generation: string) => (generation ? { gen: generation } : {});

function sessionClaims(payload: JWTPayload): SessionClaims | undefined {
  const { sid, sep, gen, exp } = payload;
  if (sid !== undefined && (typeof sid !== "string" || sid.length < 8 || sid.length > 64)) return undefined;
  if (sep !== undefined && (typeof sep !== "number" || !Number.isSafeInteger(sep) || sep < 0)) return undefined;
  if (gen !== undefined && (typeof gen !== "string" || gen.length < 1 || gen.length > 64)) return undefined;
  return { sid, epoch: (sep as number | undefined) ?? 0, generation: (gen as string | undefined) ?? "", expiresAt: new Date(exp! * 1000) };
}
