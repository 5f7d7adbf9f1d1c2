// Issue 34: the restore drill. Players write; a backup is taken while they go on, through the admin
// command into the running server; the server is killed and its folder removed; the backup is
// restored; every write acknowledged before the backup began is there and every account logs in.
// Then the same across engines, both ways, on CI's PostgreSQL (TEST_DATABASE_URL: a database of its
// own); unusable files and targets refused in one line with the folder untouched; a backup made at
// an older migration restored and migrated. Runs once (on PGlite's project): it makes its own
// databases of both kinds.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runAdmin } from "../../src/admin/main.js";
import { restoreBackup, takeBackup } from "../../src/backup/index.js";
import { ContentHash, trailerLine } from "../../src/backup/format.js";
import { openDatabase } from "../../src/db/client.js";
import { hashPassword, usePasswordHashCost } from "../../src/auth/passwords.js";
import { listMigrations } from "../../src/db/migrate.js";
import { bootEntry, freePort, migratedDataDir, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";
import { buildPgliteTemplate, withDatabase } from "../helpers/templates.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const pgUrl = process.env.TEST_DATABASE_URL;
const running: ServerProcess[] = [];
const databases: string[] = [];
const PASSWORD = "backup-drill-1";
const ACCOUNTS = 12;

// Kept outside DATA_DIR, as production's JWT_SECRET is: the drill's restores come after the folder is gone (issue 41).
const BACKUP_KEY = "backup-drill-key-0123456789abcdefghijklmnop";
const serverEnv = async (db: Record<string, string>) => ({
  BACKUP_KEY,
  PORT: String(await freePort()),
  SAMPLE_PORT: "0",
  LOG_LEVEL: "warn",
  PASSWORD_HASH_COST: "1024",
  RATE_LIMIT_WRITES: "100000/1m",
  ...db,
});

/** `npm run admin -- args…` in-process, as the operator runs it (adminLive.pglite-only.test.ts). */
async function admin(args: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: { NODE_ENV: "development", PASSWORD_HASH_COST: "1024", BACKUP_KEY, ...env }, out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stdout, stderr, lines: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
}

/** A refusal: exit 2, one line on stderr (no stack), nothing on stdout. */
function expectRefusal(res: Awaited<ReturnType<typeof admin>>, pattern: RegExp): void {
  expect(res.code, res.stderr).toBe(2);
  expect(res.stdout).toBe("");
  expect(res.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(res.stderr).toMatch(pattern);
}

/** Every file and folder under `dir` with its content: equal before and after means untouched. */
function treeHash(dir: string): string {
  const h = createHash("sha256");
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const st = statSync(full);
      h.update(`${rel}/${name}:${st.isDirectory() ? "d" : st.size}\n`);
      if (st.isDirectory()) walk(full, `${rel}/${name}`);
      else h.update(readFileSync(full));
    }
  };
  walk(dir, "");
  return h.digest("hex");
}

interface Player {
  username: string;
  http: HttpClient;
  /** Each acknowledged write: the value written and when its answer arrived. */
  acks: Array<{ value: number; at: number }>;
}

/** A client per account, each from an address of its own (the login limit is per address). */
const clientFor = (base: string, i: number) => new HttpClient(base, { "x-forwarded-for": `203.0.113.${i + 1}` });

async function register(base: string, count: number): Promise<Player[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const username = `drill_${i}`;
      const http = clientFor(base, i);
      const res = await http.post("/api/auth/register", { username, password: PASSWORD });
      expect(res.status, res.text).toBe(201);
      expect((await http.post("/api/snakes/", {})).status).toBe(201);
      return { username, http, acks: [] };
    }),
  );
}

/** Every player saves its time played, one higher each time, until `stop` resolves; every write must succeed. */
function writeUntil(players: Player[], stop: Promise<void>): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  return Promise.all(
    players.map(async (p) => {
      for (let value = 1; !stopped; value++) {
        const res = await p.http.put("/api/snakes/", { time_played: value });
        expect(res.status, res.text).toBe(200);
        p.acks.push({ value, at: Date.now() });
      }
    }),
  ).then(() => {});
}

/** Resolves once every player has had `n` writes acknowledged (the writers are going). */
async function acknowledged(players: Player[], n: number): Promise<void> {
  while (players.some((p) => p.acks.length < n)) await new Promise((r) => setImmediate(r));
}

/** Every account logs in with its password, and holds at least what was acknowledged before `before`. */
async function expectServed(base: string, players: Player[], before: number): Promise<void> {
  for (const [i, p] of players.entries()) {
    const http = clientFor(base, i + 100);
    const login = await http.post("/api/auth/login", { username: p.username, password: PASSWORD });
    expect(login.status, `${p.username}: ${login.text}`).toBe(200);
    const progress = await http.get("/api/snakes/");
    expect(progress.status).toBe(200);
    const acked = Math.max(0, ...p.acks.filter((a) => a.at < before).map((a) => a.value));
    expect(progress.body.time_played, p.username).toBeGreaterThanOrEqual(acked);
    expect(progress.body.time_played).toBeLessThanOrEqual(p.acks.at(-1)!.value);
  }
}

async function createDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  databases.push(name);
  return withDatabase(pgUrl!, name);
}

let backupDir: string;
let drill: { file: string; players: Player[]; startedAt: number; registry: unknown[] };
/** Workspace registry entries: rows with jsonb columns (run_config, exec_config). */
const fixtures = join(process.cwd(), "test/fixtures/registry/workspaces");

beforeAll(() => {
  backupDir = mkdtempSync(join(tmpdir(), "snakes-backups-"));
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
  if (pgUrl && databases.length) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
    await client.end();
  }
});

describe("the restore drill on the embedded database", () => {
  let dataDir: string;

  it("a backup taken through the running server while players write restores every acknowledged write", async () => {
    dataDir = await migratedDataDir("snakes-backup-drill-");
    const { proc, base } = await bootEntry(await serverEnv({ DATA_DIR: dataDir }), running);
    const players = await register(base, ACCOUNTS);
    expect((await admin(["import-registry", fixtures], { DATA_DIR: dataDir })).code).toBe(0);
    const registry = (await admin(["list-registry"], { DATA_DIR: dataDir })).lines;
    expect(registry.length).toBeGreaterThan(0);
    let stop!: () => void;
    const writers = writeUntil(players, new Promise<void>((r) => (stop = r)));
    await acknowledged(players, 3);

    const file = join(backupDir, "drill.jsonl.gz");
    const startedAt = Date.now();
    const backup = await admin(["backup", "--out", file], { DATA_DIR: dataDir });
    const acksDuring = players.reduce((n, p) => n + p.acks.filter((a) => a.at > startedAt).length, 0);
    stop();
    await writers;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.lines).toHaveLength(1);
    const summary = backup.lines[0];
    expect(summary).toMatchObject({ file, engine: "pglite", bytes: statSync(file).size, rows: expect.objectContaining({ users: ACCOUNTS, game_progress: ACCOUNTS }) });
    expect(summary.sha256).toBe(createHash("sha256").update(readFileSync(file)).digest("hex"));
    expect(Date.parse(summary.at)).toBeGreaterThanOrEqual(startedAt - 1000);
    // No partial file was left beside it, and the players were served while it ran.
    expect(readdirSync(backupDir)).toEqual(["drill.jsonl.gz"]);
    expect(acksDuring).toBeGreaterThan(0);

    await proc.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    const restored = await admin(["restore", file], { DATA_DIR: dataDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.lines[0]).toMatchObject({ engine: "pglite", from: "pglite", at: summary.at, applied: [], rows: summary.rows });
    expect(restored.lines[0].replaced).toBeUndefined();

    const again = await bootEntry(await serverEnv({ DATA_DIR: dataDir }), running);
    await expectServed(again.base, players, startedAt);
    drill = { file, players, startedAt, registry };
    expect((await admin(["list-registry"], { DATA_DIR: dataDir })).lines).toEqual(registry);

    // A restore into the folder the server holds is refused, and touches nothing.
    const before = readdirSync(dataDir).sort();
    expectRefusal(await admin(["restore", file], { DATA_DIR: dataDir }), /in use by a running server \(pid \d+\): stop it before restoring/);
    expect(readdirSync(dataDir).sort()).toEqual(before);
    await again.proc.stop("SIGTERM");
  });

  it("truncated, corrupted, foreign and misfitting files are refused in one line (exit 2), the folder untouched", async () => {
    const whole = readFileSync(drill.file);
    const truncated = join(backupDir, "truncated.jsonl.gz");
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const corrupted = join(backupDir, "corrupted.jsonl.gz");
    const flipped = Buffer.from(whole);
    flipped[Math.floor(whole.length / 2)] ^= 0x10;
    writeFileSync(corrupted, flipped);
    const foreign = join(backupDir, "foreign.jsonl.gz");
    writeFileSync(foreign, gzipSync("-- PostgreSQL database dump\nCREATE TABLE users (id int);\n"));
    const text = join(backupDir, "notes.txt");
    writeFileSync(text, "not a backup\n");

    // Whole and checksummed, but its rows do not fit the schema of its migration: found only once
    // the restore has built that schema, which is then thrown away.
    const lines = gunzipSync(whole).toString("utf8").trimEnd().split("\n").slice(0, -1);
    const header = JSON.parse(lines[0]);
    header.tables.find((t: { name: string }) => t.name === "users").columns.push("nickname");
    lines[0] = JSON.stringify(header);
    const hash = new ContentHash();
    for (const line of lines) hash.update(line);
    const misfit = join(backupDir, "misfit.jsonl.gz");
    writeFileSync(misfit, gzipSync(`${[...lines, trailerLine(hash.digest())].join("\n")}\n`));

    const before = treeHash(dataDir);
    expectRefusal(await admin(["restore", misfit], { DATA_DIR: dataDir }), /misfit\.jsonl\.gz does not fit the schema of its own migration .*users has no column nickname/);
    expectRefusal(await admin(["restore", truncated], { DATA_DIR: dataDir }), /truncated\.jsonl\.gz is truncated/);
    expectRefusal(await admin(["restore", corrupted], { DATA_DIR: dataDir }), /corrupted\.jsonl\.gz is (truncated or corrupted|corrupted)/);
    expectRefusal(await admin(["restore", foreign], { DATA_DIR: dataDir }), /foreign\.jsonl\.gz is not a backup of this server/);
    expectRefusal(await admin(["restore", text], { DATA_DIR: dataDir }), /notes\.txt is not a backup of this server \(not gzip data\)/);
    expect(treeHash(dataDir)).toBe(before);
    expect(existsSync(join(dataDir, "pglite.restoring"))).toBe(false);
    // Nor is a DATA_DIR that does not exist yet created for a file that is refused.
    const nowhere = join(backupDir, "never-created");
    expectRefusal(await admin(["restore", corrupted], { DATA_DIR: nowhere }), /corrupted/);
    expect(existsSync(nowhere)).toBe(false);
  });

  it("a backup of a stopped server's database goes beside DATA_DIR by default; a restore over it keeps the one it replaces, and says where", async () => {
    const backup = await admin(["backup"], { DATA_DIR: dataDir });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.lines[0].file).toMatch(new RegExp(`^${dataDir}-backups/snakes-backup-\\d{8}T\\d{6}Z\\.jsonl\\.gz$`));
    expect(backup.lines[0].rows.users).toBe(ACCOUNTS);
    expect(existsSync(backup.lines[0].file)).toBe(true);
    const res = await admin(["restore", drill.file], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    const replaced = res.lines[0].replaced as string;
    expect(replaced).toMatch(/pglite\.replaced-\d{8}T\d{6}Z$/);
    expect(existsSync(join(replaced, "PG_VERSION"))).toBe(true);
    expect(res.stderr).toContain(replaced);
  });

  it("a backup made at an older migration restores, then migrates as a start would", async () => {
    usePasswordHashCost(1024);
    const older = mkdtempSync(join(tmpdir(), "snakes-backup-older-"));
    const db = await openDatabase({ pgliteDataDir: join(older, "pglite"), pgliteLoadDataDir: new Blob([readFileSync(await buildPgliteTemplate(1))]) });
    const file = join(backupDir, "older.jsonl.gz");
    try {
      await db.pglite!.query(`INSERT INTO users (username, password_hash, updated_at) VALUES ('old_timer', $1, now())`, [await hashPassword(PASSWORD)]);
      const summary = await takeBackup(db, file);
      const all = (await listMigrations()).migrationDirectories.map((m) => m.path);
      expect(summary.migration).toBe(all.at(-2));
    } finally {
      await db.close();
    }
    const target = mkdtempSync(join(tmpdir(), "snakes-backup-older-restored-"));
    const res = await admin(["restore", file], { DATA_DIR: target });
    expect(res.code, res.stderr).toBe(0);
    const latest = (await listMigrations()).migrationDirectories.at(-1)!.path;
    expect(res.lines[0].applied).toEqual([latest]);
    const { proc, base } = await bootEntry(await serverEnv({ DATA_DIR: target }), running);
    const login = await clientFor(base, 200).post("/api/auth/login", { username: "old_timer", password: PASSWORD });
    expect(login.status, login.text).toBe(200);
    // A new account gets the next id: the sequences were set past the rows loaded.
    expect((await clientFor(base, 201).post("/api/auth/register", { username: "newcomer", password: PASSWORD })).status).toBe(201);
    await proc.stop("SIGTERM");
  });
});

describe("a backup of many chunks", () => {
  it("reads tables of many heap-page chunks whole, updated rows once, and restores them equal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "snakes-backup-chunks-"));
    const db = await openDatabase({ pgliteDataDir: join(dir, "pglite"), pgliteLoadDataDir: new Blob([readFileSync(await buildPgliteTemplate())]) });
    const fingerprint = `SELECT count(*)::int AS n, md5(string_agg(u::text, ',' ORDER BY u.id)) AS sum FROM users u`;
    let source: unknown;
    const file = join(backupDir, "chunks.jsonl.gz");
    try {
      await db.pglite!.exec(`
        INSERT INTO users (username, password_hash, updated_at) SELECT 'many_' || i, 'scrypt$1024$8$1$' || substr(md5(i::text), 1, 22) || '$' || md5((i * 3)::text) || md5(i::text), now() FROM generate_series(1, 6000) i;
        UPDATE users SET session_epoch = 1 WHERE id % 3 = 0;  -- new versions of rows on later pages, old ones dead
        DELETE FROM users WHERE id % 7 = 0;`);
      const pages = await db.pglite!.query<{ p: number }>(`SELECT (pg_relation_size('users') / 8192)::int AS p`);
      expect(pages.rows[0].p).toBeGreaterThan(4 * 16);
      source = (await db.pglite!.query(fingerprint)).rows[0];
      const summary = await takeBackup(db, file);
      expect(summary.rows.users).toBe((source as { n: number }).n);
    } finally {
      await db.close();
    }
    const target = join(dir, "restored");
    await restoreBackup(file, { dataDir: target });
    const restored = await openDatabase({ pgliteDataDir: join(target, "pglite") });
    try {
      expect((await restored.pglite!.query(fingerprint)).rows[0]).toEqual(source);
    } finally {
      await restored.close();
    }
  });
});

describe.skipIf(!pgUrl)("the move between the embedded database and PostgreSQL", () => {
  let url: string;
  let pgBackup: string;
  /** DATA_DIR still names a folder with PostgreSQL (the development JWT secret): one of the test's own. */
  let sideDir: string;

  it("an embedded backup restored into an empty PostgreSQL serves every account and every acknowledged write", async () => {
    url = await createDatabase(`snakes_backup_${process.pid}`);
    sideDir = mkdtempSync(join(tmpdir(), "snakes-pg-datadir-"));
    const res = await admin(["restore", drill.file], { DATABASE_URL: url, DATA_DIR: sideDir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.lines[0]).toMatchObject({ engine: "postgres", from: "pglite", applied: [] });
    expect(res.lines[0].into).toMatch(/^postgresql:\/\//);
    const { proc, base } = await bootEntry(await serverEnv({ DATABASE_URL: url, DATA_DIR: sideDir }), running);
    await expectServed(base, drill.players, drill.startedAt);
    expect((await admin(["list-registry"], { DATABASE_URL: url, DATA_DIR: sideDir })).lines).toEqual(drill.registry);

    // A backup of PostgreSQL while it serves: the command connects itself, on a connection of its own.
    pgBackup = join(backupDir, "postgres.jsonl.gz");
    const backup = await admin(["backup", "--out", pgBackup], { DATABASE_URL: url, DATA_DIR: sideDir });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.lines[0]).toMatchObject({ engine: "postgres", rows: expect.objectContaining({ users: ACCOUNTS }) });
    await proc.stop("SIGTERM");
  });

  it("a non-empty PostgreSQL is refused without --replace, and replaced with it (its schema kept aside)", async () => {
    expectRefusal(await admin(["restore", drill.file], { DATABASE_URL: url, DATA_DIR: sideDir }), /is not empty .*add --replace/);
    const res = await admin(["restore", pgBackup, "--replace"], { DATABASE_URL: url, DATA_DIR: sideDir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.lines[0].replaced).toMatch(/^schema replaced_\d{8}t\d{6}z$/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const schema = (res.lines[0].replaced as string).slice("schema ".length);
      const kept = await client.query(`SELECT count(*)::int AS n FROM "${schema}".users`);
      expect(kept.rows[0].n).toBe(ACCOUNTS);
      expect((await client.query(`SELECT count(*)::int AS n FROM users`)).rows[0].n).toBe(ACCOUNTS);
    } finally {
      await client.end();
    }
  });

  it("a PostgreSQL backup restored into a new DATA_DIR serves every account and every acknowledged write", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "snakes-from-pg-")), "data");
    const res = await admin(["restore", pgBackup], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.lines[0]).toMatchObject({ engine: "pglite", from: "postgres" });
    const { proc, base } = await bootEntry(await serverEnv({ DATA_DIR: dataDir }), running);
    await expectServed(base, drill.players, drill.startedAt);
    expect((await admin(["list-registry"], { DATA_DIR: dataDir })).lines).toEqual(drill.registry);
    await proc.stop("SIGTERM");
  });
});
