// The workspace platform API: POST /api/public/<operation>, authenticated by an API key pair in the
// JSON body, answering errors as {"error_message": "..."} like the platform it imitates.
//
// Every request goes: parse JSON → known operation (404) → credentials shaped (400) → key pair
// valid (else 429 while the address is over its failed attempts, 401 otherwise) → whole body valid
// for the operation (400) → the operation (404 unknown user/group, 409 conflicts). Validation
// details are only given to authenticated callers.
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { classifyError } from "./errorHandler.js";
import { JSON_BODY_LIMIT } from "./limits.js";
import { FixedWindowLimiter, retryAfter } from "./rateLimit.js";
import { addressKey } from "../net/proxy.js";
import { authenticateApiKey } from "../workspace/apiKeys.js";
import { credentialsSchema, describeProblems, operationSchemas, DEFAULT_PAGE_SIZE, type OperationBody, type OperationName } from "../workspace/schemas.js";
import { createUser, deleteUser, getUser, getUsers, logoutUser, updateUser } from "../workspace/users.js";
import {
  addUserToGroup,
  createGroup,
  deleteGroup,
  listGroups,
  removeUserFromGroup,
  setGroupWorkspaces,
  workspacesForUser,
} from "../workspace/groups.js";
import { listEntries } from "../workspace/registryStore.js";
import { entrySha } from "../workspace/registry.js";


export interface WorkspaceRouteOptions {
  /** Failed authentications per client address and window before 429. */
  authFailureLimit?: number;
  authFailureWindowMs?: number;
}

type Handler<O extends OperationName> = (body: OperationBody<O>, ctx: AppContext) => Promise<unknown>;

const handlers: { [O in OperationName]: Handler<O> } = {
  validate_credentials: async () => ({}),
  create_user: async ({ target_user }, { prisma }) => ({ user: await createUser(prisma, target_user) }),
  get_user: async ({ target_user }, { prisma }) => ({
    user: await getUser(prisma, target_user.user_id !== undefined ? { user_id: target_user.user_id } : { username: target_user.username! }),
  }),
  get_users: async ({ page, page_size }, { prisma }) => getUsers(prisma, page ?? 1, page_size ?? DEFAULT_PAGE_SIZE),
  update_user: async ({ target_user: { user_id, ...fields } }, { prisma, sessions }) => {
    const user = await updateUser(prisma, user_id, fields);
    sessions.invalidate({ kind: "workspace", id: user_id }); // a new password, a lock or a new name changes its sessions
    return { user };
  },
  // `force` stops running workspace containers on the platform; this service runs none.
  delete_user: async ({ target_user }, { prisma, sessions }) => {
    await deleteUser(prisma, target_user.user_id);
    sessions.invalidate({ kind: "workspace", id: target_user.user_id });
    return {};
  },
  logout_user: async ({ target_user }, { prisma, sessions }) => {
    await logoutUser(prisma, target_user.user_id); // bumps the user's session epoch
    sessions.invalidate({ kind: "workspace", id: target_user.user_id });
    return {};
  },
  get_groups: async (_body, { prisma }) => ({ groups: await listGroups(prisma) }),
  create_group: async ({ target_group }, { prisma }) => ({ group: await createGroup(prisma, target_group.name, target_group.description) }),
  delete_group: async ({ target_group }, { prisma }) => (await deleteGroup(prisma, target_group.group_id), {}),
  add_user_group: async ({ target_user, target_group }, { prisma }) => (await addUserToGroup(prisma, target_user.user_id, target_group.group_id), {}),
  remove_user_group: async ({ target_user, target_group }, { prisma }) => (await removeUserFromGroup(prisma, target_user.user_id, target_group.group_id), {}),
  set_group_workspaces: async ({ target_group, workspaces }, { prisma }) => ({ group: await setGroupWorkspaces(prisma, target_group.group_id, workspaces) }),
  get_workspaces: async ({ target_user }, { prisma }) => {
    const entries = target_user ? await workspacesForUser(prisma, target_user.user_id) : await listEntries(prisma);
    return { workspaces: entries.map((e) => ({ ...e, sha: entrySha(e) })) };
  },
};

export const WORKSPACE_OPERATIONS = Object.keys(handlers) as OperationName[];
const isOperation = (name: string): name is OperationName => Object.hasOwn(handlers, name);

const invalidCredentials = () => new AppError(401, "invalid_credentials", "Invalid API credentials");

function tooManyFailures(res: Response, waitMs: number): AppError {
  return new AppError(429, "rate_limited", `Too many failed authentication attempts; try again in ${retryAfter(res, waitMs)} s`);
}

export function workspaceRoutes(ctx: AppContext, options: WorkspaceRouteOptions = {}): Router {
  const router = Router();
  // Failed authentications per client address; over the limit, the address gets 429 for the rest
  // of the window, before any credential check.
  const { apiKeyFailures } = ctx.config.rateLimits;
  const failures = new FixedWindowLimiter(ctx.counters, "workspace-auth", options.authFailureLimit ?? apiKeyFailures.limit, options.authFailureWindowMs ?? apiKeyFailures.windowMs);

  // Own body parser, so malformed and oversized bodies get this API's error shape too.
  router.use(express.json({ limit: JSON_BODY_LIMIT, strict: true }));

  router.post("/:operation", async (req: Request, res: Response) => {
    const operation = String(req.params.operation);
    if (!isOperation(operation)) throw unknownOperation(operation);

    const creds = credentialsSchema.safeParse(req.body);
    if (!creds.success) throw new AppError(400, "validation_failed", `Invalid request: ${describeProblems(creds.error)}`);

    // A valid key pair is served whatever others sent from its address (a NAT, a shared proxy);
    // a wrong one from an address over its failures gets 429 (a key check is one indexed lookup
    // and a SHA-256 of a 256-bit secret, which nobody guesses).
    const address = addressKey(ctx.proxies.clientAddress(req));
    const keyId = await authenticateApiKey(ctx.prisma, creds.data.api_key, creds.data.api_key_secret);
    if (keyId === undefined) {
      const wait = await failures.blockedFor(address);
      if (wait > 0) throw tooManyFailures(res, wait);
      const over = await failures.hit(address);
      throw over > 0 ? tooManyFailures(res, over) : invalidCredentials();
    }

    const body = operationSchemas[operation].safeParse(req.body);
    if (!body.success) throw new AppError(400, "validation_failed", `Invalid request: ${describeProblems(body.error)}`);
    const result = await (handlers[operation] as Handler<OperationName>)(body.data as OperationBody<OperationName>, ctx);
    res.status(200).json(result);
  });

  router.all("/:operation", (req: Request, _res: Response, next: NextFunction) => {
    const operation = String(req.params.operation);
    if (!isOperation(operation)) return next(unknownOperation(operation));
    next(new AppError(405, "method_not_allowed", `Use POST for ${operation}`));
  });
  router.use((req: Request, _res: Response, next: NextFunction) => next(unknownOperation(req.path.replace(/^\//, ""))));

  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = classifyError(err, ctx.logger, req, ctx.storage);
    if (res.headersSent) return;
    if (known?.status === 405) res.setHeader("Allow", "POST");
    if (known?.status === 503 && typeof known.details?.retry_after_s === "number") res.setHeader("Retry-After", String(known.details.retry_after_s));
    res.status(known?.status ?? 500).json({ error_message: known?.message ?? "Internal server error" });
  });
  return router;
}

function unknownOperation(name: string): AppError {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return new AppError(404, "unknown_operation", `Unknown operation "${shown}"; operations: ${WORKSPACE_OPERATIONS.join(", ")}`);
}
