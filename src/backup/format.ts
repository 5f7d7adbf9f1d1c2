// The backup file: the whole database at one instant, as a logical copy that any PostgreSQL of ours
// (embedded PGlite or a server) can load. gzip over UTF-8 lines:
//
//   line 1        the header (JSON): format name and version, engine, the instant, the migrations
//                 applied, and per table its columns and its number of rows
//   then          every table's rows in the header's order, one JSON object per line
//                 (PostgreSQL's own row_to_json; loaded back by json_populate_recordset)
//   last line     {"sha256": …, "hmac": …} over every byte before it (uncompressed): sha256 says
//                 the file is whole, hmac (HMAC-SHA256 under the backup key, derived from
//                 BACKUP_KEY or else JWT_SECRET, never kept in the file) that this server wrote it
//
// A reader knows where each table ends from the header, and that the file is whole and ours from
// the last line: a truncated, corrupted, edited or foreign file is refused before anything is
// touched. Lines are read in linear time and bounded (MAX_BACKUP_LINE_LENGTH).
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
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

/**
 * The longest line a backup may hold, in characters (a row as JSON): far above any row the API can write (bodies
 * are at most 1 MB), so a crafted file cannot make the reader hold an unbounded string.
 */
export const MAX_BACKUP_LINE_LENGTH = 32 * 1024 * 1024;

/** The environment variable that hands the derived backup key to the backup's reading process (src/backup/embedded.ts). */
const INHERITED_KEY = "SNAKES_BACKUP_TRAILER_KEY";
let backupKey: Buffer | undefined = /^[0-9a-f]{64}$/.test(process.env[INHERITED_KEY] ?? "") ? Buffer.from(process.env[INHERITED_KEY]!, "hex") : undefined;

/** The key that authenticates backups: BACKUP_KEY when set, else derived from JWT_SECRET (never the secret itself). */
export function deriveBackupKey(config: { backupKey?: string; jwtSecret: string }): Buffer {
  return createHmac("sha256", config.backupKey ?? config.jwtSecret).update("snakes-game-backend backup trailer v1").digest();
}

/**
 * Sets the key this process signs and checks backups with (the server's and the admin command's
 * start). Children it starts (the embedded backup's reader) inherit it through their environment.
 */
export function useBackupKey(config: { backupKey?: string; jwtSecret: string }): void {
  backupKey = deriveBackupKey(config);
  process.env[INHERITED_KEY] = backupKey.toString("hex");
}

/** What a trailer carries: the content's sha256 and, when a backup key is set, its HMAC. */
export interface ContentDigest {
  sha256: string;
  hmac?: string;
}

/** Streams the content lines of a backup (header first, trailer last), hashing as it goes. */
export class ContentHash {
  private readonly hash = createHash("sha256");
  private readonly mac;
  /** `key`: the process's backup key unless given; null: none (a sha256 alone). */
  constructor(key: Buffer | null = backupKey ?? null) {
    this.mac = key ? createHmac("sha256", key) : undefined;
  }
  update(line: string): void {
    this.hash.update(line).update("\n");
    this.mac?.update(line).update("\n");
  }
  digest(): ContentDigest {
    const sha256 = this.hash.digest("hex");
    return this.mac ? { sha256, hmac: this.mac.digest("hex") } : { sha256 };
  }
}

/** The last line of a backup; a bare string is a sha256 alone (a file no key authenticates). */
export const trailerLine = (digest: ContentDigest | string) => JSON.stringify(typeof digest === "string" ? { sha256: digest } : digest);

export interface ReadOptions {
  /** Rows per batch handed to the visitor (at most; a batch also ends at BATCH_BYTES). */
  batchSize?: number;
  /**
   * Accept a file whose HMAC cannot be checked (written under a key that is lost, or before
   * backups were authenticated): only its sha256 is checked. The operator's explicit choice
   * (`admin restore --unauthenticated`), never a default.
   */
  unauthenticated?: boolean;
  /** The key to check with (default: the process's, set by useBackupKey). */
  key?: Buffer;
}

/** What reading a file found besides its header. */
export interface ReadResult {
  header: BackupHeader;
  /** Whether the trailer's HMAC matched the backup key (false only with `unauthenticated`). */
  authenticated: boolean;
}

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

/**
 * Lines of a gzip file, as they arrive (any zlib error — a truncated or damaged file — is thrown).
 * Linear in the file's size: a chunk is searched once for newlines and a long line's pieces are
 * joined once, when it ends; a line longer than MAX_BACKUP_LINE_LENGTH is refused as it grows.
 */
export async function* gzipLines(file: string, maxLineLength = MAX_BACKUP_LINE_LENGTH): AsyncGenerator<string> {
  const stream = createReadStream(file).pipe(createGunzip());
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pieces: string[] = [];
  let pending = 0;
  const tooLong = () => new BackupFileError(`${file} is damaged (a line of more than ${maxLineLength} characters: no row of this server is that long)`);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = decoder.decode(chunk, { stream: true });
      let from = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
        const tail = text.slice(from, nl);
        if (pending + tail.length > maxLineLength) throw tooLong();
        const line = pieces.length ? pieces.join("") + tail : tail;
        pieces = [];
        pending = 0;
        from = nl + 1;
        yield line;
      }
      if (from < text.length) {
        pending += text.length - from;
        if (pending > maxLineLength) throw tooLong();
        pieces.push(text.slice(from));
      }
    }
    const last = decoder.decode();
    if (last) pieces.push(last);
  } finally {
    stream.destroy();
  }
  if (pieces.length) yield pieces.join(""); // the file does not end with a newline: the trailer check refuses it
}

/** What a reader gets for each table: its rows in batches of JSON lines. */
export type RowVisitor = (table: BackupTable, rows: string[]) => Promise<void>;

/** A batch of rows ends at this many characters too: a restore's memory does not follow its rows' sizes. */
const BATCH_LENGTH = 8 * 1024 * 1024;

/**
 * Reads a whole backup and checks it: gzip integrity, header, every table's row count, the
 * checksum and the HMAC in the last line. With `visit`, rows are handed over in batches as they
 * are read (a restore loads them); the trailer is only known at the end, so a visitor must be able
 * to throw its work away when this rejects. Errors are BackupFileError with one line.
 */
export async function readBackup(file: string, visit?: RowVisitor, batchSize = 1000): Promise<BackupHeader> {
  return (await readBackupFile(file, visit, { batchSize })).header;
}

/** readBackup, with the options a restore has (an unauthenticated file accepted on request). */
export async function readBackupFile(file: string, visit?: RowVisitor, { batchSize = 1000, unauthenticated = false, key = backupKey }: ReadOptions = {}): Promise<ReadResult> {
  await checkMagic(file);
  const hash = new ContentHash(key ?? null);
  let header: BackupHeader | undefined;
  let table = 0;
  let inTable = 0;
  let batch: string[] = [];
  let batchLength = 0;
  let trailer: string | undefined;
  const flush = async () => {
    if (visit && batch.length) await visit(header!.tables[table], batch);
    batch = [];
    batchLength = 0;
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
      if (visit) {
        batch.push(line);
        batchLength += line.length;
      }
      inTable++;
      if (batch.length >= batchSize || batchLength >= BATCH_LENGTH) await flush();
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
  let stated: { sha256?: unknown; hmac?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(trailer);
    if (parsed && typeof parsed === "object") stated = parsed as typeof stated;
  } catch {
    /* not JSON: refused below */
  }
  if (typeof stated.sha256 !== "string") throw new BackupFileError(`${file} is damaged (its last line is not a checksum)`);
  const actual = hash.digest();
  if (stated.sha256 !== actual.sha256) throw new BackupFileError(`${file} is corrupted (its checksum does not match its content)`);
  const authenticated = typeof stated.hmac === "string" && actual.hmac !== undefined && sameHex(stated.hmac, actual.hmac);
  if (!authenticated && !unauthenticated) {
    throw new BackupFileError(
      typeof stated.hmac !== "string"
        ? `${file} is not authenticated (it carries no HMAC: written before backups were signed, or edited): restore it only if you trust it, with --unauthenticated`
        : `${file} was edited or written under another backup key (its HMAC does not match BACKUP_KEY, or JWT_SECRET when BACKUP_KEY is unset): set the key it was written with, or restore it only if you trust it, with --unauthenticated`,
    );
  }
  return { header, authenticated };
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
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
