// The JSON of /api/students/{id}/* (helping a student) and /api/admin/* (accounts, export, erasure,
// the audit log): request and response schemas (the routes validate with them, the OpenAPI document
// is generated from them, tests check bodies against them) and the mappers.
import { z } from "zod";
import { MAX_USER_ID } from "../auth/tokens.js";
import { withTextRule } from "../protocol/text.js";
import { queryIntegerIn } from "./progressWire.js";
import { MAX_FOUND_ACCOUNTS } from "../accounts/export.js";

const userIdError = `must be an account id: an integer from 1 to ${MAX_USER_ID}`;
/** An account id in a path or query: digits only. */
export const accountIdText = withTextRule(z.string({ error: userIdError }), "identifier")
  .regex(/^[0-9]{1,10}$/, { error: userIdError })
  .transform(Number)
  .pipe(z.number().int().min(1, { error: userIdError }).max(MAX_USER_ID, { error: userIdError }));

export const studentPath = z.object({ id: accountIdText });

export const studentStatus = z
  .object({
    id: z.number().int(),
    username: z.string(),
    locked: z.boolean().describe("A teacher or an admin keeps it out: it cannot sign in, its rooms close it"),
    muted: z.boolean().describe("Its chat lines are refused and reach nobody"),
  })
  .strict();

export const studentActionResponse = z.object({ student: studentStatus }).strict();
export const passwordResetResponse = z
  .object({
    password: z.string().describe("The new one-time password, shown once (e.g. bako-mitu-resa-47). Every session of the account has ended."),
    student: studentStatus,
  })
  .strict();

export const MAX_SEARCH_LENGTH = 64;
export const accountsQuery = z.object({
  q: withTextRule(z.string({ error: "q must be a string" }), "identifier")
    .max(MAX_SEARCH_LENGTH, `q must have at most ${MAX_SEARCH_LENGTH} characters`)
    .default("")
    .describe("Part of the username or display name, any letter case; empty lists the first accounts by name"),
  limit: queryIntegerIn(1, MAX_FOUND_ACCOUNTS, 20),
});

export const accountSummary = z
  .object({
    id: z.number().int(),
    username: z.string(),
    role: z.enum(["student", "teacher", "admin"]),
    displayName: z.string().nullable(),
    createdAt: z.iso.datetime(),
    locked: z.boolean(),
    muted: z.boolean(),
  })
  .strict();
export const accountsResponse = z.object({ accounts: z.array(accountSummary), truncated: z.boolean().describe("More accounts match: narrow the search") }).strict();

export const exportResponse = z
  .object({
    format: z.literal("snakes-account-export/1"),
    exported_at: z.iso.datetime(),
    account_id: z.number().int(),
    tables: z.record(z.string(), z.unknown()).describe("Every row about the account, keyed by table name (users without the password hash)"),
  })
  .strict();

export const erasedResponse = z
  .object({
    erased: z.object({ id: z.number().int(), erased_at: z.iso.datetime() }).strict(),
  })
  .strict();

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 200;
const isoTime = withTextRule(z.string({ error: "must be a date-time" }), "identifier")
  .max(40)
  .pipe(z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time, e.g. 2026-12-01T09:00:00Z" }))
  .transform((s) => new Date(s));

export const auditQuery = z.object({
  actor: accountIdText.optional().describe("The acting account's id"),
  target: accountIdText.optional().describe("The id of the account acted on"),
  action: withTextRule(z.string(), "identifier").max(64, "action must have at most 64 characters").regex(/^[a-z_.]+$/, "action looks like student.lock").optional(),
  since: isoTime.optional().describe("Entries at or after this time"),
  until: isoTime.optional().describe("Entries before this time"),
  before: accountIdText.optional().describe("Paging: entries with an id below this one (the previous page's next_before)"),
  limit: queryIntegerIn(1, AUDIT_MAX_LIMIT, AUDIT_DEFAULT_LIMIT),
});

export const auditEntry = z
  .object({
    id: z.number().int(),
    at: z.iso.datetime(),
    actor: z.object({ id: z.number().int().nullable(), name: z.string().nullable(), role: z.enum(["teacher", "admin", "operator"]) }).strict(),
    action: z.string(),
    target: z.object({ id: z.number().int(), name: z.string().nullable() }).strict().nullable(),
    class_id: z.number().int().nullable(),
    address: z.string().nullable(),
    result: z.string().describe('"ok", or the error code the action ended with'),
    detail: z.unknown().nullable(),
  })
  .strict();
export const auditResponse = z
  .object({ entries: z.array(auditEntry).describe("Newest first"), next_before: z.number().int().nullable().describe("Pass as `before` for the next page; null on the last") })
  .strict();

export interface AuditRow {
  id: number;
  at: Date;
  actorId: number | null;
  actorName: string | null;
  actorRole: string;
  action: string;
  targetId: number | null;
  targetName: string | null;
  classId: number | null;
  address: string | null;
  result: string;
  detail: unknown;
}

export function auditEntryOf(row: AuditRow): z.infer<typeof auditEntry> {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { id: row.actorId, name: row.actorName, role: row.actorRole as "teacher" | "admin" | "operator" },
    action: row.action,
    target: row.targetId === null ? null : { id: row.targetId, name: row.targetName },
    class_id: row.classId,
    address: row.address,
    result: row.result,
    detail: row.detail ?? null,
  };
}
