// Session tokens: JWT, HS256 only (the algorithm is pinned on verify, so "alg: none" and RS/HS
// confusion are rejected), `exp` always set. A game account's token carries `_uid` (the user's
// id); a workspace user's carries `wsu` and the audience "workspace", so neither passes for the
// other. Both carry `sid` (this session, so a logout can end it alone) and `sep` (the subject's
// session epoch when it was issued: bumping the epoch ends every earlier session). Tokens from
// before sessions were revocable have neither: epoch 0, no sid.
import { randomBytes } from "node:crypto";
import { SignJWT, jwtVerify, errors, type JWTPayload } from "jose";

/** users.id is a PostgreSQL integer: a larger id can name no account (and would make the query fail). */
export const MAX_USER_ID = 2 ** 31 - 1;
const WORKSPACE_AUDIENCE = "workspace";
const WORKSPACE_USER_ID = /^[0-9a-f]{32}$/;

/** What a valid token says about its session. */
export interface SessionClaims {
  /** This session's id; absent in tokens issued before sessions were revocable. */
  sid?: string;
  /** The subject's session epoch when the token was issued. */
  epoch: number;
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
  private readonly key: Uint8Array;

  constructor(secret: string, readonly ttlSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  /** A game account's session token, issued under the account's current session epoch. */
  async sign(uid: number, ttlSeconds = this.ttlSeconds, epoch = 0): Promise<string> {
    return this.signClaims({ _uid: uid, sid: newSessionId(), sep: epoch }, ttlSeconds);
  }

  /** A workspace user's session token. */
  async signWorkspace(userId: string, epoch: number, ttlSeconds = this.ttlSeconds): Promise<string> {
    return this.signClaims({ wsu: userId, sid: newSessionId(), sep: epoch, aud: WORKSPACE_AUDIENCE }, ttlSeconds);
  }

  async verify(token: string): Promise<TokenCheck> {
    const checked = await this.check(token);
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

  async verifyWorkspace(token: string): Promise<WorkspaceTokenCheck> {
    const checked = await this.check(token, WORKSPACE_AUDIENCE);
    if (checked.status !== "ok") return checked;
    const { payload } = checked;
    const userId = payload.wsu;
    if (typeof userId !== "string" || !WORKSPACE_USER_ID.test(userId)) return { status: "invalid", reason: "token has no valid wsu claim" };
    const session = sessionClaims(payload);
    return session?.sid ? { status: "ok", userId, ...session } : { status: "invalid", reason: "token has malformed session claims" };
  }

  private async signClaims(claims: JWTPayload, ttlSeconds: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key);
  }

  private async check(token: string, audience?: string): Promise<{ status: "ok"; payload: JWTPayload } | { status: "expired" } | { status: "invalid"; reason: string }> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], requiredClaims: ["exp"], ...(audience ? { audience } : {}) });
      return { status: "ok", payload };
    } catch (err) {
      if (err instanceof errors.JWTExpired) return { status: "expired" };
      return { status: "invalid", reason: err instanceof Error ? err.message : "unverifiable token" };
    }
  }
}

function sessionClaims(payload: JWTPayload): SessionClaims | undefined {
  const { sid, sep, exp } = payload;
  if (sid !== undefined && (typeof sid !== "string" || sid.length < 8 || sid.length > 64)) return undefined;
  if (sep !== undefined && (typeof sep !== "number" || !Number.isSafeInteger(sep) || sep < 0)) return undefined;
  return { sid, epoch: (sep as number | undefined) ?? 0, expiresAt: new Date(exp! * 1000) };
}
