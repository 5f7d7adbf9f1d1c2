// POST /api/auth/register, /login, /logout; GET /api/auth/me.
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { hashPassword, verifyPassword, dummyPasswordHash, MAX_PASSWORD_LENGTH } from "../auth/passwords.js";
import { clearSessionCookie, readCookie, setSessionCookie } from "../auth/cookies.js";
import { currentUser, requireAuth } from "../auth/middleware.js";
import { FixedWindowLimiter, rateLimit } from "./rateLimit.js";
import { parseWith } from "./validate.js";
import { withTextRule } from "../protocol/text.js";
import { changePassword, createAccount, findAccountByUsername, UsernameTakenError } from "../stores/accounts.js";
import { signInName, usernameKey } from "../auth/usernames.js";

const username = withTextRule(z.string({ message: "username must be a string" }), "identifier")
  .trim()
  .min(3, "username must have at least 3 characters")
  .max(32, "username must have at most 32 characters")
  .regex(/^[A-Za-z0-9_.-]+$/, "username may only contain letters, digits, '_', '.' and '-'");
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

export interface AuthRouteOptions {
  /** Login attempts per client address and window. */
  loginLimit?: number;
  loginWindowMs?: number;
}

export function authRoutes(ctx: AppContext, options: AuthRouteOptions = {}): Router {
  const router = Router();
  const { config, prisma, tokens } = ctx;
  const loginLimiter = new FixedWindowLimiter(ctx.counters, "login-ip", options.loginLimit ?? 10, options.loginWindowMs ?? 60_000);
  const perAccountLimiter = new FixedWindowLimiter(ctx.counters, "login-user", (options.loginLimit ?? 10) * 2, options.loginWindowMs ?? 60_000);

  /** A new session for the account, under its current session epoch. */
  const setSession = async (res: Response, user: { id: number; sessionEpoch: number }) => {
    setSessionCookie(res, config.jwtCookieName, tokens.sign(user.id, config.jwtTtlSeconds, user.sessionEpoch, await ctx.sessions.generation()), config.cookieSecure, config.jwtTtlSeconds);
  };
  const publicUser = (u: { id: number; username: string; createdAt: Date }) => ({
    id: u.id,
    username: u.username,
    created_at: u.createdAt.toISOString(),
  });

  const registerLimiter = new FixedWindowLimiter(ctx.counters, "register-ip", config.rateLimits.register.limit, config.rateLimits.register.windowMs);
  router.post("/register", rateLimit(registerLimiter, (req) => req.ip ?? "unknown"), async (req: Request, res: Response) => {
    const body = parseWith(credentials, req.body);
    const passwordHash = await hashPassword(body.password);
    try {
      const user = await createAccount(prisma, body.username, passwordHash);
      await setSession(res, user);
      res.status(201).json({ user: publicUser(user) });
    } catch (err) {
      if (err instanceof UsernameTakenError) throw new AppError(409, "username_taken", err.message);
      throw err;
    }
  });

  router.post(
    "/login",
    rateLimit(loginLimiter, (req) => req.ip ?? "unknown"),
    // Keyed on the account the name reaches, however it is spelled (src/auth/usernames.ts).
    rateLimit(perAccountLimiter, (req) => (typeof req.body?.username === "string" ? `u:${usernameKey(req.body.username)}` : undefined)),
    async (req: Request, res: Response) => {
      const body = parseWith(loginBody, req.body);
      const name = signInName(body.username);
      const user = name === undefined ? null : await findAccountByUsername(prisma, name);
      // Verify against a dummy hash for unknown users so response time does not reveal them.
      const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyPasswordHash()));
      if (!user || !ok) throw new AppError(401, "invalid_credentials", "Invalid username or password");
      await setSession(res, user);
      res.json({ user: publicUser(user) });
    },
  );

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
    rateLimit(perAccountLimiter, (req) => `id:${currentUser(req).id}`),
    async (req: Request, res: Response) => {
      const body = parseWith(passwordChange, req.body);
      const stored = await prisma.user.findUnique({ where: { id: currentUser(req).id } });
      if (!stored || !(await verifyPassword(body.current_password, stored.passwordHash))) {
        throw new AppError(401, "invalid_credentials", "The current password is wrong");
      }
      const epoch = await changePassword(prisma, stored.id, await hashPassword(body.new_password));
      if (epoch === undefined) throw new AppError(401, "invalid_token", "Invalid authentication token: unknown user");
      ctx.sessions.invalidate({ kind: "account", id: stored.id });
      await setSession(res, { id: stored.id, sessionEpoch: epoch });
      res.json({ user: publicUser(stored), message: "Password changed; every other session has ended" });
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
