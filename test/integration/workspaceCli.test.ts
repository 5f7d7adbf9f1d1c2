// The admin command on the same database as the server (a DATA_DIR with the embedded database, or
// DATABASE_URL on PostgreSQL). The commands' behaviour is tested in-process through runAdmin (the
// entry's own code, with its environment and output captured); the wiring of the process entry
// (`npm run --silent admin`, exit status, stdout holding results only) and the lock between processes
// are tested on real child processes.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { openDatabase, type Database } from "../../src/db/client.js";
import { authenticateApiKey } from "../../src/workspace/apiKeys.js";
import { entrySha } from "../../src/workspace/registry.js";
import { startApplication, type Application } from "../../src/app.js";
import { createLogger } from "../../src/ops/logger.js";
import { runAdmin } from "../../src/admin/main.js";
import { HttpClient, testConfig } from "../helpers/app.js";
import { withDatabase } from "../helpers/templates.js";
import { migratedDataDir } from "../helpers/process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = join(root, "test/fixtures/registry");
const postgres = process.env.TEST_DB === "postgres";
// A child process opens the database afresh (~2 s, more on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

let dataDir: string;
let databaseUrl: string | undefined;
let dropDatabase = async () => {};

beforeAll(async () => {
  if (postgres) {
    dataDir = mkdtempSync(join(tmpdir(), "snakes-admin-"));
    const url = process.env.TEST_DATABASE_URL!;
    const name = `snakes_cli_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject("postgresTemplate")}"`);
    await admin.end();
    databaseUrl = withDatabase(url, name);
    dropDatabase = async () => {
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    };
  } else {
    dataDir = await migratedDataDir("snakes-admin-");
  }
});
afterAll(async () => {
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: any[];
}

/** The environment a command sees: the test's, pointed at this file's database. */
function commandEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, NODE_ENV: "development" };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

function parsedLines(stdout: string): any[] {
  return stdout.split("\n").filter(Boolean).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return l;
    }
  });
}

/** A command run as a child process (`command args…`), as scripts run it. */
function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: commandEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, lines: parsedLines(stdout) }));
  });
}

/** `npm run admin -- args…` in-process: the same code, without a process start per command. */
async function admin(...args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: commandEnv(), out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`) });
  return { code, stdout, stderr, lines: parsedLines(stdout) };
}

/** The process entry itself: `node --import tsx src/admin/cli.ts args…` (what `npm run admin` runs). */
const adminProcess = (...args: string[]) => run(process.execPath, ["--import", "tsx", "src/admin/cli.ts", ...args]);

/** Opens the same database the command uses (embedded: only while no command runs). */
async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl, pgliteDataDir: join(dataDir, "pglite") });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe("usage", () => {
  it("prints help on stdout and exits 0", async () => {
    const res = await admin("--help");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: npm run --silent admin -- <command>/);
    for (const command of ["create-api-key", "list-api-keys", "revoke-api-key", "import-registry", "list-registry", "publish-registry"]) {
      expect(res.stdout).toContain(command);
    }
  });

  it.each([
    [["drop-database"], /unknown command "drop-database"/],
    [["create-api-key"], /needs --name NAME/],
    [["create-api-key", "--name", "a", "--admin"], /Unknown option '--admin'/],
    [["revoke-api-key"], /needs --api-key KEY/],
    [["import-registry"], /takes one PATH/],
    [["list-registry", "--version", "latest"], /--version must look like 1\.14\.2/],
    [["list-registry", "--architecture", "x86"], /--architecture must be one of amd64, arm64/],
  ])("refuses %j with exit 2, the reason on stderr and nothing on stdout", async (args, message) => {
    const res = await admin(...args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr).toMatch(message);
  });
});

describe("API keys", () => {
  it("create-api-key prints exactly one JSON line with the pair (through npm run --silent, as scripts call it)", async () => {
    const res = await run("npm", ["run", "--silent", "admin", "--", "create-api-key", "--name", "deploy script"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.endsWith("\n")).toBe(true);
    expect(res.stdout.trimEnd().split("\n")).toHaveLength(1);
    const pair = JSON.parse(res.stdout);
    expect(Object.keys(pair)).toEqual(["api_key", "api_key_secret"]);
    expect(res.stderr).toMatch(/not shown again/);
    expect(res.stderr).not.toContain(pair.api_key_secret);
    await withDb(async (db) => {
      const stored = await db.prisma.apiKey.findUniqueOrThrow({ where: { key: pair.api_key } });
      expect(stored.name).toBe("deploy script");
      expect(stored.secretHash).not.toContain(pair.api_key_secret);
      expect(await authenticateApiKey(db.prisma, pair.api_key, pair.api_key_secret)).toBe(stored.id);
      expect(await authenticateApiKey(db.prisma, pair.api_key, "wrong")).toBeUndefined();
    });
  });

  it("list-api-keys shows keys without secrets; revoke-api-key revokes once and reports unknown keys", async () => {
    const created = (await admin("create-api-key", "--name", "to revoke")).lines[0];
    const listed = await admin("list-api-keys");
    expect(listed.code).toBe(0);
    const entry = listed.lines.find((l) => l.api_key === created.api_key);
    expect(entry).toEqual({ api_key: created.api_key, name: "to revoke", created: expect.any(String), last_used: null, revoked: null });
    expect(listed.stdout).not.toContain(created.api_key_secret);
    expect(listed.stdout).not.toMatch(/secret|sha256/);

    const revoked = await admin("revoke-api-key", "--api-key", created.api_key);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.lines).toEqual([{ api_key: created.api_key, revoked: expect.any(String) }]);
    const again = await admin("revoke-api-key", "--api-key", created.api_key);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/already revoked/);
    expect((await admin("list-api-keys")).lines.find((l) => l.api_key === created.api_key).revoked).toBe(revoked.lines[0].revoked);
    await withDb(async (db) => expect(await authenticateApiKey(db.prisma, created.api_key, created.api_key_secret)).toBeUndefined());

    const unknown = await admin("revoke-api-key", "--api-key", "no-such-key");
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toMatch(/no API key "no-such-key"/);
  });
});

describe("registry entries", () => {
  it("import-registry upserts the valid entries of a folder and reports each invalid one with file, field and reason", async () => {
    const res = await admin("import-registry", fixtures);
    expect(res.code).toBe(1);
    expect(res.lines).toEqual([{ created: 2, updated: 0, unchanged: 0, invalid: 2 }]);
    const invalid = res.stderr.split("\n").filter((l) => l.startsWith("invalid: "));
    expect(invalid).toContain("invalid: test/fixtures/registry/invalid/BadTypes/workspace.json: uncompressed_size_mb: must be a positive integer (megabytes)");
    expect(invalid).toContain("invalid: test/fixtures/registry/invalid/BadTypes/workspace.json: architecture[1]: must be one of amd64, arm64");
    expect(invalid).toContain("invalid: test/fixtures/registry/invalid/NoTag/workspace.json: name: must include a tag, e.g. kasmweb/chromium:1.14.0");
    expect(invalid).toHaveLength(11);
    expect(res.stderr).toContain("warning: test/fixtures/registry/invalid/NoTag/workspace.json: notes: unknown field, ignored");
  });

  it("re-importing changes nothing; one workspace.json can be imported on its own", async () => {
    const again = await admin("import-registry", join(fixtures, "workspaces"));
    expect(again.code).toBe(0);
    expect(again.lines).toEqual([{ created: 0, updated: 0, unchanged: 2, invalid: 0 }]);
    expect(again.stderr).toBe("");
    const one = await admin("import-registry", join(fixtures, "workspaces/Chromium/workspace.json"));
    expect(one.lines).toEqual([{ created: 0, updated: 0, unchanged: 1, invalid: 0 }]);
    const missing = await admin("import-registry", join(fixtures, "nowhere"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nowhere/);
  });

  it("list-registry lists entries, filtered by architecture and platform version", async () => {
    const names = async (...args: string[]) => {
      const res = await admin("list-registry", ...args);
      expect(res.code).toBe(0);
      return res.lines.map((e) => e.name);
    };
    expect(await names()).toEqual(["kasmweb/chromium:1.14.0", "nighthawkcoders/kasm_workspaces:latest"]);
    expect(await names("--architecture", "arm64")).toEqual(["kasmweb/chromium:1.14.0"]);
    expect(await names("--version", "1.14.2")).toEqual(["kasmweb/chromium:1.14.0"]);
    expect(await names("--version", "1.13.7", "--architecture", "amd64")).toEqual(["kasmweb/chromium:1.14.0", "nighthawkcoders/kasm_workspaces:latest"]);
    expect(await names("--version", "1.15.0")).toEqual([]);
  });

  it("publish-registry writes list.json the way public registries do, and it imports back unchanged", async () => {
    const out = join(dataDir, "list.json");
    const res = await admin("publish-registry", "--out", out, "--name", "Nighthawk Coders", "--list-url", "https://registry.example.com/");
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([{ out, workspacecount: 2 }]);
    const list = JSON.parse(readFileSync(out, "utf8"));
    expect(Object.keys(list)).toEqual(["name", "workspacecount", "icon", "description", "list_url", "contact_url", "modified", "workspaces"]);
    expect(list).toMatchObject({ name: "Nighthawk Coders", workspacecount: 2, list_url: "https://registry.example.com/" });
    expect(list.modified).toBeGreaterThan(Date.now() - 60_000);
    const chromium = JSON.parse(readFileSync(join(fixtures, "workspaces/Chromium/workspace.json"), "utf8"));
    expect(list.workspaces[0]).toEqual({ ...chromium, sha: entrySha(chromium) });

    const filtered = await admin("publish-registry", "--architecture", "arm64");
    expect(filtered.lines[0]).toMatchObject({ workspacecount: 1, workspaces: [{ name: "kasmweb/chromium:1.14.0" }] });

    const back = await admin("import-registry", out);
    expect(back.lines).toEqual([{ created: 0, updated: 0, unchanged: 2, invalid: 0 }]);
  });
});

describe.skipIf(postgres)("the embedded database while another process holds it", () => {
  it("refuses with a clear message and exit 1, touching nothing; works again once released", async () => {
    // This test process holds the database; the commands are other processes (the lock is per process).
    const holder = await openDatabase({ pgliteDataDir: join(dataDir, "pglite") });
    try {
      const commands = [["create-api-key", "--name", "while running"], ["import-registry", fixtures], ["list-api-keys"]];
      for (const res of await Promise.all(commands.map((args) => adminProcess(...args)))) {
        expect(res.code).toBe(1);
        expect(res.stdout).toBe("");
        expect(res.stderr).toMatch(new RegExp(`in use by another process \\(pid ${process.pid}\\), probably the running server: stop it first`));
      }
      expect(await holder.prisma.apiKey.count({ where: { name: "while running" } })).toBe(0);
    } finally {
      await holder.close();
    }
    expect((await admin("list-api-keys")).code).toBe(0);
  });
});

describe.runIf(postgres)("a DATABASE_URL that names no database (or an empty one)", () => {
  const server = process.env.TEST_DATABASE_URL!;
  const runWith = (url: string, ...args: string[]) => {
    const saved = databaseUrl;
    databaseUrl = url;
    try {
      return admin(...args);
    } finally {
      databaseUrl = saved;
    }
  };

  it("is refused clearly, and no schema is created in an empty database", async () => {
    const missing = await runWith(withDatabase(server, `snakes_missing_${process.pid}`), "list-api-keys");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/DATABASE_URL .*does not exist/);
    const name = `snakes_empty_${process.pid}`;
    const pgAdmin = new pg.Client({ connectionString: server });
    await pgAdmin.connect();
    await pgAdmin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await pgAdmin.query(`CREATE DATABASE "${name}"`);
    try {
      const empty = await runWith(withDatabase(server, name), "create-api-key", "--name", "lost");
      expect(empty.code).toBe(1);
      expect(empty.stderr).toMatch(/has no schema yet: start the server once/);
      const probe = new pg.Client({ connectionString: withDatabase(server, name) });
      await probe.connect();
      expect((await probe.query("SELECT to_regclass('api_keys') AS t")).rows[0].t).toBeNull();
      await probe.end();
    } finally {
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await pgAdmin.end();
    }
  });
});

describe.runIf(postgres)("PostgreSQL shared with a running server", () => {
  let app: Application;
  let http: HttpClient;
  beforeAll(async () => {
    const config = testConfig();
    app = await startApplication(config, { db: await openDatabase({ databaseUrl }), host: "127.0.0.1", logger: createLogger(config.logLevel) });
    http = new HttpClient(`http://127.0.0.1:${app.game.port}`);
  });
  afterAll(() => app?.stop());

  it("a key created by the command works against the server at once, and stops working when revoked", async () => {
    const pair = (await admin("create-api-key", "--name", "live")).lines[0];
    expect((await http.post("/api/public/validate_credentials", pair)).status).toBe(200);
    expect((await admin("revoke-api-key", "--api-key", pair.api_key)).code).toBe(0);
    const res = await http.post("/api/public/validate_credentials", pair);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error_message: "Invalid API credentials" });
  });
});
