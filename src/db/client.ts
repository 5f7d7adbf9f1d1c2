// One Prisma Client over one of two engines: the embedded PGlite (default; a folder under DATA_DIR,
// or memory:// for tests) or a real PostgreSQL when DATABASE_URL is set. Same schema, same queries.
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaClient, type Prisma } from "./generated/client.js";
import { acquireDataDirLock } from "./lock.js";
import { observeDbQuery } from "../ops/metrics.js";
import { isDatabaseUnreachable } from "./unreachable.js";

export { DatabaseInUseError } from "./lock.js";

export type { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** The driver adapter factory, shared with the schema engine for migrations. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: "pglite" | "postgres";
  /** Human-readable location, never containing a password. */
  describe: string;
  /** The PGlite instance when embedded (tests use it to dump a template; backups hold it). */
  pglite?: PGlite;
  /** The embedded database's folder (absolute; undefined in memory): backups copy it. */
  dataDir?: string;
  /** PostgreSQL only: the DATABASE_URL, for work that needs a connection of its own (a backup's snapshot). */
  connectionString?: string;
  /**
   * Tells `reach` the outcome of every statement (PostgreSQL only: the embedded database cannot
   * become unreachable): `answered` when the server answered (even with a refusal), `unreachable`
   * when it could not be reached. src/db/health.ts turns these into the dependency's state.
   */
  watch(reach: DatabaseReach): void;
  close(): Promise<void>;
}

export interface DatabaseReach {
  answered(): void;
  unreachable(err: unknown): void;
}

/**
 * How long a query waits for a connection (a new one to PostgreSQL, or a free one of the pool), and
 * for its answer, before it fails: pg's default is forever, so a frozen or blackholed server hung
 * every request. The failure is answered 503 database_unavailable like a refused connection. The
 * server's queries take milliseconds; migrations (which may take long) use a pool without the read
 * timeout.
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 5000;
export const DATABASE_QUERY_TIMEOUT_MS = 10_000;

/**
 * PostgreSQL settings of the embedded database. Its shared buffers live in the Wasm heap, which
 * never shrinks: PGlite's default (160 MB, sized for a server with many connections) was most of
 * an idle server's memory. One connection and a database of a few tens of MB need far less, and
 * a buffer miss is a read from the OS page cache. The buffer cache is only a cache: every commit
 * still goes to the WAL before it is acknowledged, so durability is unchanged.
 */
export const EMBEDDED_SETTINGS = ["shared_buffers=8MB"];

export interface DatabaseOptions {
  /** postgresql://… for PostgreSQL; otherwise the embedded database. */
  databaseUrl?: string;
  /** Folder for the embedded database, or "memory://". */
  pgliteDataDir?: string;
  /** A tarball from PGlite's dumpDataDir() to start from (tests: an already-migrated template). */
  pgliteLoadDataDir?: Blob | File;
  /** The caller holds the folder's lock (src/db/prepareEmbedded.ts) and releases it itself. */
  lockHeld?: boolean;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    // Loaded only for PostgreSQL: the embedded database never needs pg.
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const watchers: DatabaseReach[] = [];
    const pool = { connectionString: options.databaseUrl, max: 10, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS };
    const adapter = watched(new PrismaPg({ ...pool, query_timeout: DATABASE_QUERY_TIMEOUT_MS }), {
      answered: () => watchers.forEach((w) => w.answered()),
      unreachable: (err) => watchers.forEach((w) => w.unreachable(err)),
    });
    // For the schema engine (migrations): no read timeout. Connects only when migrations run.
    const adapterFactory = new PrismaPg(pool);
    const prisma = timed(new PrismaClient({ adapter, log: QUERY_EVENTS }));
    return {
      prisma,
      adapterFactory,
      kind: "postgres",
      describe: redactUrl(options.databaseUrl),
      connectionString: options.databaseUrl,
      watch: (reach) => void watchers.push(reach),
      close: () => prisma.$disconnect(),
    };
  }
  const dataDir = options.pgliteDataDir ?? "memory://";
  let release = () => {};
  if (!dataDir.startsWith("memory://")) {
    await mkdir(dataDir, { recursive: true });
    if (!options.lockHeld) release = acquireDataDirLock(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir, {
      startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])],
      ...(options.pgliteLoadDataDir ? { loadDataDir: options.pgliteLoadDataDir } : {}),
    });
  } catch (err) {
    release();
    throw err;
  }
  const writes = new WriteNotices();
  const adapterFactory = new PrismaPGlite(instrumentForAdapter(pglite, writes));
  const prisma = timed(new PrismaClient({ adapter: adapterFactory, log: QUERY_EVENTS }));
  writeNotices.set(prisma, writes);
  return {
    prisma,
    adapterFactory,
    kind: "pglite",
    describe: `pglite:${dataDir}`,
    pglite,
    ...(dataDir.startsWith("memory://") ? {} : { dataDir: resolve(dataDir) }),
    watch: () => {},
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

/** The adapter's calls that reach the server: their outcome says whether it answers. */
const REACHING = new Set<PropertyKey>(["connect", "queryRaw", "executeRaw", "executeScript", "startTransaction", "commit", "rollback"]);

/**
 * The adapter factory, its adapters and their transactions, each call of REACHING reporting its
 * outcome to `reach` (what it returns is watched the same way: factory → adapter → transaction).
 * One place that sees every statement, so the first one that succeeds after an outage ends it.
 */
function watched<T extends object>(target: T, reach: DatabaseReach): T {
  return new Proxy(target, {
    get(obj, key) {
      const value = Reflect.get(obj, key, obj) as unknown;
      if (typeof value !== "function" || !REACHING.has(key)) return value;
      return async (...args: unknown[]) => {
        let result: unknown;
        try {
          result = await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
        } catch (err) {
          if (isDatabaseUnreachable(err)) reach.unreachable(err);
          else reach.answered();
          throw err;
        }
        reach.answered();
        return result && typeof result === "object" ? watched(result, reach) : result;
      };
    },
  });
}

/** Every SQL statement's duration goes to the db_query_duration_seconds metric. */
const QUERY_EVENTS: Prisma.LogDefinition[] = [{ emit: "event", level: "query" }];

function timed(prisma: PrismaClient): PrismaClient {
  (prisma as unknown as PrismaClient<"query">).$on("query", (event) => observeDbQuery(event.query, event.duration));
  return prisma;
}

/**
 * Embedded database only: every statement that may have written (anything but a plain SELECT), once
 * it is committed, is announced to the listeners, in the async context of the code that ran it.
 * PGlite belongs to this one process (the data folder is locked), so nothing else writes behind
 * these notices: an in-process cache can rely on them (src/stores/progress.ts does).
 */
export class WriteNotices {
  private readonly listeners: Array<(sql: string) => void> = [];

  listen(fn: (sql: string) => void): void {
    this.listeners.push(fn);
  }

  notify(sql: string): void {
    for (const fn of this.listeners) fn(sql);
  }
}

const writeNotices = new WeakMap<object, WriteNotices>();

/** The write notices of an embedded database's client; undefined for PostgreSQL (other processes write too). */
export function writeNoticesOf(prisma: PrismaClient): WriteNotices | undefined {
  return writeNotices.get(prisma);
}

const READ_ONLY = /^\s*SELECT\b/i;

type QueryOptions = { parsers?: Record<string | number, unknown> } & Record<string, unknown>;
type Query = (sql: string, params?: unknown[], options?: QueryOptions) => Promise<unknown>;

/**
 * The PGlite the Prisma adapter talks to, with two changes:
 * - The adapter hands PGlite its own type parsers with every query, and PGlite merges them into its
 *   defaults on every call: a copy of the whole parser table, ~0.1 ms of a ~0.6 ms query. Merged
 *   into the instance once instead, every query parses exactly as before, only cheaper (the
 *   instance is the adapter's alone).
 * - Statements that may write are announced (WriteNotices) when they are committed: at once outside
 *   a transaction, when the transaction commits inside one.
 */
function instrumentForAdapter(pglite: PGlite, writes: WriteNotices): PGlite {
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
  const target = pglite as unknown as {
    query: Query;
    exec: (sql: string, options?: QueryOptions) => Promise<unknown>;
    transaction: (fn: (tx: { query: Query; exec: (sql: string) => Promise<unknown> }) => Promise<unknown>) => Promise<unknown>;
  };
  const query = target.query.bind(pglite);
  target.query = async (sql, params, options) => {
    try {
      return await query(sql, params, once(options));
    } finally {
      if (!READ_ONLY.test(sql)) writes.notify(sql);
    }
  };
  const exec = target.exec.bind(pglite);
  target.exec = async (sql, options) => {
    try {
      return await exec(sql, options);
    } finally {
      writes.notify(sql);
    }
  };
  const transaction = target.transaction.bind(pglite);
  target.transaction = async (fn) => {
    const written: string[] = [];
    try {
      return await transaction((tx) => {
        const txQuery = tx.query.bind(tx);
        tx.query = (sql, params, options) => {
          if (!READ_ONLY.test(sql)) written.push(sql);
          return txQuery(sql, params, once(options));
        };
        const txExec = tx.exec.bind(tx);
        tx.exec = (sql) => {
          written.push(sql);
          return txExec(sql);
        };
        return fn(tx);
      });
    } finally {
      for (const sql of written) writes.notify(sql);
    }
  };
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
