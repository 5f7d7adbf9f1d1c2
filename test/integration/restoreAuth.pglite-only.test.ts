// Issue 41: a restore ends the authentication state from before it and never reuses an identity,
// loads only what it can trust, one restore at a time. Carol registers after the backup, Alice signs
// out after it; the backup is restored (into a new DATA_DIR: the documented restore after a loss, and
// over the folder: the replaced database is read first); Dave registers afterwards. Carol's old
// cookie never opens Dave's account, Alice's ended session stays ended, and every session from
// before the restore ends (GET /api/auth/me, /api/snakes/progress, a room's onAuth). What the
// replaced database had ended (an erased account, a revoked API key) is applied again and listed.
// On PostgreSQL (TEST_DATABASE_URL): two overlapping --replace restores, one refused, the content
// intact; a restore that fails puts back what it set aside. Runs once, on PGlite's project.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startApplication, type Application } from "../../src/app.js";
import { restoreBackup, RestoreRefusal, takeBackup, type BackupHeader } from "../../src/backup/index.js";
import { ContentHash, trailerLine } from "../../src/backup/format.js";
import { resolveRoomIdentity } from "../../src/auth/identity.js";
import { createApiKey, revokeApiKey } from "../../src/workspace/apiKeys.js";
import { createLogger } from "../../src/ops/logger.js";
import { HttpClient, testConfig } from "../helpers/app.js";
import { migratedDataDir } from "../helpers/process.js";
import { withDatabase } from "../helpers/templates.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const PASSWORD = "restore-auth-1";
const apps: Application[] = [];
afterAll(async () => {
  for (const app of apps) await app.stop().catch(() => {});
});

async function start(dataDir: string, databaseUrl?: string) {
  const app = await startApplication(testConfig({ dataDir, ...(databaseUrl ? { databaseUrl } : {}) }), { logger: createLogger("silent") });
  apps.push(app);
  const base = `http://127.0.0.1:${app.game.port}`;
  return { app, base, client: () => new HttpClient(base) };
}

async function stop(app: Application) {
  await app.stop();
  apps.splice(apps.indexOf(app), 1);
}

async function register(base: string, username: string) {
  const http = new HttpClient(base);
  const res = await http.post("/api/auth/register", { username, password: PASSWORD });
  expect(res.status, res.text).toBe(201);
  expect((await http.post("/api/snakes/", {})).status).toBe(201);
  return { http, id: res.body.user.id as number, cookie: http.cookieHeader };
}

/** What a cookie opens now: the account /api/auth/me names, /api/snakes/progress's status, a room's identity. */
async function opens(app: Application, base: string, cookie: string) {
  const http = new HttpClient(base, { cookie });
  const me = await http.get("/api/auth/me");
  const progress = await http.get("/api/snakes/progress");
  const room = await resolveRoomIdentity(app.ctx, cookie);
  return { me: me.status === 200 ? me.body.user.username : me.status, progress: progress.status, room: room.kind };
}

describe("a restore ends the sessions from before it and never reuses an identity", () => {
  it("after restoring an older backup: a signed-out cookie stays refused, a later account's cookie opens no other account", async () => {
    const dataDir = await migratedDataDir("snakes-restore-auth-");
    let { app, base } = await start(dataDir);
    const alice = await register(base, "alice");
    const bob = await register(base, "bob");
    const key = await createApiKey(app.ctx.prisma, "ci");
    const erasedLater = await register(base, "erin");
    const file = join(mkdtempSync(join(tmpdir(), "snakes-restore-auth-backups-")), "b.jsonl.gz");
    await takeBackup(app.ctx.db, file);

    // After the backup: Alice signs out, Carol registers, the key is revoked, Erin is erased (issue 42).
    expect((await alice.http.post("/api/auth/logout")).status).toBe(200);
    expect((await opens(app, base, alice.cookie)).me).toBe(401);
    const carol = await register(base, "carol");
    expect(await opens(app, base, carol.cookie)).toEqual({ me: "carol", progress: 200, room: "account" });
    expect((await revokeApiKey(app.ctx.prisma, key.api_key)).status).toBe("revoked");
    const created = await app.ctx.prisma.user.findUniqueOrThrow({ where: { id: erasedLater.id } });
    await app.ctx.prisma.$transaction([
      app.ctx.prisma.erasure.create({ data: { userId: created.id, userCreatedAt: created.createdAt } }),
      app.ctx.prisma.user.delete({ where: { id: created.id } }),
    ]);
    await stop(app);

    // The restore after a loss: a new DATA_DIR, nothing of the replaced database to read.
    const lost = mkdtempSync(join(tmpdir(), "snakes-restore-auth-lost-"));
    const fresh = await restoreBackup(file, { dataDir: lost });
    expect(fresh.authenticated).toBe(true);
    expect(fresh.auth).toMatchObject({ sessions_ended: "all", compared_with_replaced: false });
    ({ app, base } = await start(lost));
    const dave = await register(base, "dave");
    expect(dave.id).toBe(carol.id); // the loss case hands Carol's id out again: the token must not follow it
    expect(await opens(app, base, carol.cookie)).toEqual({ me: 401, progress: 401, room: "guest" });
    expect(await opens(app, base, alice.cookie)).toEqual({ me: 401, progress: 401, room: "guest" });
    expect(await opens(app, base, bob.cookie)).toEqual({ me: 401, progress: 401, room: "guest" });
    expect(await opens(app, base, dave.cookie)).toEqual({ me: "dave", progress: 200, room: "account" });
    const bobAgain = new HttpClient(base);
    expect((await bobAgain.post("/api/auth/login", { username: "bob", password: PASSWORD })).status).toBe(200);
    expect(await opens(app, base, bobAgain.cookieHeader)).toEqual({ me: "bob", progress: 200, room: "account" });
    await stop(app);

    // Over the folder: the replaced database is read first. Ids stay past the ones it handed out,
    // the erasure and the revocation are applied again, and what came back is listed.
    const over = await restoreBackup(file, { dataDir });
    expect(over.auth.compared_with_replaced).toBe(true);
    expect(over.auth.erasures_reapplied).toEqual([erasedLater.id]);
    expect(over.auth.api_key_revocations_reapplied).toEqual([key.api_key]);
    expect(over.auth.brought_back.accounts_deleted_since).toEqual({ count: 0, first: [] });
    expect(over.replaced).toMatch(/pglite\.replaced-/);
    ({ app, base } = await start(dataDir));
    const frank = await register(base, "frank");
    expect(frank.id).toBeGreaterThan(carol.id);
    expect(await opens(app, base, carol.cookie)).toEqual({ me: 401, progress: 401, room: "guest" });
    expect(await app.ctx.prisma.user.findUnique({ where: { id: erasedLater.id } })).toBeNull();
    expect(await app.ctx.prisma.erasure.count()).toBe(1);
    expect((await app.ctx.prisma.apiKey.findUniqueOrThrow({ where: { key: key.api_key } })).revokedAt).not.toBeNull();
    await stop(app);
    expect(readdirSync(dataDir).filter((n) => n.startsWith("pglite.replaced-"))).toHaveLength(1);
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.runIf(pgUrl)("PostgreSQL: one restore at a time, and a failed one puts back what it set aside", () => {
  const names: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    for (const n of names) await admin.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
    await admin.end();
  });

  async function database(): Promise<string> {
    const name = `snakes_restore_auth_${process.pid}_${names.length}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    names.push(name);
    return withDatabase(pgUrl!, name);
  }

  async function content(url: string) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const users = (await c.query<{ username: string }>(`SELECT username FROM users ORDER BY id`)).rows.map((r) => r.username);
      const schemas = (await c.query<{ n: string }>(`SELECT nspname AS n FROM pg_namespace WHERE nspname = 'public' OR nspname LIKE 'replaced\\_%' ORDER BY 1`)).rows.map((r) => r.n);
      return { users, schemas };
    } finally {
      await c.end();
    }
  }

  it("two overlapping --replace restores: the second is refused while the first runs, and the content is the backup's", async () => {
    const dataDir = await migratedDataDir("snakes-restore-pg-");
    const { app, base } = await start(dataDir);
    for (const n of ["pat", "quinn", "ray"]) await register(base, n);
    const file = join(mkdtempSync(join(tmpdir(), "snakes-restore-pg-backups-")), "b.jsonl.gz");
    await takeBackup(app.ctx.db, file);
    await stop(app);

    const url = await database();
    await restoreBackup(file, { dataDir, databaseUrl: url });
    const results = await Promise.allSettled([restoreBackup(file, { dataDir, databaseUrl: url }, { replace: true }), restoreBackup(file, { dataDir, databaseUrl: url }, { replace: true })]);
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused, JSON.stringify(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok")))).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(RestoreRefusal);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/another restore into .* is running/);
    const after = await content(url);
    expect(after.users).toEqual(["pat", "quinn", "ray"]);
    expect(after.schemas.filter((s) => s.startsWith("replaced_"))).toHaveLength(1);

    // A restore that fails while loading (a signed file whose rows the database refuses: one user
    // twice) puts back exactly what it set aside, and leaves no schema of its own behind.
    const lines = gunzipSync(readFileSync(file)).toString("utf8").trimEnd().split("\n");
    const header = JSON.parse(lines[0]) as BackupHeader;
    let at = 1;
    for (const t of header.tables) {
      if (t.name === "users") {
        lines.splice(at, 0, lines[at]); // the first user again: users_pkey refuses it
        t.rows++;
        break;
      }
      at += t.rows;
    }
    const body = [JSON.stringify(header), ...lines.slice(1, -1)];
    const hash = new ContentHash();
    for (const l of body) hash.update(l);
    const failing = join(dirname(file), "duplicate.jsonl.gz");
    writeFileSync(failing, gzipSync(`${[...body, trailerLine(hash.digest())].join("\n")}\n`));
    const before = await content(url);
    await expect(restoreBackup(failing, { dataDir, databaseUrl: url }, { replace: true })).rejects.toThrow(/users_pkey|duplicate key/);
    expect(await content(url)).toEqual(before);
  });
});
