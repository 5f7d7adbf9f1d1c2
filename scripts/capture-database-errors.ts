// Captures what Prisma 7 + @prisma/adapter-pg throw when PostgreSQL goes away, into
// test/fixtures/database-unreachable.json (read by test/unit/databaseUnreachable.test.ts). Run it
// again after upgrading Prisma or pg, against a PostgreSQL of your own that it may stop and start
// (never a shared one), migrated (`DATABASE_URL=… npm run db:migrate`), as a user allowed to run pg_ctl:
//   CAPTURE_PGDATA=/tmp/pg CAPTURE_PORT=55433 node --import tsx scripts/capture-database-errors.ts
import { execSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../src/db/generated/client.js";

const pgdata = process.env.CAPTURE_PGDATA ?? "/tmp/pg-capture";
const port = process.env.CAPTURE_PORT ?? "55433";
const pgCtlPath = process.env.CAPTURE_PG_CTL ?? "runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl";
const url = `postgresql://postgres@127.0.0.1:${port}/test`;
const pgctl = (args: string) => execSync(`${pgCtlPath} -D ${pgdata} ${args}`, { stdio: "pipe" }).toString();
const start = () => pgctl(`-o "-k /tmp -p ${port} -h 127.0.0.1" -l ${pgdata}.log -w start`);

function plain(err: any, depth = 0): any {
  if (err === null || typeof err !== "object" || depth > 6) return err;
  const out: any = {};
  if (err instanceof Error) { out.__class = err.constructor?.name; out.name = err.name; out.message = err.message; }
  for (const k of Object.getOwnPropertyNames(err)) { if (k === "stack") continue; out[k] = plain(err[k], depth + 1); }
  if ("cause" in err && !out.cause) out.cause = plain(err.cause, depth + 1);
  return out;
}
const results: Record<string, any> = {};
async function grab(name: string, fn: () => Promise<unknown>) {
  const t = Date.now();
  try { await fn(); results[name] = { ok: true, ms: Date.now() - t }; }
  catch (e) { results[name] = { ms: Date.now() - t, error: plain(e) }; }
  console.log(name, JSON.stringify(results[name]).slice(0, 400));
}

const adapter = new PrismaPg({ connectionString: url, max: 10, connectionTimeoutMillis: 2000 });
const prisma = new PrismaClient({ adapter });
await prisma.$queryRaw`SELECT 1`;
await Promise.all([1,2,3].map(() => prisma.$queryRaw`SELECT 1`));
// in-flight query while stopping -m fast: 57P01 admin_shutdown
const slow = grab("inflight_fast_stop_queryRaw", () => prisma.$queryRaw`SELECT pg_sleep(5)`);
await new Promise((r) => setTimeout(r, 300));
pgctl("-m fast -w stop");
await slow;
// idle pooled connection killed: next query on it
await grab("after_stop_queryRaw", () => prisma.$queryRaw`SELECT 1`);
await grab("after_stop_findUnique", () => prisma.user.findUnique({ where: { id: 1 } }));
await grab("after_stop_batch_tx", () => prisma.$transaction([prisma.user.count(), prisma.user.count()]));
await grab("after_stop_interactive_tx", () => prisma.$transaction(async (tx) => tx.user.count()));
await grab("after_stop_executeRaw", () => prisma.$executeRaw`UPDATE users SET id = id WHERE false`);
start();
await grab("after_restart_queryRaw", () => prisma.$queryRaw`SELECT 1`);
await grab("after_restart_queryRaw2", () => prisma.$queryRaw`SELECT 1`);
// smart stop with a session open: new connections get 57P03
const holder = spawn("psql", ["-h", "127.0.0.1", "-p", port, "-U", "postgres", "test", "-c", "select pg_sleep(4)"], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 500));
const prisma2 = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10, connectionTimeoutMillis: 2000 }) });
const stopping = new Promise<void>((r) => { const c = spawn("sh", ["-c", `${pgCtlPath} -D ${pgdata} -m smart -w stop`], { stdio: "ignore" }); c.on("exit", () => r()); });
await new Promise((r) => setTimeout(r, 500));
await grab("smart_stopping_new_connection", () => prisma2.$queryRaw`SELECT 1`);
await stopping; holder.kill();
start();
// immediate stop: connection reset
const slow2 = grab("inflight_immediate_stop", () => prisma.$queryRaw`SELECT pg_sleep(5)`);
await new Promise((r) => setTimeout(r, 300));
pgctl("-m immediate -w stop");
await slow2;
start();
await prisma.$queryRaw`SELECT 1`;
// SIGSTOP the postmaster + backends: connect/query timeout
const prisma3 = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2, connectionTimeoutMillis: 1500 }) });
const pid = execSync(`head -1 ${pgdata}/postmaster.pid`).toString().trim();
execSync(`kill -STOP ${pid}`);
await grab("frozen_new_connection_timeout", () => prisma3.$queryRaw`SELECT 1`);
execSync(`kill -CONT ${pid}`);
await prisma3.$queryRaw`SELECT 1`;
// pool exhausted: a waiting checkout times out
await grab("pool_wait_timeout", () => Promise.all([prisma3.$queryRaw`SELECT pg_sleep(2.5)`, prisma3.$queryRaw`SELECT pg_sleep(2.5)`, prisma3.$queryRaw`SELECT 1`]));
// a real data error, for contrast (not unreachable)
await grab("data_error_22P02", () => prisma.$queryRawUnsafe("SELECT 'x'::int"));
const fixtures = Object.fromEntries(Object.entries(results).flatMap(([k, v]) => (v.error ? [[k, v.error]] : [])));
writeFileSync(new URL("../test/fixtures/database-unreachable.json", import.meta.url), JSON.stringify(fixtures, null, 2).replaceAll(process.cwd() + "/", "") + "\n");
await prisma.$disconnect(); await prisma2.$disconnect(); await prisma3.$disconnect();
process.exit(0);
