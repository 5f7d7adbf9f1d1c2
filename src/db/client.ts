// One Prisma Client over one of two engines: the embedded PGlite (default; a folder under DATA_DIR,
// or memory:// for tests) or a real PostgreSQL when DATABASE_URL is set. Same schema, same queries.
import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaClient, type Prisma } from "./generated/client.js";
import { acquireDataDirLock } from "./lock.js";
import { observeDbQuery } from "../metrics.js";

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
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    // Loaded only for PostgreSQL: the embedded database never needs pg.
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const adapterFactory = new PrismaPg({ connectionString: options.databaseUrl, max: 10 });
    const prisma = timed(new PrismaClient({ adapter: adapterFactory, log: QUERY_EVENTS }));
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
    pglite = await PGlite.create(dataDir, {
      startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ["-c", setting])],
      ...(options.pgliteLoadDataDir ? { loadDataDir: options.pgliteLoadDataDir } : {}),
    });
  } catch (err) {
    release();
    throw err;
  }
  const adapterFactory = new PrismaPGlite(pglite);
  const prisma = timed(new PrismaClient({ adapter: adapterFactory, log: QUERY_EVENTS }));
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

/** Every SQL statement's duration goes to the db_query_duration_seconds metric. */
const QUERY_EVENTS: Prisma.LogDefinition[] = [{ emit: "event", level: "query" }];

function timed(prisma: PrismaClient): PrismaClient {
  (prisma as unknown as PrismaClient<"query">).$on("query", (event) => observeDbQuery(event.query, event.duration));
  return prisma;
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
