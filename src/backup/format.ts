// The backup file: the whole database at one instant, as a logical copy that any PostgreSQL of ours
// (embedded PGlite or a server) can load. gzip over UTF-8 lines:
//
//   line 1        the header (JSON): format name and version, engine, the instant, the migrations
//                 applied, and per table its columns and its number of rows
//   then          every table's rows in the header's order, one JSON object per line
//                 (PostgreSQL's own row_to_json; loaded back by json_populate_recordset)
//   last line     {"sha256": …} over every byte before it (uncompressed)
//
// A reader knows where each table ends from the header, and that the file is whole from the last
// line: a truncated, corrupted or foreign file is refused before anything is touched.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";

export const BACKUP_FORMAT = "snakes-game-backend backup";
/** The newest format this build writes and reads. */
export const BACKUP_FORMAT_VERSION = 1;
export const BACKUP_EXTENSION = ".jsonl.gz";

export interface BackupTable {
  name: string;
  /** Column names, in the table's order. */
  columns: string[];
  /** Their types as PostgreSQL names them (for people reading the header; loading needs only names). */
  types?: string[];
  rows: number;
}

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  engine: "pglite" | "postgres";
  /** ISO instant the snapshot represents. */
  at: string;
  /** Migrations applied to the database, in order (the schema the rows fit). */
  migrations: string[];
  tables: BackupTable[];
  /** The package version that wrote it (informational). */
  writtenBy?: string;
}

/** A backup file that cannot be used: one line that says what is wrong with which file. */
export class BackupFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupFileError";
  }
}

/** Streams the content lines of a backup (header first, trailer last), hashing as it goes. */
export class ContentHash {
  private readonly hash = createHash("sha256");
  update(line: string): void {
    this.hash.update(line).update("\n");
  }
  digest(): string {
    return this.hash.digest("hex");
  }
}

export const trailerLine = (sha256: string) => JSON.stringify({ sha256 });

/** The header as written: checked field by field, since a foreign JSON file may start with `{` too. */
export function parseHeader(line: string, file: string): BackupHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new BackupFileError(`${file} is not a backup of this server (its first line is not a backup header)`);
  }
  const h = value as Partial<BackupHeader> | null;
  if (!h || typeof h !== "object" || h.format !== BACKUP_FORMAT) {
    throw new BackupFileError(`${file} is not a backup of this server (no "${BACKUP_FORMAT}" header)`);
  }
  if (!Number.isInteger(h.version) || (h.version as number) < 1) throw new BackupFileError(`${file} has a damaged header (format version ${String(h.version)})`);
  if ((h.version as number) > BACKUP_FORMAT_VERSION) {
    throw new BackupFileError(`${file} was written by a newer version of the server (backup format ${h.version}; this one reads up to ${BACKUP_FORMAT_VERSION}): restore it with that version or a newer one`);
  }
  const tablesOk =
    Array.isArray(h.tables) &&
    h.tables.every((t) => t && typeof t.name === "string" && Array.isArray(t.columns) && t.columns.every((c) => typeof c === "string") && Number.isInteger(t.rows) && t.rows >= 0);
  if (
    (h.engine !== "pglite" && h.engine !== "postgres") ||
    typeof h.at !== "string" ||
    Number.isNaN(Date.parse(h.at)) ||
    !Array.isArray(h.migrations) ||
    !h.migrations.every((m) => typeof m === "string") ||
    !tablesOk
  ) {
    throw new BackupFileError(`${file} has a damaged header`);
  }
  return h as BackupHeader;
}

/**
 * Checks that the backup's migrations are this build's first ones, in order: the rows then fit a
 * schema this build can make and migrate forward. A migration this build lacks means a newer version.
 */
export function checkMigrations(header: BackupHeader, known: string[], file: string): void {
  const unknown = header.migrations.find((m) => !known.includes(m));
  if (unknown) {
    throw new BackupFileError(`${file} was made by a newer version of the server (it is at migration ${unknown}, which this version does not have): restore it with that version or a newer one`);
  }
  if (header.migrations.length === 0) throw new BackupFileError(`${file} holds a database without any migration applied: nothing to restore`);
  const prefix = known.slice(0, header.migrations.length);
  if (prefix.some((m, i) => m !== header.migrations[i])) {
    throw new BackupFileError(`${file} records migrations (${header.migrations.join(", ")}) that are not this version's first ones in order: it cannot be restored by this version`);
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Lines of a gzip file, as they arrive (any zlib error — a truncated or damaged file — is thrown). */
async function* gzipLines(file: string): AsyncGenerator<string> {
  const stream = createReadStream(file).pipe(createGunzip());
  let rest = "";
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      rest = lines.pop()!;
      yield* lines;
    }
    rest += decoder.decode();
  } finally {
    stream.destroy();
  }
  if (rest !== "") yield rest; // the file does not end with a newline: the trailer check refuses it
}

/** What a reader gets for each table: its rows in batches of JSON lines. */
export type RowVisitor = (table: BackupTable, rows: string[]) => Promise<void>;

/**
 * Reads a whole backup and checks it: gzip integrity, header, every table's row count, and the
 * checksum in the last line. With `visit`, rows are handed over in batches as they are read (a
 * restore loads them); the checksum is only known at the end, so a visitor must be able to throw
 * its work away when this rejects. Errors are BackupFileError with one line.
 */
export async function readBackup(file: string, visit?: RowVisitor, batchSize = 1000): Promise<BackupHeader> {
  await checkMagic(file);
  const hash = new ContentHash();
  let header: BackupHeader | undefined;
  let table = 0;
  let inTable = 0;
  let batch: string[] = [];
  let trailer: string | undefined;
  const flush = async () => {
    if (visit && batch.length) await visit(header!.tables[table], batch);
    batch = [];
  };
  try {
    for await (const line of gzipLines(file)) {
      if (trailer !== undefined) throw new BackupFileError(`${file} is damaged (content after its checksum line)`);
      if (!header) {
        header = parseHeader(line, file);
        hash.update(line);
        continue;
      }
      while (table < header.tables.length && inTable === header.tables[table].rows) {
        await flush();
        table++;
        inTable = 0;
      }
      if (table === header.tables.length) {
        trailer = line;
        continue;
      }
      if (!line.startsWith("{") || !line.endsWith("}")) throw new BackupFileError(`${file} is damaged (a row of ${header.tables[table].name} is not a JSON object)`);
      hash.update(line);
      batch.push(line);
      inTable++;
      if (batch.length >= batchSize) await flush();
    }
  } catch (err) {
    if (err instanceof BackupFileError) throw err;
    if (visit && !isFileDamage(err)) throw err; // the visitor's own failure (the database), not the file's
    throw new BackupFileError(`${file} is truncated or corrupted (${(err as Error).message})`);
  }
  if (!header) throw new BackupFileError(`${file} is empty`);
  // Tables whose rows end the file (or have none) are done too.
  while (table < header.tables.length && inTable === header.tables[table].rows) {
    await flush();
    table++;
    inTable = 0;
  }
  if (table < header.tables.length || trailer === undefined) throw new BackupFileError(`${file} is truncated (it ends before its checksum line)`);
  let expected: unknown;
  try {
    expected = (JSON.parse(trailer) as { sha256?: unknown }).sha256;
  } catch {
    expected = undefined;
  }
  if (typeof expected !== "string") throw new BackupFileError(`${file} is damaged (its last line is not a checksum)`);
  if (expected !== hash.digest()) throw new BackupFileError(`${file} is corrupted (its checksum does not match its content)`);
  return header;
}

function isFileDamage(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  return code.startsWith("Z_") || code === "ERR_ENCODING_INVALID_ENCODED_DATA" || err instanceof TypeError;
}

async function checkMagic(file: string): Promise<void> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupFileError(code === "ENOENT" ? `${file} does not exist` : `${file} cannot be read (${code ?? (err as Error).message})`);
  }
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0).catch((err: NodeJS.ErrnoException) => {
      throw new BackupFileError(err.code === "EISDIR" ? `${file} is a folder, not a backup file` : `${file} cannot be read (${err.code ?? err.message})`);
    });
    if (bytesRead === 0) throw new BackupFileError(`${file} is empty`);
    if (bytesRead < 2 || head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
      throw new BackupFileError(`${file} is not a backup of this server (not gzip data)`);
    }
  } finally {
    await handle.close();
  }
}
