// /api/workspace: workspace users' own sessions. A user signs in with username and password (a
// session cookie), sees itself and the workspaces its groups allow, and signs out. Sessions end
// when the workspace API's logout_user runs, on a new password, a lock or a disable (see
// src/auth/sessions.ts), so what the platform API promises holds here.
import { Router, type Request, type Response, type NextFunction, type RequestHandler } from "express";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { dummyPasswordHash, verifyPassword, MAX_PASSWORD_LENGTH } from "../auth/passwords.js";
import { clearSessionCookie, readCookie, setSessionCookie } from "../auth/cookies.js";
import { findSignInUser, getUser, recordSession } from "../workspace/users.js";
import { workspacesForUser } from "../workspace/groups.js";
import { entrySha } from "../workspace/registry.js";
import { loginLimitsOf, loginRefused } from "./authRoutes.js";
import { parseWith } from "./validate.js";
import { withTextRule } from "../protocol/text.js";
import { signInName, usernameKey } from "../auth/usernames.js";

const signIn = z
  .object({
    // Each check names its own problem: a schema-wide message would call a long name "not a string".
    username: withTextRule(z.string({ message: "username must be a string" }), "identifier").min(1, "username must not be empty").max(128, "username must have at most 128 characters"),
    password: withTextRule(z.string({ message: "password must be a string" })).max(MAX_PASSWORD_LENGTH, `password must have at most ${MAX_PASSWORD_LENGTH} characters`),
  })
  .strict();

/** The workspace session cookie's name: the game's, suffixed, so the two never mix. */
export const workspaceCookieName = (ctx: Pick<AppContext, "config">) => `${ctx.config.jwtCookieName}_workspace`;

declare module "express-serve-static-core" {
  interface Request {
    workspaceUserId?: string;
  }
}

export function workspaceSessionRoutes(ctx: AppContext): Router {
  const router = Router();
  const { config, prisma, tokens } = ctx;
  const cookie = workspaceCookieName(ctx);
  // The game login's limits and settings, counted apart (src/http/loginLimits.ts): only failures count.
  const logins = loginLimitsOf(ctx, "workspace-login");

  const requireWorkspaceSession: RequestHandler = async (req: Request, _res: Response, next: NextFunction) => {
    const token = readCookie(req.headers.cookie, cookie);
    if (!token) return next(new AppError(401, "unauthenticated", "Workspace session cookie is missing"));
    const check = tokens.verifyWorkspace(token);
    if (check.status === "expired") return next(new AppError(403, "token_expired", "Workspace session expired"));
    if (check.status === "invalid") return next(new AppError(401, "invalid_token", "Invalid workspace session"));
    const session = await ctx.sessions.check({ kind: "workspace", id: check.userId }, check);
    if (!session.ok) return next(new AppError(401, "invalid_token", "Invalid workspace session: it has ended"));
    req.workspaceUserId = check.userId;
    next();
  };

  router.post(
    "/login",
    async (req: Request, res: Response) => {
      const body = parseWith(signIn, req.body);
      // Keyed on the user the name reaches, however it is spelled (src/auth/usernames.ts).
      const account = usernameKey(body.username);
      const address = ctx.proxies.clientAddress(req);
      const refusal = await logins.refusal(account, address);
      if (refusal) throw loginRefused(res, refusal);
      const name = signInName(body.username);
      const user = name === undefined ? null : await findSignInUser(prisma, name);
      // A dummy hash for unknown users and users without a password: timing reveals nothing.
      const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyPasswordHash()));
      if (!user || !user.passwordHash || !ok) {
        await logins.failed(account, address);
        throw new AppError(401, "invalid_credentials", "Invalid username or password");
      }
      // The right password: locked or disabled is the answer, but the typos before it were typos.
      await logins.succeeded(account, address);
      if (user.locked) throw new AppError(403, "account_locked", "This account is locked");
      if (user.disabled) throw new AppError(403, "account_disabled", "This account is disabled");
      await recordSession(prisma, user.id);
      setSessionCookie(res, cookie, tokens.signWorkspace(user.id, user.sessionEpoch, config.jwtTtlSeconds, await ctx.sessions.generation()), config.cookieSecure, config.jwtTtlSeconds);
      res.json({ user: await getUser(prisma, { user_id: user.id }) });
    },
  );

  router.post("/logout", async (req: Request, res: Response) => {
    const token = readCookie(req.headers.cookie, cookie);
    const check = token ? tokens.verifyWorkspace(token) : undefined;
    if (check?.status === "ok") await ctx.sessions.revoke({ kind: "workspace", id: check.userId }, check);
    clearSessionCookie(res, cookie, config.cookieSecure);
    res.json({ ok: true });
  });

  router.get("/me", requireWorkspaceSession, async (req: Request, res: Response) => {
    const userId = req.workspaceUserId!;
    const [user, entries] = await Promise.all([getUser(prisma, { user_id: userId }), workspacesForUser(prisma, userId)]);
    res.json({ user, workspaces: entries.map((e) => ({ ...e, sha: entrySha(e) })) });
  });

  return router;
}
