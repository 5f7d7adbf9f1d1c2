// One Prisma Client over one of two engines: the embedded PGlite (default; a folder under DATA_DIR,
// or memory:// for tests) or a real PostgreSQL when DATABASE_URL is set. Same schema, same queries.
import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaClient } from "./generated/client.js";
import { acquireDataDirLock } from "./lock.js";

export { DatabaseInUseError } from "./lock.js";

export type { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** The driver adapter factory, shared with the schema engine for migrations. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: "pglite" | "postgres";
  /** Human-readable location, never containing a password. */
  describe: string;
  /** The PGlite instance when embedded (tests use it to dump a template). */
  pglite?: PGlite;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgresql://… for PostgreSQL; otherwise the embedded database. */
  databaseUrl?: string;
  /** Folder for the embedded database, or "memory://". */
  pgliteDataDir?: string;
  /** A tarball from PGlite's dumpDataDir() to start from (tests: an already-migrated template). */
  pgliteLoadDataDir?: Blob | File;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const adapterFactory = new PrismaPg({ connectionString: options.databaseUrl, max: 10 });
    const prisma = new PrismaClient({ adapter: adapterFactory });
    return {
      prisma,
      adapterFactory,
      kind: "postgres",
      describe: redactUrl(options.databaseUrl),
      close: () => prisma.$disconnect(),
    };
  }
  const dataDir = options.pgliteDataDir ?? "memory://";
  let release = () => {};
  if (!dataDir.startsWith("memory://")) {
    await mkdir(dataDir, { recursive: true });
    release = acquireDataDirLock(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir, options.pgliteLoadDataDir ? { loadDataDir: options.pgliteLoadDataDir } : {});
  } catch (err) {
    release();
    throw err;
  }
  const adapterFactory = new PrismaPGlite(withAdapterParsersMergedOnce(pglite));
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    prisma,
    adapterFactory,
    kind: "pglite",
    describe: `pglite:${dataDir}`,
    pglite,
    async close() {
      try {
        await prisma.$disconnect();
        if (!pglite.closed) await pglite.close();
      } finally {
        release();
      }
    },
  };
}

type QueryOptions = { parsers?: Record<string | number, unknown> } & Record<string, unknown>;

/**
 * The Prisma adapter hands PGlite its own type parsers with every query, and PGlite merges them
 * into its defaults on every call: a copy of the whole parser table, ~0.1 ms of a ~0.6 ms query.
 * Merged into the instance once instead, every query parses exactly as before, only cheaper. The
 * instance is the adapter's alone (nothing else queries it with other expectations).
 */
function withAdapterParsersMergedOnce(pglite: PGlite): PGlite {
  let merged: unknown = null;
  const once = (options?: QueryOptions): QueryOptions | undefined => {
    if (!options?.parsers) return options;
    if (merged !== options.parsers) {
      Object.assign(pglite.parsers, options.parsers);
      merged = options.parsers;
    }
    const { parsers: _merged, ...rest } = options;
    return rest;
  };
  type Query = (sql: string, params?: unknown[], options?: QueryOptions) => Promise<unknown>;
  const wrap = (query: Query): Query => (sql, params, options) => query(sql, params, once(options));
  const target = pglite as unknown as { query: Query; transaction: (fn: (tx: { query: Query }) => Promise<unknown>) => Promise<unknown> };
  target.query = wrap(target.query.bind(pglite));
  const transaction = target.transaction.bind(pglite);
  target.transaction = (fn) =>
    transaction((tx) => {
      tx.query = wrap(tx.query.bind(tx));
      return fn(tx);
    });
  return pglite;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
