// Reading the whole database at one instant, on either engine, as JSON lines both can load.
// PostgreSQL: a connection of its own in a REPEATABLE READ READ ONLY transaction, so the server's
// queries go on beside it and nothing is blocked; PostgreSQL renders the rows (row_to_json).
// PGlite (one connection): one transaction; it reads with COPY, PostgreSQL's fastest way out (a
// third of row_to_json's time). The rows are handed to the writer a chunk at a time while the
// snapshot stays open (withSnapshot), so memory does not follow the data's size (issue 41); only
// an in-memory database that serves meanwhile is read whole first (PgliteReadMode).
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Database } from "../db/client.js";
import type { BackupTable } from "./format.js";

/** What a query needs, on PGlite (a transaction) and on pg (a client) alike. */
export interface Sql {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface Snapshot {
  at: string;
  migrations: string[];
  /** Every table with its number of rows (known before any row is read: the file's header says it). */
  tables: BackupTable[];
  /**
   * A table's rows as chunks of JSON lines (no final newline), in order: each table once, in the
   * order of `tables`. Read a chunk, write a chunk: no more than a chunk is held (issue 41).
   */
  rows(table: BackupTable): AsyncIterable<string>;
}

/** A snapshot used by `use`, and how long the database was held for it, ms. */
export interface SnapshotResult<T> {
  value: T;
  heldMs: number;
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The migration table is not data: a restore rebuilds it with the schema engine. */
const MIGRATIONS_TABLE = "_prisma_migrations";

export interface CatalogTable {
  name: string;
  columns: string[];
  /** Each column's type as PostgreSQL names it (format_type). */
  types: string[];
  /** The primary key's columns. */
  key: string[];
}

/** The tables of the current schema with their columns and primary key, parents before children. */
export async function catalog(sql: Sql): Promise<CatalogTable[]> {
  const { rows } = await sql.query<{ name: string; columns: string[]; types: string[]; key: string[] | null }>(
    `SELECT c.relname AS name,
            (SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
            (SELECT array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum) FROM pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS types,
            (SELECT array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum)) FROM pg_index i
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
              WHERE i.indrelid = c.oid AND i.indisprimary) AS key
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> $1
      ORDER BY c.relname`,
    [MIGRATIONS_TABLE],
  );
  const { rows: references } = await sql.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint f
       JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class p ON p.oid = f.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE f.contype = 'f' AND n.nspname = current_schema()`,
  );
  return parentsFirst(rows.map((r) => ({ name: r.name, columns: r.columns, types: r.types, key: r.key ?? [] })), references);
}

/**
 * The tables ordered so that every table comes after those its foreign keys point to: a restore
 * loads them in the file's order, and each row's references exist when it arrives.
 */
export function parentsFirst<T extends { name: string }>(tables: T[], references: Array<{ child: string; parent: string }>): T[] {
  const ordered: T[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const byName = new Map(tables.map((t) => [t.name, t]));
  const place = (t: T) => {
    if (placed.has(t.name) || visiting.has(t.name)) return; // a cycle (none in our schema) keeps the name order
    visiting.add(t.name);
    for (const r of references) {
      const parent = r.child === t.name && r.parent !== t.name ? byName.get(r.parent) : undefined;
      if (parent) place(parent);
    }
    visiting.delete(t.name);
    placed.add(t.name);
    ordered.push(t);
  };
  tables.forEach(place);
  return ordered;
}

/** The migrations applied (finished, not rolled back), in order. */
export async function appliedMigrations(sql: Sql): Promise<string[]> {
  const { rows: present } = await sql.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE]);
  if (!present[0]?.present) return [];
  const { rows } = await sql.query<{ name: string }>(
    `SELECT migration_name AS name FROM ${MIGRATIONS_TABLE} WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
  );
  return rows.map((r) => r.name);
}

/** Rows per statement on PostgreSQL (keyset chunks: a table's text stays far below PostgreSQL's 1 GB per value). */
export const CHUNK_ROWS = 2000;
/**
 * Heap pages per statement on PGlite (~2000 rows of ours): a statement's time is a block of the
 * event loop there (it runs in this thread). Page ranges (a TID range scan) read ~2x faster than
 * key-ordered chunks, and the database is held for the whole snapshot.
 */
export const CHUNK_PAGES = 16;

/** One chunk of a table's rows from `from` (where the previous chunk ended; undefined: the start); `next` undefined: the table is done. */
type ReadChunk = (t: CatalogTable, from: string | undefined) => Promise<{ n: number; text: string; next: string | undefined }>;

type CountedTable = CatalogTable & { rows: number };

/**
 * What the snapshot holds, read inside the caller's snapshot transaction: its instant, migrations,
 * and every table with its rows counted (the file's header comes before the rows).
 */
async function describeSnapshot(sql: Sql): Promise<{ at: string; migrations: string[]; tables: CountedTable[] }> {
  // The first statement takes the snapshot: this instant is what the backup represents.
  const { rows } = await sql.query<{ at: Date | string }>(`SELECT clock_timestamp() AS at`);
  const at = new Date(rows[0].at).toISOString();
  const migrations = await appliedMigrations(sql);
  const tables: CountedTable[] = [];
  for (const t of await catalog(sql)) {
    const { rows: counted } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quoteIdent(t.name)}`);
    tables.push({ ...t, rows: counted[0].n });
  }
  return { at, migrations, tables };
}

/**
 * A table's rows, a chunk per statement, inside the snapshot transaction, the event loop turning
 * between chunks; a count that differs from the header's is an error (never a file that lies).
 */
async function* streamTable(t: CountedTable, readChunk: ReadChunk, yieldLoop: () => Promise<void>, toJsonLines: (text: string) => string): AsyncGenerator<string> {
  let read = 0;
  let after: string | undefined;
  for (;;) {
    const chunk = await readChunk(t, after);
    if (chunk.n > 0) {
      read += chunk.n;
      yield toJsonLines(chunk.text);
    }
    after = chunk.next;
    if (after === undefined) break;
    await yieldLoop();
  }
  if (read !== t.rows) throw new Error(`table ${t.name} gave ${read} rows in the snapshot that counted ${t.rows}`);
}

/** Hands out each table's rows once, in the catalog's order (the writer's order). */
function rowsOf(tables: CountedTable[], stream: (t: CountedTable) => AsyncIterable<string>): Snapshot["rows"] {
  return (table) => {
    const t = tables.find((x) => x.name === table.name);
    if (!t) throw new Error(`no table ${table.name} in the snapshot`);
    return stream(t);
  };
}

const publicTables = (tables: CountedTable[]): BackupTable[] => tables.map(({ name, columns, types, rows }) => ({ name, columns, types, rows }));

/** PostgreSQL's chunk: the next CHUNK_ROWS by the table's one-column key, or (the workspace's small link tables) the whole table. */
function chunkQuery(t: CatalogTable, after: string | undefined): string {
  if (t.key.length !== 1) return `SELECT * FROM ${quoteIdent(t.name)}${t.key.length ? ` ORDER BY ${t.key.map(quoteIdent).join(", ")}` : ""}`;
  const key = quoteIdent(t.key[0]);
  return `SELECT * FROM ${quoteIdent(t.name)}${after === undefined ? "" : ` WHERE ${key} > ${quoteLiteral(after)}`} ORDER BY ${key} LIMIT ${CHUNK_ROWS}`;
}

export const quoteLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** PostgreSQL renders JSON lines itself (string_agg of row_to_json): no per-row round trip through JavaScript. */
const readJsonChunk =
  (sql: Sql): ReadChunk =>
  async (t, after) => {
    const key = t.key.length === 1 ? `max(_r.${quoteIdent(t.key[0])})::text` : "NULL";
    const { rows } = await sql.query<{ n: number; text: string | null; last: string | null }>(
      `SELECT count(*)::int AS n, string_agg(row_to_json(_r)::text, E'\\n') AS text, ${key} AS last FROM (${chunkQuery(t, after)}) _r`,
    );
    const done = t.key.length !== 1 || rows[0].n < CHUNK_ROWS;
    return { n: rows[0].n, text: rows[0].text ?? "", next: done ? undefined : (rows[0].last ?? undefined) };
  };

/**
 * PGlite: COPY's text format into a Blob, the fastest way out; made JSON later (copyTextToJsonLines).
 * A chunk is a range of the table's heap pages (`from` is the first page); the table's size is
 * read in the snapshot, and pages beyond it hold nothing the snapshot sees.
 */
const readCopyChunk = (tx: Transaction): ReadChunk => {
  const pages = new Map<string, number>();
  return async (t, from) => {
    if (from === undefined) {
      const { rows } = await tx.query<{ pages: number }>(`SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS pages`, [quoteIdent(t.name)]);
      pages.set(t.name, rows[0].pages);
    }
    const first = Number(from ?? 0);
    const end = first + CHUNK_PAGES;
    const result = await tx.query(`COPY (SELECT * FROM ${quoteIdent(t.name)} WHERE ctid >= '(${first},0)'::tid AND ctid < '(${end},0)'::tid) TO '/dev/blob'`);
    const text = result.blob ? await result.blob.text() : "";
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    const n = body === "" ? 0 : body.split("\n").length;
    return { n, text: body, next: end < pages.get(t.name)! ? String(end) : undefined };
  };
};

/** Session settings that make the text of values unambiguous for any server that loads them. */
const PORTABLE_OUTPUT = [`SET LOCAL DateStyle = 'ISO, YMD'`, `SET LOCAL extra_float_digits = 1`, `SET LOCAL bytea_output = 'hex'`, `SET LOCAL IntervalStyle = 'postgres'`];

/**
 * How much work runs between turns of the event loop while the snapshot holds PGlite (every query
 * waits for its end anyway): turns as often as rooms need to tick, no more. Each turn serves what
 * arrived meanwhile, and with 200 players writing a turn after every chunk stretched the hold from
 * ~0.6 s to ~6 s at 10,000 accounts (loadtest/backup.ts).
 */
export const TURN_EVERY_MS = 25;

/** Lets the event loop turn once `everyMs` of work have passed since the last turn. */
function turnsOfTheLoop(everyMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < everyMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const JSON_TYPES = new Set(["json", "jsonb"]);

/**
 * COPY text lines → JSON lines of the same row: every value as a JSON string of its PostgreSQL
 * text (json_populate_recordset feeds a string to the column type's own input, so arrays,
 * timestamps and floats come back exact), NULL as null, and json/jsonb columns embedded as the
 * JSON they are (a string there would stay a string).
 */
export function copyTextToJsonLines(text: string, columns: string[], types: string[]): string {
  if (text === "") return "";
  const names = columns.map((c) => `${JSON.stringify(c)}:`);
  const isJson = types.map((t) => JSON_TYPES.has(t));
  return text
    .split("\n")
    .map((line) => {
      const fields = line.split("\t");
      if (fields.length !== columns.length) throw new Error(`COPY gave ${fields.length} fields for ${columns.length} columns`);
      let out = "{";
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i];
        out += (i ? "," : "") + names[i] + (f === "\\N" ? "null" : isJson[i] ? unescapeCopy(f) : JSON.stringify(unescapeCopy(f)));
      }
      return `${out}}`;
    })
    .join("\n");
}

const COPY_ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/** A value of COPY's text format, unescaped (backslash sequences: \\b \\f \\n \\r \\t \\v, octal, \\x hex, any other character itself). */
export function unescapeCopy(field: string): string {
  if (!field.includes("\\")) return field;
  return field.replace(/\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))/gs, (_m, octal: string | undefined, hex: string | undefined, ch: string | undefined) => {
    if (octal !== undefined) return String.fromCharCode(parseInt(octal, 8));
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    return COPY_ESCAPES[ch!] ?? ch!;
  });
}

/**
 * How the embedded database is read:
 *  - "streaming" (the reader's private copy, a start before it serves): the transaction stays open
 *    while `use` writes the file, a chunk read and written at a time, so memory stays flat whatever
 *    the data's size;
 *  - "buffered" (an in-memory database that serves meanwhile): the COPY text is read into memory
 *    under the hold, which is then released, and turned into JSON lines and written chunk by chunk
 *    afterwards (the hold stays as short as the read; only databases that live in memory anyway).
 */
export type PgliteReadMode = "streaming" | "buffered";

/** The whole database at one instant, used by `use` (which writes it): PostgreSQL or PGlite. */
export async function withSnapshot<T>(db: Database, use: (snapshot: Snapshot) => Promise<T>, pgliteMode: PgliteReadMode = "streaming"): Promise<SnapshotResult<T>> {
  if (db.kind === "pglite") return withPgliteSnapshot(db.pglite!, use, pgliteMode);
  return withPostgresSnapshot(db.connectionString!, use);
}

/** The embedded database at one instant through `pglite` (one transaction holds it meanwhile). */
export async function withPgliteSnapshot<T>(pglite: PGlite, use: (snapshot: Snapshot) => Promise<T>, mode: PgliteReadMode = "streaming"): Promise<SnapshotResult<T>> {
  let heldMs = 0;
  if (mode === "streaming") {
    const value = await pglite.transaction(async (tx: Transaction) => {
      const started = performance.now();
      try {
        await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
        for (const setting of PORTABLE_OUTPUT) await tx.query(setting);
        const described = await describeSnapshot(tx);
        const readChunk = readCopyChunk(tx);
        const turns = turnsOfTheLoop(TURN_EVERY_MS);
        return await use({
          at: described.at,
          migrations: described.migrations,
          tables: publicTables(described.tables),
          rows: rowsOf(described.tables, (t) => streamTable(t, readChunk, turns, (text) => copyTextToJsonLines(text, t.columns, t.types))),
        });
      } finally {
        heldMs = performance.now() - started;
      }
    });
    return { value, heldMs };
  }
  const read = await pglite.transaction(async (tx: Transaction) => {
    const started = performance.now();
    try {
      await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      for (const setting of PORTABLE_OUTPUT) await tx.query(setting);
      const described = await describeSnapshot(tx);
      const readChunk = readCopyChunk(tx);
      const turns = turnsOfTheLoop(TURN_EVERY_MS);
      const chunks = new Map<string, string[]>();
      for (const t of described.tables) {
        const texts: string[] = [];
        for await (const text of streamTable(t, readChunk, turns, (x) => x)) texts.push(text);
        chunks.set(t.name, texts);
        await turns();
      }
      return { ...described, chunks };
    } finally {
      heldMs = performance.now() - started;
    }
  });
  // Off the database's time: COPY text to JSON lines a chunk at a time, each let go once handed out.
  async function* converted(t: CountedTable): AsyncGenerator<string> {
    const texts = read.chunks.get(t.name)!;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      texts[i] = "";
      yield copyTextToJsonLines(text, t.columns, t.types);
      await turnOfTheLoop();
    }
  }
  const value = await use({ at: read.at, migrations: read.migrations, tables: publicTables(read.tables), rows: rowsOf(read.tables, converted) });
  return { value, heldMs };
}

async function withPostgresSnapshot<T>(connectionString: string, use: (snapshot: Snapshot) => Promise<T>): Promise<SnapshotResult<T>> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString, application_name: "snakes-backup" });
  await client.connect();
  try {
    const started = performance.now();
    // REPEATABLE READ READ ONLY: the server's queries go on beside it, nothing waits for it.
    await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    try {
      const sql = client as unknown as Sql;
      for (const setting of PORTABLE_OUTPUT) await sql.query(setting);
      const described = await describeSnapshot(sql);
      const readChunk = readJsonChunk(sql);
      const value = await use({
        at: described.at,
        migrations: described.migrations,
        tables: publicTables(described.tables),
        rows: rowsOf(described.tables, (t) => streamTable(t, readChunk, async () => {}, (text) => text)),
      });
      return { value, heldMs: performance.now() - started };
    } finally {
      await client.query(`ROLLBACK`).catch(() => {});
    }
  } finally {
    await client.end();
  }
}
