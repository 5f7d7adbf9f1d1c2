// The one rule for every string a client sends: REST bodies, query strings, path parameters, API
// keys, room join options and room messages. PostgreSQL text cannot hold NUL, and a lone UTF-16
// surrogate cannot be encoded as UTF-8 (it would be stored as U+FFFD, changing what the API
// acknowledged), so neither ever gets past a schema. Names and identifiers also refuse control
// characters, and identifiers the invisible format characters (bidi overrides, zero-width marks)
// that make two different values look alike. docs/input-rules.md is the client authors' summary.
import { z } from "zod";

/**
 * - `text`: free text (passwords, chat): well-formed Unicode without NUL; tabs and newlines pass.
 * - `line`: one line of display text (names, descriptions): `text` without control characters.
 * - `identifier`: keys, ids, user names: `line` without format characters (Unicode Cf).
 */
export type TextKind = "text" | "line" | "identifier";

export const TextProblems = {
  nul: "must not contain the NUL character (U+0000)",
  surrogate: "must be well-formed Unicode (it has a lone surrogate)",
  control: "must not contain control characters",
  format: "must not contain invisible format characters (bidi controls, zero-width marks)",
} as const;

const CONTROL = /\p{Cc}/u;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one (String#isWellFormed, ES2024). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORMAT = /\p{Cf}/u;

/** What is wrong with `s` as text of this kind, or undefined when nothing is. */
export function textProblem(s: string, kind: TextKind = "text"): string | undefined {
  if (LONE_SURROGATE.test(s)) return TextProblems.surrogate;
  if (s.includes("\u0000")) return TextProblems.nul;
  if (kind === "text") return undefined;
  if (CONTROL.test(s)) return TextProblems.control;
  if (kind === "identifier" && FORMAT.test(s)) return TextProblems.format;
  return undefined;
}

/** Adds the text rule to a string schema (keeping its own type and length messages). */
export function withTextRule<S extends z.ZodString>(schema: S, kind: TextKind = "text"): S {
  return schema.superRefine((s, ctx) => {
    const problem = textProblem(s, kind);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: s });
  }) as S;
}

export interface TextOptions {
  /** Longest accepted value, in UTF-16 code units (what JavaScript's length counts). */
  max: number;
  min?: number;
  kind?: TextKind;
  /** The message for a value that is not a string at all. */
  typeError?: string | ((issue: { input?: unknown }) => string);
}

/** A string schema with the text rule and a length bound: the building block of every inbound string. */
export function text({ max, min, kind = "text", typeError }: TextOptions): z.ZodString {
  let schema = z.string(typeError === undefined ? undefined : { error: typeError });
  if (min !== undefined) schema = schema.min(min, min === 1 ? "must not be empty" : `must have at least ${min} characters`);
  schema = schema.max(max, `must have at most ${max} characters`);
  return withTextRule(schema, kind);
}
