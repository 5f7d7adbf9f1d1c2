// What a restore accepts in the rows it loads: the rules the API applies when it writes them, for the
// columns that decide who signs in and as whom (names, password hashes, session epochs, API keys,
// revoked sessions). A file is authenticated by its HMAC (./format.ts); these rules are the second
// wall: a row this server would never write (a name registration refuses, a negative epoch, a key
// of another shape) refuses the whole file, so a crafted or hand-edited backup cannot plant it.
// Pure functions over a row as its JSON line holds it (PostgreSQL's row_to_json: column names).

/** One column's rule: the column, whether a value passes, and what a failing row "has". */
type Rule = [column: string, passes: (value: unknown) => boolean, problem: string];

/** Registration's rule (src/http/authRoutes.ts): 3 to 32 ASCII letters, digits, '_', '.', '-'. */
export const ACCOUNT_USERNAME = /^[A-Za-z0-9_.-]{3,32}$/;
/** The workspace API's rule (src/workspace/schemas.ts): 1 to 128 of ASCII letters, digits and . _ @ + -. */
const WORKSPACE_USERNAME = /^[A-Za-z0-9._@+-]{1,128}$/;
/** src/auth/passwords.ts: "scrypt$N$r$p$salt$hash", base64url parts. */
const PASSWORD_HASH = /^scrypt\$\d{1,8}\$\d{1,3}\$\d{1,3}\$[A-Za-z0-9_-]{16,64}\$[A-Za-z0-9_-]{16,128}$/;
/** src/workspace/apiKeys.ts: 12 random bytes in hex; the secret's "sha256$" + base64url digest. */
const API_KEY = /^[0-9a-f]{24}$/;
const API_SECRET_HASH = /^sha256\$[A-Za-z0-9_-]{43}$/;
const SESSION_SUBJECT = /^(u:[1-9]\d{0,9}|w:[0-9a-f]{32})$/;
const ROLES = new Set(["student", "teacher", "admin"]);
const MAX_ID = 2 ** 31 - 1;

/** An integer column as a backup holds it: PostgreSQL's text of it (./snapshot.ts) or a JSON number. */
const integer = (v: unknown): number | undefined =>
  typeof v === "number" ? (Number.isSafeInteger(v) ? v : undefined) : typeof v === "string" && /^-?\d{1,16}$/.test(v) ? Number(v) : undefined;
const inRange = (v: unknown, min: number) => {
  const n = integer(v);
  return n !== undefined && n >= min && n <= MAX_ID;
};
const positiveId = (v: unknown) => inRange(v, 1);
const epoch = (v: unknown) => inRange(v, 0);
const matches = (v: unknown, pattern: RegExp) => typeof v === "string" && pattern.test(v);

const rules: Record<string, Rule[]> = {
  users: [
    ["id", positiveId, "an id that is not a positive integer"],
    ["username", (v) => matches(v, ACCOUNT_USERNAME), "a username registration refuses (3 to 32 of A-Z a-z 0-9 _ . -)"],
    ["password_hash", (v) => matches(v, PASSWORD_HASH), "a password hash this server does not make"],
    ["session_epoch", epoch, "a session epoch that is not a non-negative integer"],
    ["role", (v) => typeof v === "string" && ROLES.has(v), "a role other than student, teacher or admin"],
  ],
  workspace_users: [
    ["username", (v) => matches(v, WORKSPACE_USERNAME), "a username the workspace API refuses (1 to 128 of A-Z a-z 0-9 . _ @ + -)"],
    ["password_hash", (v) => v === null || matches(v, PASSWORD_HASH), "a password hash this server does not make"],
    ["session_epoch", epoch, "a session epoch that is not a non-negative integer"],
  ],
  api_keys: [
    ["key", (v) => matches(v, API_KEY), "an API key of another shape than the 24 hex digits this server makes"],
    ["secret_hash", (v) => matches(v, API_SECRET_HASH), "a secret hash this server does not make"],
    ["name", (v) => typeof v === "string" && v.trim() === v && v.length >= 1 && v.length <= 100, "a key name that is empty, padded or longer than 100 characters"],
  ],
  revoked_sessions: [
    ["sid", (v) => typeof v === "string" && v.length >= 8 && v.length <= 64, "a session id of another length than 8 to 64"],
    ["subject", (v) => matches(v, SESSION_SUBJECT), "a subject other than u:<account id> or w:<workspace user id>"],
  ],
  erasures: [["user_id", positiveId, "a user id that is not a positive integer"]],
  auth_generation: [
    ["id", (v) => integer(v) === 1, "an id other than 1 (the table holds one row)"],
    ["generation", (v) => typeof v === "string" && v.length >= 1 && v.length <= 64, "a generation that is empty or longer than 64 characters"],
  ],
};

/** Whether rows of `table` are checked (the others are loaded as they are: their types are the check). */
export const hasRowRules = (table: string) => table in rules;

/**
 * The first problem of a row of `table`, as "row N of users has a username registration refuses",
 * or undefined when the row is one the API could have written. `line` is the row's JSON.
 */
export function rowProblem(table: string, line: string, index: number): string | undefined {
  const checks = rules[table];
  if (!checks) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return `row ${index + 1} of ${table} is not JSON`;
  }
  if (!row || typeof row !== "object" || Array.isArray(row)) return `row ${index + 1} of ${table} is not a JSON object`;
  for (const [column, passes, problem] of checks) {
    // Only columns the row has: a backup from an older migration may lack a later column.
    if (column in row && !passes((row as Record<string, unknown>)[column])) return `row ${index + 1} of ${table} has ${problem}`;
  }
  return undefined;
}
