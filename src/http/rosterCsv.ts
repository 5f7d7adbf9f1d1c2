// A roster import's CSV (POST /api/classes/{id}/roster): a header row `username[,display_name]`,
// one student per row. Every row is checked as registration checks a name; every problem is
// reported with its line, and one problem refuses the whole import (nothing is created).
import { accountUsernameSchema } from "../auth/usernames.js";
import { CsvError, parseCsv } from "../classes/csv.js";

/** Students per import: a few classes' worth; each account costs a password hash. */
export const MAX_ROSTER_ROWS = 200;
/** Bytes of one import's CSV (200 rows of the longest names and display names fit comfortably). */
export const MAX_ROSTER_BYTES = 64 * 1024;
export const MAX_ROSTER_DISPLAY_NAME = 64;

export interface RosterRow {
  line: number;
  username: string;
  displayName: string | null;
}

export interface RosterProblem {
  /** The CSV line (1 is the header). */
  line: number;
  field: "username" | "display_name" | "row" | "header";
  message: string;
  username?: string;
}

export type RosterParse = { ok: true; rows: RosterRow[] } | { ok: false; problems: RosterProblem[] };

/** Control and formatting characters dropped, white space collapsed (as room display names are); empty is none. */
const cleanDisplayName = (raw: string): string | null =>
  raw
    .normalize("NFKC")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>]/gu, "")
    .replace(/\s+/g, " ")
    .trim() || null;

const normalHeader = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, "_");

export function parseRoster(text: string): RosterParse {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) return { ok: false, problems: [{ line: err.line, field: "row", message: err.reason }] };
    throw err;
  }
  const [header, ...body] = records;
  if (!header) return { ok: false, problems: [{ line: 1, field: "header", message: "the CSV is empty: it needs a header row username[,display_name] and one row per student" }] };
  const columns = header.fields.map(normalHeader);
  const known = columns[0] === "username" && (columns.length === 1 || (columns.length === 2 && columns[1] === "display_name"));
  if (!known) {
    return { ok: false, problems: [{ line: header.line, field: "header", message: `the header row must be "username" or "username,display_name", not "${header.fields.join(",").slice(0, 80)}"` }] };
  }
  if (body.length === 0) return { ok: false, problems: [{ line: header.line, field: "row", message: "the CSV has a header but no students" }] };
  if (body.length > MAX_ROSTER_ROWS) return { ok: false, problems: [{ line: body[MAX_ROSTER_ROWS].line, field: "row", message: `at most ${MAX_ROSTER_ROWS} students per import (this CSV has ${body.length})` }] };

  const problems: RosterProblem[] = [];
  const rows: RosterRow[] = [];
  const seen = new Map<string, number>();
  for (const record of body) {
    if (record.fields.length !== columns.length) {
      problems.push({ line: record.line, field: "row", message: `expected ${columns.length} field(s) (${columns.join(",")}), found ${record.fields.length}` });
      continue;
    }
    const name = accountUsernameSchema.safeParse(record.fields[0]);
    const typed = record.fields[0].trim();
    if (!name.success) {
      problems.push({ line: record.line, field: "username", username: typed.slice(0, 40), message: name.error.issues.map((i) => i.message).join("; ") });
      continue;
    }
    const earlier = seen.get(name.data.toLowerCase());
    if (earlier !== undefined) {
      problems.push({ line: record.line, field: "username", username: name.data, message: `"${name.data}" is already on line ${earlier} of this CSV (names are the same in any letter case)` });
      continue;
    }
    seen.set(name.data.toLowerCase(), record.line);
    let displayName: string | null = null;
    if (columns.length === 2) {
      const raw = record.fields[1].trim();
      if (raw.length > MAX_ROSTER_DISPLAY_NAME) {
        problems.push({ line: record.line, field: "display_name", username: name.data, message: `display_name must have at most ${MAX_ROSTER_DISPLAY_NAME} characters` });
        continue;
      }
      displayName = cleanDisplayName(raw);
    }
    rows.push({ line: record.line, username: name.data, displayName });
  }
  return problems.length ? { ok: false, problems } : { ok: true, rows };
}
