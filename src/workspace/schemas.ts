// Request bodies of the workspace platform API (POST /api/public/<op>), one strict zod schema per
// operation. Unknown fields, wrong types and missing required fields are 400s with the field named;
// the same schemas produce the OpenAPI document.
import { z } from "zod";
import { MAX_PASSWORD_LENGTH } from "../auth/passwords.js";
import { text as textOf, type TextKind } from "../protocol/text.js";

type ErrorFn = (issue: { input?: unknown; code?: string }) => string;
const expected = (what: string): ErrorFn => (issue) => (issue.input === undefined ? "is required" : `must be ${what}`);
/** Every string of this API: the service's text rule (protocol/text.ts) with this API's messages. */
const str = (max: number, kind: TextKind, min?: number) => textOf({ max, min, kind, typeError: expected("a string") });
/** Names, descriptions, phone numbers: one line of text. */
const text = (max: number) => str(max, "line");
const flag = () => z.boolean({ error: expected("a boolean (true or false)") });
const id = () => str(64, "identifier", 1);

/** An object that refuses unknown keys, naming them. */
function strict<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unknown field(s): ${(issue as { keys?: string[] }).keys?.join(", ")}`
        : issue.input === undefined
          ? "is required"
          : "must be an object",
  });
}

export const USERNAME_PATTERN = /^[A-Za-z0-9._@+-]+$/;
export const username = () =>
  str(128, "identifier", 1).regex(USERNAME_PATTERN, "may only contain ASCII letters, digits and . _ @ + -");

const password = () => str(MAX_PASSWORD_LENGTH, "text");

const editable = {
  username: username().optional(),
  first_name: text(128).optional(),
  last_name: text(128).optional(),
  locked: flag().optional(),
  disabled: flag().optional(),
  organization: text(255).optional(),
  phone: text(64).optional(),
  password: password().optional(),
};

const credentials = {
  api_key: str(256, "identifier", 1),
  api_key_secret: str(256, "identifier", 1),
};

/** Only the credentials, checked before authentication; the rest of the body is checked after. */
export const credentialsSchema = z.object(credentials, { error: () => "must be a JSON object" });

const targetUserId = strict({ user_id: id() });
const targetGroupId = strict({ group_id: id() });
const pageNumber = (max: number) => z.int({ error: expected("an integer") }).min(1, "must be at least 1").max(max, `must be at most ${max}`);

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;

export const operationSchemas = {
  validate_credentials: strict({ ...credentials }),
  create_user: strict({ ...credentials, target_user: strict({ ...editable, username: username() }) }),
  get_user: strict({
    ...credentials,
    target_user: strict({ user_id: id().optional(), username: str(128, "identifier", 1).optional() }).refine(
      (t) => (t.user_id === undefined) !== (t.username === undefined),
      "needs exactly one of user_id or username",
    ),
  }),
  get_users: strict({
    ...credentials,
    page: pageNumber(1_000_000).optional(),
    page_size: pageNumber(MAX_PAGE_SIZE).optional(),
  }),
  update_user: strict({ ...credentials, target_user: strict({ user_id: id(), ...editable }) }),
  delete_user: strict({ ...credentials, target_user: targetUserId, force: flag().optional() }),
  logout_user: strict({ ...credentials, target_user: targetUserId }),
  get_groups: strict({ ...credentials }),
  create_group: strict({
    ...credentials,
    target_group: strict({
      name: text(64).refine((s) => s.trim() !== "" && s.trim() === s, "must be non-empty without leading or trailing spaces"),
      description: text(1000).optional(),
    }),
  }),
  delete_group: strict({ ...credentials, target_group: targetGroupId }),
  add_user_group: strict({ ...credentials, target_user: targetUserId, target_group: targetGroupId }),
  remove_user_group: strict({ ...credentials, target_user: targetUserId, target_group: targetGroupId }),
  set_group_workspaces: strict({
    ...credentials,
    target_group: targetGroupId,
    workspaces: z
      .array(str(255, "identifier", 1), { error: expected("an array of registry entry names") })
      .max(500, "must list at most 500 workspaces"),
  }),
  get_workspaces: strict({ ...credentials, target_user: targetUserId.optional() }),
};

export type OperationName = keyof typeof operationSchemas;
export type OperationBody<O extends OperationName> = z.infer<(typeof operationSchemas)[O]>;

export interface BodyProblem {
  field: string;
  message: string;
}

/** "target_user.locked must be a boolean (true or false); target_user has unknown field(s): admin" */
export function describeProblems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "body"} ${i.message}`).join("; ");
}
