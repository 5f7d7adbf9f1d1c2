// A PostgreSQL server of the test's own (initdb into a temporary folder, pg_ctl on a free port), for
// tests that stop and start it under a running server: never the shared one. Needs PostgreSQL's
// binaries (pg_ctl on PATH, or under /usr/lib/postgresql/<version>/bin); run as root, the cluster
// belongs to the `postgres` user (initdb refuses root).
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./process.js";

/** The folder of PostgreSQL's server binaries, or undefined when there are none. */
export function postgresBinaries(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir && existsSync(join(dir, "pg_ctl")) && existsSync(join(dir, "initdb"))) return dir;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl"))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], "bin") : undefined;
}

export interface OwnPostgres {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  start(): void;
  /** pg_ctl stop -m fast: running statements are terminated (57P01), new connections refused. */
  stop(): void;
  /** Stops it (if running) and deletes its folder. */
  destroy(): void;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("no PostgreSQL binaries (pg_ctl, initdb) on this machine");
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "own-pg-"));
  const data = join(dir, "data");
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString()), Number(execFileSync("id", ["-g", "postgres"]).toString()));
  const run = (tool: string, args: string[]) =>
    execFileSync(root ? "runuser" : join(bin, tool), root ? ["-u", "postgres", "--", join(bin, tool), ...args] : args, { stdio: "pipe", timeout: 60_000 });
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const pg: OwnPostgres = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => void run("pg_ctl", ["-D", data, "-o", `-k ${dir} -p ${port} -h 127.0.0.1 -c fsync=off`, "-l", join(dir, "log"), "-w", "start"]),
    stop: () => void run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    destroy() {
      try {
        pg.stop();
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}
