// Reading the whole database at one instant, on either engine, through SQL both understand.
// PostgreSQL: a connection of its own in a REPEATABLE READ READ ONLY transaction, so the server's
// queries go on beside it and nothing is blocked. PGlite (one connection, in this process): one
// transaction that holds the connection as briefly as possible; the server's queries wait behind it
// (the pause docs/backups.md measures).
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
  tables: Array<BackupTable & { lines: string }>;
  /** How long the database was held for the snapshot, ms. */
  heldMs: number;
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The migration table is not data: a restore rebuilds it with the schema engine. */
const MIGRATIONS_TABLE = "_prisma_migrations";

/** The tables of the current schema with their columns and primary key, by name. */
export async function catalog(sql: Sql): Promise<Array<{ name: string; columns: string[]; key: string[] }>> {
  const { rows } = await sql.query<{ name: string; columns: string[]; key: string[] | null }>(
    `SELECT c.relname AS name,
            (SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
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
  return parentsFirst(rows.map((r) => ({ name: r.name, columns: r.columns, key: r.key ?? [] })), references);
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

/** Rows per statement: a statement's time is a block of the event loop on PGlite (it runs in this thread). */
export const CHUNK_ROWS = 2000;

/**
 * Everything, read inside the caller's snapshot transaction. PostgreSQL itself renders the rows as
 * JSON lines and joins them (string_agg), a chunk of rows per statement: no per-row round trip
 * through JavaScript, which is what makes it fast on PGlite. Chunks follow the primary key
 * (keyset), and between them the event loop turns: on PGlite, rooms keep ticking while the
 * snapshot is read (the database's other queries wait for its end).
 */
async function readAll(sql: Sql, yieldLoop: () => Promise<void>): Promise<Omit<Snapshot, "heldMs">> {
  // The first statement takes the snapshot: this instant is what the backup represents.
  const { rows } = await sql.query<{ at: Date | string }>(`SELECT clock_timestamp() AS at`);
  const at = new Date(rows[0].at).toISOString();
  const migrations = await appliedMigrations(sql);
  const tables: Snapshot["tables"] = [];
  for (const t of await catalog(sql)) {
    const parts: string[] = [];
    let count = 0;
    if (t.key.length === 1) {
      const key = quoteIdent(t.key[0]);
      let last: string | null = null;
      for (;;) {
        const page: string = `SELECT * FROM ${quoteIdent(t.name)}${last === null ? "" : ` WHERE ${key} > $1`} ORDER BY ${key} LIMIT ${CHUNK_ROWS}`;
        const { rows: data }: { rows: Array<{ n: number; lines: string | null; last: string | null }> } = await sql.query(
          `SELECT count(*)::int AS n, string_agg(row_to_json(_r)::text, E'\\n' ORDER BY _r.${key}) AS lines, max(_r.${key})::text AS last FROM (${page}) _r`,
          last === null ? [] : [last],
        );
        if (data[0].n > 0) parts.push(data[0].lines!);
        count += data[0].n;
        last = data[0].last;
        if (data[0].n < CHUNK_ROWS) break;
        await yieldLoop();
      }
    } else {
      // No single-column key (the workspace's link tables, small): in one statement.
      const order = t.key.length ? ` ORDER BY ${t.key.map((k) => `_r.${quoteIdent(k)}`).join(", ")}` : "";
      const { rows: data } = await sql.query<{ n: number; lines: string | null }>(
        `SELECT count(*)::int AS n, string_agg(row_to_json(_r)::text, E'\\n'${order}) AS lines FROM ${quoteIdent(t.name)} _r`,
      );
      if (data[0].n > 0) parts.push(data[0].lines!);
      count = data[0].n;
    }
    tables.push({ name: t.name, columns: t.columns, rows: count, lines: parts.join("\n") });
    await yieldLoop();
  }
  return { at, migrations, tables };
}

const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The whole database at one instant. */
export async function readSnapshot(db: Database): Promise<Snapshot> {
  if (db.kind === "pglite") return readPgliteSnapshot(db.pglite!);
  return readPostgresSnapshot(db.connectionString!);
}

async function readPgliteSnapshot(pglite: PGlite): Promise<Snapshot> {
  let heldMs = 0;
  const snapshot = await pglite.transaction(async (tx: Transaction) => {
    const started = performance.now();
    try {
      await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      return await readAll(tx, turnOfTheLoop);
    } finally {
      heldMs = performance.now() - started;
    }
  });
  return { ...snapshot, heldMs };
}

async function readPostgresSnapshot(connectionString: string): Promise<Snapshot> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString, application_name: "snakes-backup" });
  await client.connect();
  try {
    const started = performance.now();
    await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    try {
      const snapshot = await readAll(client, async () => {});
      return { ...snapshot, heldMs: performance.now() - started };
    } finally {
      await client.query(`ROLLBACK`).catch(() => {});
    }
  } finally {
    await client.end();
  }
}
