// Building blocks for the OpenAPI 3.1 document served at GET /api/openapi.json.
export type PathsObject = Record<string, Record<string, unknown>>;

export const errorBody = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, details: { type: "object" } },
    },
  },
} as const;

export interface ErrorExample {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A response carrying the JSON error body, optionally with an example of it. */
export const errorResponse = (description: string, example?: ErrorExample) => ({
  description,
  content: {
    "application/json": { schema: { $ref: "#/components/schemas/Error" }, ...(example ? { example: { error: example } } : {}) },
  },
});

export const jsonBody = (schema: unknown, required = true) => ({ required, content: { "application/json": { schema } } });
export const jsonResponse = (description: string, schema: unknown = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});

/** 401/403 answers every cookie-protected route shares, and 503 when the database's disk is full or it cannot be reached. */
export const authErrors = {
  "401": errorResponse("No session cookie (`unauthenticated`), or an invalid token, unknown user or ended session (`invalid_token`)"),
  "403": errorResponse("Session token expired (`token_expired`), the account is locked by a teacher or admin (`account_locked`), or a write from a browser page on an origin outside CORS_ORIGINS (`origin_not_allowed`)"),
  "503": errorResponse(
    "The database's storage is full (`storage_full`) or the database cannot be reached (`database_unavailable`), with Retry-After: nothing was saved; retry after that many seconds",
  ),
};

/**
 * Gives each operation of `paths` its operationId from `ids` (keyed "METHOD /path"); throws at
 * start-up when one is missing or unknown, so a new route cannot ship without a name.
 */
export function withOperationIds<P extends PathsObject>(paths: P, ids: Record<string, string>): P {
  const used = new Set<string>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const key = `${method.toUpperCase()} ${path}`;
      const id = ids[key];
      if (!id) throw new Error(`OpenAPI: no operationId for ${key}`);
      used.add(key);
      (op as { operationId?: string }).operationId = id;
    }
  }
  const unknown = Object.keys(ids).filter((key) => !used.has(key));
  if (unknown.length) throw new Error(`OpenAPI: operationId for unknown operation(s) ${unknown.join(", ")}`);
  return paths;
}
