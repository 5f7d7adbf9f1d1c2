// Starts of the embedded database as a separate process (test/helpers/openEmbedded.ts), optionally
// killed before the N-th write to the data folder (test/helpers/killAtWrite.mjs), and the checks
// that a database came through intact: for the kill sweep and the older-folder suites (issue 24).
import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { listMigrations } from "../../src/db/migrate.js";
import { READY_MARK } from "../../src/db/prepareEmbedded.js";
import { buildPgliteTemplate } from "./templates.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const preload = fileURLToPath(new URL("./killAtWrite.mjs", import.meta.url));
const exitWithParent = fileURLToPath(new URL("./exitWithParent.mjs", import.meta.url));
const opener = fileURLToPath(new URL("./openEmbedded.ts", import.meta.url));

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  /** Writes made to the data folder (by the process and its child). */
  writes: number;
  /** Each write: its number, the writing process and what it wrote to (test/helpers/killAtWrite.mjs). */
  log: Array<{ n: number; pid: number; path: string }>;
}

/** Opens the embedded database of dataDir as a start does, dying before write `killAt` (0: never). */
export function start(dataDir: string, killAt = 0): Promise<Run> {
  const counter = `${dataDir}.writes`;
  const log = `${dataDir}.log`;
  rmSync(counter, { force: true });
  rmSync(log, { force: true });
  const child = spawn(process.execPath, ["--import", "tsx", "--import", exitWithParent, "--import", preload, opener, join(dataDir, "pglite")], {
    cwd: root,
    env: { ...process.env, KILL_ROOT: dataDir, KILL_COUNTER: counter, KILL_LOG: log, KILL_AT: String(killAt) },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve) =>
    child.once("exit", (code, signal) =>
      resolve({
        code,
        signal,
        out,
        err,
        writes: existsSync(counter) ? statSync(counter).size : 0,
        log: existsSync(log)
          ? readFileSync(log, "utf8").trim().split("\n").map((line) => {
              const [n, pid, ...path] = line.split(" ");
              return { n: Number(n), pid: Number(pid), path: path.join(" ") };
            })
          : [],
      }),
    ),
  );
}

/** The player an older version's folder holds. */
export const PLAYER = { username: "ada", character: "archer" };
/** A password hash of the shape the server makes (a restore refuses others: src/backup/rowRules.ts); no password matches it. */
const PLAYER_HASH = `scrypt$1024$8$1$${"A".repeat(22)}$${"B".repeat(43)}`;

/** A folder made by an older version: every migration but the last two applied, PLAYER in it. */
export async function buildOlderFolder(dir: string): Promise<void> {
  const tarball = await buildPgliteTemplate(2);
  const db = await openDatabase({ pgliteDataDir: join(dir, "pglite"), pgliteLoadDataDir: new Blob([readFileSync(tarball)]) });
  await db.pglite!.query(`INSERT INTO users (username, password_hash, updated_at) VALUES ($1, $2, now())`, [PLAYER.username, PLAYER_HASH]);
  await db.pglite!.query(`INSERT INTO game_progress (user_id, character) SELECT id, $1 FROM users`, [PLAYER.character]);
  await db.close();
}

/** A copy of a folder (a DATA_DIR) made by buildOlderFolder. */
export function copyOf(folder: string, to: string): string {
  cpSync(folder, to, { recursive: true });
  return to;
}

/** Every migration applied, the seeded player (when given) there, a write works, the folder marked complete. */
export async function expectIntact(dataDir: string, seeded?: typeof PLAYER) {
  const db = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
  try {
    const applied = await db.pglite!.query<{ migration_name: string }>(
      "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name",
    );
    expect(applied.rows.map((r) => r.migration_name)).toEqual((await listMigrations()).migrationDirectories.map((m) => m.path));
    if (seeded) {
      const rows = await db.pglite!.query<{ username: string; character: string; session_epoch: number }>(
        "SELECT u.username, p.character, u.session_epoch FROM users u JOIN game_progress p ON p.user_id = u.id",
      );
      expect(rows.rows).toEqual([{ ...seeded, session_epoch: 0 }]);
    }
    await db.pglite!.query("INSERT INTO revoked_sessions (sid, subject, expires_at) VALUES ('s', 'u', now())");
  } finally {
    await db.close();
  }
  expect(existsSync(join(dataDir, "pglite", READY_MARK))).toBe(true);
}
