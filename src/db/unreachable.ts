// Whether an error says the database could not be reached (as opposed to a database that answered
// and refused a statement). Read from what Prisma 7 and @prisma/adapter-pg throw when PostgreSQL is
// stopped, restarted, frozen or out of connections (fixtures: test/fixtures/database-unreachable.json):
// - Prisma's own codes: P1001 (can't reach), P1002 (timed out), P1017 (server closed the
//   connection), P2024 (no connection from the pool in time);
// - the adapter's error kinds: DatabaseNotReachable (ECONNREFUSED, ENOTFOUND), ConnectionClosed
//   (ECONNRESET), SocketTimeout (ETIMEDOUT), TooManyConnections (53300);
// - PostgreSQL's SQLSTATEs: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now
//   (starting up, shutting down), class 08 (connection exceptions);
// - pg's own errors, which the adapter passes on untouched: "Connection terminated unexpectedly"
//   (a server killed under a query), "Connection terminated due to connection timeout" (a frozen
//   server), "timeout exceeded when trying to connect" (no pooled connection in time), "Query read
//   timeout" (no answer within DATABASE_QUERY_TIMEOUT_MS: a server frozen under an open connection);
// - Node's socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, EHOSTUNREACH, ...).

const PRISMA_CODES = new Set(["P1001", "P1002", "P1017", "P2024"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const PG_MESSAGES =
  /^(Connection terminated unexpectedly|Connection terminated due to connection timeout|timeout exceeded when trying to connect|Query read timeout|Connection terminated|Client has encountered a connection error and is not queryable)$/;

function unreachableCode(code: unknown): boolean {
  if (typeof code !== "string") return false;
  return PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}

/** Whether `err` (anywhere in its causes) says the database could not be reached. */
export function isDatabaseUnreachable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): boolean => {
    if (!value || typeof value !== "object" || depth > 6 || seen.has(value)) return false;
    seen.add(value);
    const v = value as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: unknown; errors?: unknown };
    if (unreachableCode(v.code) || unreachableCode(v.originalCode)) return true;
    if (typeof v.kind === "string" && ADAPTER_KINDS.has(v.kind)) return true;
    if (typeof v.message === "string" && PG_MESSAGES.test(v.message.trim())) return true;
    // Only where causes live: a value the statement carried is never read as a cause.
    return [v.cause, v.meta, (v.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError, ...(Array.isArray(v.errors) ? v.errors : [])].some(
      (child) => visit(child, depth + 1),
    );
  };
  return visit(err, 0);
}

/** host:port of a postgresql:// URL, without user or password (for operators' log lines). */
export function databaseAddress(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get("host") || "localhost";
    return `${host}:${u.port || "5432"}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
