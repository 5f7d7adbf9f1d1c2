// Where the chaos suite (test/chaos) finds the servers it starts, stops and kills itself: a
// redis-server, and PostgreSQL's initdb and postgres. REDIS_SERVER and POSTGRES_BIN (the folder of
// initdb and postgres) say it; else the PATH, Debian's /usr/lib/postgresql/<version>/bin (newest
// first) and /usr/local. Without them the suite is skipped (scripts/test.mjs says so).
import { existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

const onPath = (name) => (process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, name)).find((p) => existsSync(p));

/** @returns {string | undefined} the redis-server binary */
export function findRedisServer() {
  const fromEnv = process.env.REDIS_SERVER;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return onPath("redis-server") ?? ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p));
}

/** @returns {string | undefined} the folder holding initdb and postgres */
export function findPostgresBin() {
  const has = (dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));
  const fromEnv = process.env.POSTGRES_BIN;
  if (fromEnv) return has(fromEnv) ? fromEnv : undefined;
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => join(debian, v, "bin"))
    : [];
  const initdb = onPath("initdb");
  const candidates = [...versions, "/usr/local/pgsql/bin", "/usr/local/bin", ...(initdb ? [join(initdb, "..")] : [])];
  return candidates.find(has);
}

/** Why the chaos suite cannot run here, or undefined when it can. */
export function chaosUnavailable() {
  const missing = [];
  if (!findRedisServer()) missing.push("redis-server (apt-get install redis-server, or set REDIS_SERVER)");
  if (!findPostgresBin()) missing.push("PostgreSQL's initdb and postgres (apt-get install postgresql, or set POSTGRES_BIN)");
  return missing.length ? `no ${missing.join(" and no ")}` : undefined;
}

/** @returns {string | undefined} nginx, for the deploy behind docs/deploy/nginx.conf (test/chaos/nginxDeploy.test.ts); NGINX says where */
export function findNginx() {
  const fromEnv = process.env.NGINX;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return onPath("nginx") ?? ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"].find((p) => existsSync(p));
}
