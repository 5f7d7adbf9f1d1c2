import type { z } from "zod";
import { AppError } from "../errors.js";

/** A zod error's problems, one per issue: the field's path (or `what` for the value itself) and the message. */
export function problemsOf(error: z.ZodError, what: string): Array<{ field: string; message: string }> {
  return error.issues.map((i) => ({ field: i.path.length ? i.path.join(".") : what, message: i.message }));
}

/** "field: message; field: message", as error messages list the problems. */
export function summarizeProblems(problems: ReadonlyArray<{ field: string; message: string }>): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join("; ");
}

/** Parses a request part with a zod schema; failures become 400 with every problem listed. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = "body"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = problemsOf(result.error, what);
  throw new AppError(400, "validation_failed", `Invalid request ${what}: ${summarizeProblems(problems)}`, { problems });
}
