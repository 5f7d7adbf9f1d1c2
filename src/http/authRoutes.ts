// POST /api/auth/register, /login, /logout; GET /api/auth/me.
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { hashPassword, verifyPassword, dummyPasswordHash, MAX_PASSWORD_LENGTH } from "../auth/passwords.js";
import { clearSessionCookie, readCookie, setSessionCookie } from "../auth/cookies.js";
import { ACCOUNT_LOCKED_MESSAGE, currentUser, requireAuth } from "../auth/middleware.js";
import { FixedWindowLimiter, rateLimit, retryAfter } from "./rateLimit.js";
import { LoginLimits, loginRefusalMessage, type LoginRefusal } from "./loginLimits.js";
import { parseWith } from "./validate.js";
import { withTextRule } from "../protocol/text.js";
import { changePassword, createAccount, findAccountByUsername, UsernameTakenError } from "../stores/accounts.js";
import { roleOf } from "../auth/roles.js";
import { accountUsernameSchema, signInName, usernameKey } from "../auth/usernames.js";
import { addressKey } from "../net/proxy.js";
import type { PublicAccount } from "./authWire.js";

const username = accountUsernameSchema;
const password = withTextRule(z.string({ message: "password must be a string" }))
  .min(8, "password must have at least 8 characters")
  .max(MAX_PASSWORD_LENGTH, `password must have at most ${MAX_PASSWORD_LENGTH} characters`);
const credentials = z.object({ username, password }).strict();
const passwordChange = z
  .object({ current_password: withTextRule(z.string({ message: "current_password must be a string" })).max(MAX_PASSWORD_LENGTH, `current_password must have at most ${MAX_PASSWORD_LENGTH} characters`), new_password: password })
  .strict();
/**
 * Login takes any name an account could have had, so it checks less than registration: 1-64
 * characters under the identifier text rule (src/http/openapi/auth.ts documents exactly this). A
 * name registration would refuse simply matches no account: 401.
 */
export const LOGIN_USERNAME_MAX = 64;
const loginBody = z
  .object({
    username: withTextRule(z.string({ error: "username must be a string" }), "identifier")
      .min(1, "username must not be empty")
      .max(LOGIN_USERNAME_MAX, `username must have at most ${LOGIN_USERNAME_MAX} characters`),
    password: withTextRule(z.string({ error: "password must be a string" }))
      .min(1, "password must not be empty")
      .max(MAX_PASSWORD_LENGTH, `password must have at most ${MAX_PASSWORD_LENGTH} characters`),
  })
  .strict();

/** The sign-in limits of one surface, from the configuration (game login and workspace sign-in share the settings, not the counts). */
export function loginLimitsOf(ctx: Pick<AppContext, "counters" | "config">, name: string): LoginLimits {
  const { login, loginAccount, loginAddress } = ctx.config.rateLimits;
  return new LoginLimits(ctx.counters, name, { pair: login, account: loginAccount, address: loginAddress });
}

/** A sign-in refused by its limits: 429 with Retry-After. */
export function loginRefused(res: Response, refusal: LoginRefusal): AppError {
  return new AppError(429, "rate_limited", loginRefusalMessage(refusal, retryAfter(res, refusal.waitMs)), { limit: refusal.reason });
}

export function authRoutes(ctx: AppContext): Router {
  const router = Router();
  const { config, prisma, tokens } = ctx;
  const logins = loginLimitsOf(ctx, "login");
  // Wrong current passwords on POST /password, per account (a stolen session guessing the password).
  const passwordChecks = new FixedWindowLimiter(ctx.counters, "password-change", config.rateLimits.loginAccount.limit, config.rateLimits.loginAccount.windowMs);

  /** A new session for the account, under its current session epoch. */
  const setSession = async (res: Response, user: { id: number; sessionEpoch: number }) => {
    setSessionCookie(res, config.jwtCookieName, tokens.sign(user.id, config.jwtTtlSeconds, user.sessionEpoch, await ctx.sessions.generation()), config.cookieSecure, config.jwtTtlSeconds);
  };
  // The role tells a client which screens to offer (/play's teacher's dashboard); every route checks it again.
  // password_change_required: the password was issued by someone else (docs/auth.md#one-time-passwords).
  const publicUser = (u: { id: number; username: string; createdAt: Date; role: string; passwordIssuedAt: Date | null }): PublicAccount => ({
    id: u.id,
    username: u.username,
    created_at: u.createdAt.toISOString(),
    role: roleOf(u.role),
    password_change_required: u.passwordIssuedAt !== null,
  });

  const registerLimiter = new FixedWindowLimiter(ctx.counters, "register-ip", config.rateLimits.register.limit, config.rateLimits.register.windowMs);
  router.post("/register", rateLimit(registerLimiter, (req) => addressKey(ctx.proxies.clientAddress(req))), async (req: Request, res: Response) => {
    const body = parseWith(credentials, req.body);
    const passwordHash = await hashPassword(body.password);
    try {
      const user = await createAccount(prisma, body.username, passwordHash);
      await setSession(res, user);
      await ctx.lastSeen.signedIn(user.id);
      res.status(201).json({ user: publicUser(user) });
    } catch (err) {
      if (err instanceof UsernameTakenError) throw new AppError(409, "username_taken", err.message);
      throw err;
    }
  });

  // Only failures count (src/http/loginLimits.ts); a locked attempt is refused before its password is looked at.
  router.post("/login", async (req: Request, res: Response) => {
      const body = parseWith(loginBody, req.body);
      // Keyed on the account the name reaches, however it is spelled (src/auth/usernames.ts).
      const account = `u:${usernameKey(body.username)}`;
      const address = ctx.proxies.clientAddress(req);
      const refusal = await logins.refusal(account, address);
      if (refusal) throw loginRefused(res, refusal);
      const name = signInName(body.username);
      const user = name === undefined ? null : await findAccountByUsername(prisma, name);
      // Verify against a dummy hash for unknown users so response time does not reveal them.
      const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyPasswordHash()));
      if (!user || !ok) {
        await logins.failed(account, address);
        throw new AppError(401, "invalid_credentials", "Invalid username or password");
      }
      await logins.succeeded(account, address);
      // Told only to whoever knows the password, so a lock reveals nothing about an account to others.
      if (user.lockedAt) throw new AppError(403, "account_locked", ACCOUNT_LOCKED_MESSAGE);
      await setSession(res, user);
      await ctx.lastSeen.signedIn(user.id);
      res.json({ user: publicUser(user) });
  });

  // Ends the session the cookie carries (a token copied before stops working too), then clears it.
  router.post("/logout", async (req: Request, res: Response) => {
    const token = readCookie(req.headers.cookie, config.jwtCookieName);
    const check = token ? tokens.verify(token) : undefined;
    if (check?.status === "ok") await ctx.sessions.revoke({ kind: "account", id: check.uid }, check);
    clearSessionCookie(res, config.jwtCookieName, config.cookieSecure);
    res.json({ ok: true });
  });

  // A new password ends every session of the account; the caller gets a fresh one.
  router.post(
    "/password",
    requireAuth(ctx),
    async (req: Request, res: Response) => {
      const body = parseWith(passwordChange, req.body);
      const key = `id:${currentUser(req).id}`;
      const blocked = await passwordChecks.blockedFor(key);
      if (blocked > 0) throw new AppError(429, "rate_limited", `Too many wrong current passwords; try again in ${retryAfter(res, blocked)} s`);
      const stored = await prisma.user.findUnique({ where: { id: currentUser(req).id } });
      if (!stored || !(await verifyPassword(body.current_password, stored.passwordHash))) {
        await passwordChecks.hit(key);
        throw new AppError(401, "invalid_credentials", "The current password is wrong");
      }
      // Checked after the current password, so it tells nothing to whoever does not know it. A
      // one-time password kept as one's own would stay known to whoever issued it (and the paper).
      if (body.new_password === body.current_password) {
        throw new AppError(
          400,
          "password_unchanged",
          stored.passwordIssuedAt ? "Choose a new password: it must differ from the one you were given" : "The new password must differ from the current one",
        );
      }
      const epoch = await changePassword(prisma, stored.id, await hashPassword(body.new_password));
      if (epoch === undefined) throw new AppError(401, "invalid_token", "Invalid authentication token: unknown user");
      ctx.sessions.invalidate({ kind: "account", id: stored.id });
      await setSession(res, { id: stored.id, sessionEpoch: epoch });
      res.json({ user: publicUser({ ...stored, passwordIssuedAt: null }), message: "Password changed; every other session has ended" });
    },
  );

  router.get("/me", requireAuth(ctx), async (req: Request, res: Response) => {
    const user = await prisma.user.findUnique({ where: { id: currentUser(req).id } });
    if (!user) throw new AppError(401, "invalid_token", "Invalid authentication token: unknown user");
    res.json({ user: publicUser(user) });
  });

  return router;
}

/**
 * GET /api/user/current, for the original web client (TM_FrontEnd), which asks it before anything
 * else and stops at "Please log in" without an answer. The original's shape: `uid` is the login
 * name and `name` the display name, both the username here. Answered from the session, no read.
 */
export function originalClientUserRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get("/current", requireAuth(ctx), (req: Request, res: Response) => {
    const { id, username } = currentUser(req);
    res.json({ id, uid: username, name: username });
  });
  return router;
}
