// CSV as RFC 4180 has it, strictly: records end in CRLF (a lone LF is taken too: files saved on
// Linux or macOS), fields are separated by commas, a field containing a comma, a quote or a line
// break is quoted and its quotes doubled. A quote anywhere else, an unterminated quoted field or
// text after a closing quote is an error naming the line, never a guess. Writing quotes what needs
// it and defuses spreadsheet formulas (OWASP's CSV injection advice): a text cell starting with
// = + - @, a tab or a carriage return gets a leading apostrophe, so a spreadsheet shows it as text.

export class CsvError extends Error {
  constructor(
    readonly line: number,
    /** What is wrong, without the line. */
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = "CsvError";
  }
}

/** One record and the line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * The records of `text` (a leading byte-order mark dropped). Empty lines are skipped (a trailing
 * newline, a blank line a spreadsheet left); every other record keeps all its fields, empty ones included.
 */
export function parseCsv(text: string): CsvRecord[] {
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  while (i < input.length) {
    const startLine = line;
    const fields: string[] = [];
    let blank = true;
    for (;;) {
      let field = "";
      if (input[i] === '"') {
        blank = false;
        const openedOn = line;
        i++;
        for (;;) {
          if (i >= input.length) throw new CsvError(openedOn, "a quoted field is not closed");
          const ch = input[i];
          if (ch === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (ch === "\n") line++;
          field += ch;
          i++;
        }
        const next = input[i];
        if (i < input.length && next !== "," && next !== "\r" && next !== "\n") throw new CsvError(line, "text after a closing quote (a quote inside a field must be doubled)");
      } else {
        while (i < input.length && input[i] !== "," && input[i] !== "\r" && input[i] !== "\n") {
          if (input[i] === '"') throw new CsvError(line, "a quote inside an unquoted field (quote the field and double the quote)");
          field += input[i];
          i++;
        }
        if (field !== "") blank = false;
      }
      fields.push(field);
      if (input[i] === ",") {
        blank = false;
        i++;
        continue;
      }
      break;
    }
    if (input[i] === "\r") {
      if (input[i + 1] !== "\n") throw new CsvError(line, "a carriage return that does not end a line");
      i++;
    }
    if (input[i] === "\n") i++;
    line++;
    if (!blank) records.push({ line: startLine, fields });
  }
  return records;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** One cell as written: numbers as they are, null as empty, text defused and quoted as needed. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A whole file: one line per row, CRLF after each (RFC 4180). */
export function formatCsv(rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>): string {
  return rows.map((row) => `${row.map(csvCell).join(",")}\r\n`).join("");
}
