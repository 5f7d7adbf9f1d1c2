// The classifier of an unreachable database, on the errors Prisma 7 + @prisma/adapter-pg really
// throw when PostgreSQL is stopped, restarting, shutting down, frozen or out of pooled connections
// (captured by scripts/capture-database-errors.ts into test/fixtures/database-unreachable.json).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { databaseAddress, isDatabaseUnreachable } from "../../src/db/unreachable.js";
import { classifyError, databaseInputProblem } from "../../src/http/errorHandler.js";
import { isStorageFull } from "../../src/process/storageHealth.js";
import { joinRefusal, DATABASE_UNAVAILABLE_JOIN } from "../../src/rooms/kit/join.js";
import { ServerError } from "@colyseus/core";
import type { Logger } from "../../src/ops/logger.js";
import type { Request } from "express";

type Captured = { __class: string; name: string; message: string; cause?: Captured } & Record<string, unknown>;
const captured = JSON.parse(readFileSync(new URL("../fixtures/database-unreachable.json", import.meta.url), "utf8")) as Record<string, Captured>;

/** The captured error as an Error again (its class name, message, fields and causes). */
function revive(c: Captured): Error {
  const { __class, message, cause, ...fields } = c;
  const err = Object.assign(new Error(message, cause ? { cause: revive(cause) } : undefined), fields);
  if (fields.meta && typeof fields.meta === "object") {
    const meta = fields.meta as { driverAdapterError?: Captured };
    if (meta.driverAdapterError) (err as unknown as { meta: unknown }).meta = { ...meta, driverAdapterError: revive(meta.driverAdapterError) };
  }
  Object.defineProperty(err, "name", { value: c.name ?? __class });
  return err;
}

const unreachable = [
  "inflight_fast_stop_queryRaw", // 57P01 terminating connection due to administrator command
  "after_stop_queryRaw", // P2010 wrapping DatabaseNotReachable
  "after_stop_findUnique", // P1001
  "after_stop_batch_tx",
  "after_stop_interactive_tx",
  "after_stop_executeRaw",
  "smart_stopping_new_connection", // 57P03 the database system is shutting down
  "inflight_immediate_stop", // pg: Connection terminated unexpectedly
  "frozen_new_connection_timeout", // pg: Connection terminated due to connection timeout
  "pool_wait_timeout", // pg-pool: timeout exceeded when trying to connect
];

const silent = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as unknown as Logger;
const request = { requestId: "r", method: "PUT", path: "/x" } as Request;

describe("isDatabaseUnreachable", () => {
  it("the fixtures cover every captured case", () => {
    expect(Object.keys(captured).sort()).toEqual([...unreachable, "data_error_22P02"].sort());
  });

  it.each(unreachable)("%s is an unreachable database, answered 503 database_unavailable without driver text", (name) => {
    const err = revive(captured[name]);
    expect(isDatabaseUnreachable(err)).toBe(true);
    expect(isStorageFull(err)).toBe(false);
    expect(databaseInputProblem(err)).toBeUndefined();
    const answer = classifyError(err, silent, request);
    expect([answer?.status, answer?.code, answer?.details?.retry_after_s]).toEqual([503, "database_unavailable", 5]);
    expect(JSON.stringify(answer)).not.toMatch(/55433|127\.0\.0\.1|prisma|Invalid|terminat/i);
    const refusal = joinRefusal(err) as ServerError;
    expect(refusal).toBeInstanceOf(ServerError);
    expect([refusal.code, refusal.message]).toEqual([503, DATABASE_UNAVAILABLE_JOIN]);
  });

  it("a database that answered with a refusal (a data error) is not unreachable", () => {
    const err = revive(captured.data_error_22P02);
    expect(isDatabaseUnreachable(err)).toBe(false);
    expect(classifyError(err, silent, request)?.code).not.toBe("database_unavailable");
    expect(joinRefusal(err)).toBe(err);
  });

  it("socket errors, class 08 SQLSTATEs and Prisma's connection codes; not other errors", () => {
    const socket = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", syscall: "connect", errno: -111 });
    expect(isDatabaseUnreachable(socket)).toBe(true);
    expect(isDatabaseUnreachable({ code: "08006", message: "connection failure" })).toBe(true);
    expect(isDatabaseUnreachable({ name: "PrismaClientKnownRequestError", code: "P2024" })).toBe(true);
    expect(isDatabaseUnreachable({ name: "PrismaClientKnownRequestError", code: "P1017" })).toBe(true);
    // pg's query_timeout (DATABASE_QUERY_TIMEOUT_MS): a server frozen under an open connection.
    expect(isDatabaseUnreachable(Object.assign(new Error("Query read timeout"), { clientVersion: "7.10.1" }))).toBe(true);
    expect(isDatabaseUnreachable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnreachable({ code: "P2002" })).toBe(false);
    expect(isDatabaseUnreachable({ code: "53100" })).toBe(false); // disk full: storage_full, not this
    expect(isDatabaseUnreachable(undefined)).toBe(false);
    // A statement's own values are never read as its cause.
    expect(isDatabaseUnreachable({ code: "P2010", meta: { target: { code: "ECONNREFUSED" } } })).toBe(false);
  });

  it("databaseAddress names host:port without credentials", () => {
    expect(databaseAddress("postgresql://u:secret@db.example:6543/app?sslmode=require")).toBe("db.example:6543");
    expect(databaseAddress("postgresql://db.example/app")).toBe("db.example:5432");
  });
});
