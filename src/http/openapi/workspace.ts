// OpenAPI 3.1 paths for the workspace platform API (POST /api/public/<operation>). Request bodies
// are generated from the same zod schemas the routes validate with; everything is inline (no
// $ref), so the object can be merged into any document as it is.
import { z } from "zod";
import { operationSchemas, type OperationName } from "../../workspace/schemas.js";

type Json = Record<string, unknown>;

const errorBody: Json = {
  type: "object",
  required: ["error_message"],
  properties: { error_message: { type: "string" } },
  additionalProperties: false,
};

const userBody: Json = {
  type: "object",
  required: ["user_id", "username", "first_name", "last_name", "organization", "phone", "realm", "locked", "disabled", "groups", "created", "last_session", "notes"],
  properties: {
    user_id: { type: "string", pattern: "^[0-9a-f]{32}$" },
    username: { type: "string" },
    first_name: { type: "string" },
    last_name: { type: "string" },
    organization: { type: "string" },
    phone: { type: "string" },
    realm: { type: "string", examples: ["local"] },
    locked: { type: "boolean" },
    disabled: { type: "boolean" },
    groups: {
      type: "array",
      items: { type: "object", required: ["group_id", "name"], properties: { group_id: { type: "string" }, name: { type: "string" } } },
    },
    created: { type: "string", format: "date-time" },
    last_session: { type: ["string", "null"], format: "date-time" },
    notes: { type: ["string", "null"] },
  },
};

const groupBody: Json = {
  type: "object",
  required: ["group_id", "name", "description", "is_default", "member_count", "workspaces", "created"],
  properties: {
    group_id: { type: "string", pattern: "^[0-9a-f]{32}$" },
    name: { type: "string" },
    description: { type: "string" },
    is_default: { type: "boolean", description: 'true for "All Users", which every user belongs to' },
    member_count: { type: "integer" },
    workspaces: { type: "array", items: { type: "string" }, description: "Names of the registry entries members may open" },
    created: { type: "string", format: "date-time" },
  },
};

const registryEntryBody: Json = {
  type: "object",
  required: ["description", "docker_registry", "image_src", "name", "run_config", "exec_config", "categories", "friendly_name", "architecture", "compatibility", "uncompressed_size_mb", "sha"],
  properties: {
    description: { type: "string" },
    docker_registry: { type: "string", format: "uri" },
    image_src: { type: "string" },
    name: { type: "string", description: "Image reference with its tag", examples: ["kasmweb/chromium:1.14.0"] },
    run_config: { type: "object", required: ["hostname"], properties: { hostname: { type: "string" } } },
    exec_config: {
      type: "object",
      required: ["go", "assign"],
      properties: {
        go: { type: "object", required: ["cmd"], properties: { cmd: { type: "string" } } },
        assign: { type: "object", required: ["cmd"], properties: { cmd: { type: "string" } } },
      },
    },
    categories: { type: "array", items: { type: "string" } },
    friendly_name: { type: "string" },
    architecture: { type: "array", items: { enum: ["amd64", "arm64"] } },
    compatibility: { type: "array", items: { type: "string", pattern: "^\\d+\\.\\d+\\.x$" } },
    uncompressed_size_mb: { type: "integer", minimum: 1 },
    sha: { type: "string", description: "sha1 of the entry's canonical JSON" },
  },
};

const emptyBody: Json = { type: "object", additionalProperties: false };

interface OperationDoc {
  summary: string;
  description?: string;
  success: Json;
  /** Error statuses besides 400, 401, 413 and 429, which every operation can answer. */
  errors: Partial<Record<404 | 409, string>>;
}

const USER_NOT_FOUND = "User not found";

const docs: Record<OperationName, OperationDoc> = {
  validate_credentials: { summary: "Check an API key pair", success: emptyBody, errors: {} },
  create_user: {
    summary: "Create a user",
    description: 'The user joins the "All Users" group. A password, when given, must satisfy the five password rules.',
    success: { type: "object", required: ["user"], properties: { user: userBody } },
    errors: { 409: "The username is taken (in any letter case)" },
  },
  get_user: {
    summary: "Get one user by user_id or by username (case-insensitive)",
    success: { type: "object", required: ["user"], properties: { user: userBody } },
    errors: { 404: USER_NOT_FOUND },
  },
  get_users: {
    summary: "List users, oldest first, a page at a time",
    success: {
      type: "object",
      required: ["users", "total", "page", "page_size"],
      properties: { users: { type: "array", items: userBody }, total: { type: "integer" }, page: { type: "integer" }, page_size: { type: "integer" } },
    },
    errors: {},
  },
  update_user: {
    summary: "Update a user",
    description:
      "Changes exactly the fields given in target_user, in one transaction; a failed request changes nothing. " +
      "A new password must have at least 8 characters, an uppercase letter, a lowercase letter, a digit and a special character; " +
      "the 400 names every rule it breaks. A new password also ends the user's sessions.",
    success: { type: "object", required: ["user"], properties: { user: userBody } },
    errors: { 404: USER_NOT_FOUND, 409: "The new username is taken (in any letter case)" },
  },
  delete_user: { summary: "Delete a user", description: "`force` is accepted for compatibility (it stops running workspace containers on the platform; this service runs none). The user's sign-in sessions end with it.", success: emptyBody, errors: { 404: USER_NOT_FOUND } },
  logout_user: { summary: "End every session of a user", success: emptyBody, errors: { 404: USER_NOT_FOUND } },
  get_groups: {
    summary: "List groups, the default group first",
    success: { type: "object", required: ["groups"], properties: { groups: { type: "array", items: groupBody } } },
    errors: {},
  },
  create_group: {
    summary: "Create a group",
    success: { type: "object", required: ["group"], properties: { group: groupBody } },
    errors: { 409: "A group with that name exists (in any letter case)" },
  },
  delete_group: { summary: "Delete a group and its memberships", success: emptyBody, errors: { 404: "Group not found", 409: "The default group cannot be deleted" } },
  add_user_group: { summary: "Add a user to a group (idempotent)", success: emptyBody, errors: { 404: "User not found or group not found" } },
  remove_user_group: {
    summary: "Remove a user from a group (idempotent)",
    success: emptyBody,
    errors: { 404: "User not found or group not found", 409: "Nobody leaves the default group" },
  },
  set_group_workspaces: {
    summary: "Set a group's allowed workspaces",
    description: "Replaces the group's allowed workspaces with the named registry entries. Unknown names are a 400 naming them, and nothing changes.",
    success: { type: "object", required: ["group"], properties: { group: groupBody } },
    errors: { 404: "Group not found" },
  },
  get_workspaces: {
    summary: "Workspaces a user may open (or the whole registry without target_user)",
    description: "The registry entries allowed by the user's groups; none while the user is locked or disabled.",
    success: { type: "object", required: ["workspaces"], properties: { workspaces: { type: "array", items: registryEntryBody } } },
    errors: { 404: USER_NOT_FOUND },
  },
};

function requestSchema(operation: OperationName): Json {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(operationSchemas[operation], { io: "input" }) as Json;
  return schema;
}

/** How every workspace operation authenticates. */
const CREDENTIALS_IN_BODY = "Authenticated by the API key pair in the JSON body (`api_key`, `api_key_secret`), not by a session cookie.";

const error = (description: string) => ({ description, content: { "application/json": { schema: errorBody } } });

export const workspaceOpenApiPaths: Record<string, Json> = Object.fromEntries(
  (Object.keys(docs) as OperationName[]).map((operation) => {
    const doc = docs[operation];
    const responses: Record<string, unknown> = {
      200: { description: "Done", content: { "application/json": { schema: doc.success } } },
      400: error("Invalid request: malformed JSON, wrong types, unknown or missing fields, or password rules (each problem named)"),
      401: error("Invalid API credentials (wrong key, wrong secret or revoked key)"),
    };
    for (const [status, description] of Object.entries(doc.errors)) responses[status] = error(description);
    responses[413] = error("Request body is too large (over 16 kB)");
    responses[429] = error("A wrong key pair from an address with too many failed authentications; see Retry-After (a valid pair is always served)");
    return [
      `/api/public/${operation}`,
      {
        post: {
          operationId: `workspace_${operation}`,
          tags: ["Workspace platform"],
          summary: doc.summary,
          description: [doc.description, CREDENTIALS_IN_BODY].filter(Boolean).join("\n\n"),
          // No cookie, header or query credential: the key pair travels in the body (OpenAPI's
          // security schemes cannot say "in the body", so the operation declares none).
          security: [],
          "x-credentials": { in: "body", fields: ["api_key", "api_key_secret"] },
          requestBody: { required: true, content: { "application/json": { schema: requestSchema(operation) } } },
          responses,
        },
      },
    ];
  }),
);
