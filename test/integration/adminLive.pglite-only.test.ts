// Issue 10: operator commands while the server runs. The embedded database belongs to the server
// process, so `npm run admin` sends its command to the running server's admin endpoint (found and
// authenticated through DATA_DIR/admin.json, readable by the server's user only); a DATA_DIR that
// holds no database is refused instead of getting a new empty one. Issue 41: the endpoint has a
// loopback listener of its own; the public port (here on every interface, as production's HOST)
// does not serve it to anyone, a peer on another host or a bare relay on this one.
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { request } from "node:http";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runAdmin } from "../../src/admin/main.js";
import { bootEntry, freePort, migratedDataDir, type ServerProcess } from "../helpers/process.js";
import { HttpClient } from "../helpers/app.js";

vi.setConfig({ testTimeout: 120_000 });
const fixtures = join(process.cwd(), "test/fixtures/registry/workspaces");

const running: ServerProcess[] = [];
let dataDir: string;
let server: ServerProcess;
let base: string;
beforeAll(async () => {
  dataDir = await migratedDataDir("snakes-admin-live-");
  ({ proc: server, base } = await bootEntry({ HOST: "0.0.0.0", PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" }, running));
}, 180_000);
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

/** `npm run admin -- args…` in-process (workspaceCli.test.ts tests the process entry itself). */
async function admin(args: string[], env: Record<string, string> = { DATA_DIR: dataDir }) {
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { env: { NODE_ENV: "development", ...env }, out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`) });
  return { code, stdout, stderr, lines: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)) };
}

describe("npm run admin against a running server on the embedded database", () => {
  it("publishes its admin endpoint in DATA_DIR, readable by the server's user only: a loopback port of its own", () => {
    const file = join(dataDir, "admin.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const endpoint = JSON.parse(readFileSync(file, "utf8"));
    expect(endpoint).toMatchObject({ pid: server.child.pid, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), token: expect.stringMatching(/^[\w-]{43}$/) });
    expect(endpoint.url).not.toBe(base);
  });

  it("creates an API key the server accepts at once, lists it, and revokes it", async () => {
    const created = await admin(["create-api-key", "--name", "while serving"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trimEnd().split("\n")).toHaveLength(1);
    const pair = created.lines[0];
    expect(Object.keys(pair)).toEqual(["api_key", "api_key_secret"]);
    expect(created.stderr).toMatch(/not shown again/);
    const http = new HttpClient(base);
    expect((await http.post("/api/public/validate_credentials", pair)).status).toBe(200);
    const listed = await admin(["list-api-keys"]);
    expect(listed.lines.map((l) => l.name)).toContain("while serving");
    expect((await admin(["revoke-api-key", "--api-key", pair.api_key])).code).toBe(0);
    expect((await http.post("/api/public/validate_credentials", pair)).status).toBe(401);
    const unknown = await admin(["revoke-api-key", "--api-key", "no-such-key"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no API key "no-such-key"/);
  });

  it("imports registry files read by the command, and publishes list.json where the operator asked", async () => {
    const imported = await admin(["import-registry", fixtures]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.lines).toEqual([{ created: 2, updated: 0, unchanged: 0, invalid: 0 }]);
    const out = join(dataDir, "published.json");
    const published = await admin(["publish-registry", "--out", out]);
    expect(published.lines).toEqual([{ out, workspacecount: 2 }]);
    expect(JSON.parse(readFileSync(out, "utf8")).workspaces).toHaveLength(2);
  });

  it("logout-user ends every session of a game account at once", async () => {
    const http = new HttpClient(base);
    expect((await http.post("/api/auth/register", { username: "Operator_Target", password: "long-enough-1" })).status).toBe(201);
    expect((await http.get("/api/auth/me")).status).toBe(200);
    const res = await admin(["logout-user", "--username", "operator_target"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.lines).toEqual([{ username: "Operator_Target", sessions_ended: true }]);
    expect((await http.get("/api/auth/me")).status).toBe(401);
    const unknown = await admin(["logout-user", "--username", "nobody_at_all"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no account "nobody_at_all"/);
  });

  it("the endpoint refuses callers without the token, and requests relayed by a proxy", async () => {
    const { token, url } = JSON.parse(readFileSync(join(dataDir, "admin.json"), "utf8"));
    const body = JSON.stringify({ command: "list-api-keys", values: {}, positionals: [] });
    const post = (headers: Record<string, string>) => fetch(`${url}/admin/commands`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${token}`, "x-forwarded-for": "203.0.113.5" })).status).toBe(404);
    expect((await post({ authorization: `Bearer ${token}`, "x-real-ip": "203.0.113.5" })).status).toBe(404);
    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  const command = (token: string) => ({ method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ command: "list-api-keys", values: {}, positionals: [] }) });

  it("the public port does not serve it, even to loopback with the token, nor through a bare relay on this machine (no X-Forwarded-For; only X-Real-IP)", async () => {
    const { token } = JSON.parse(readFileSync(join(dataDir, "admin.json"), "utf8"));
    expect((await fetch(`${base}/admin/commands`, command(token))).status).toBe(404);
    // An nginx with a bare proxy_pass: bytes relayed from 127.0.0.1, no header added.
    const publicPort = Number(new URL(base).port);
    const relay: Server = createServer((client) => {
      const upstream = connect(publicPort, "127.0.0.1");
      client.pipe(upstream).pipe(client);
      const end = () => (client.destroy(), upstream.destroy());
      client.on("error", end);
      upstream.on("error", end);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    try {
      const relayed = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/admin/commands`;
      expect((await fetch(relayed, command(token))).status).toBe(404);
      const realIp = command(token);
      expect((await fetch(relayed, { ...realIp, headers: { ...realIp.headers, "x-real-ip": "203.0.113.9" } })).status).toBe(404);
      expect((await fetch(relayed.replace("/admin/commands", "/health"))).status).toBe(200); // the relay works
    } finally {
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });

  // A peer on another host: this machine's LAN address reaches the public port (HOST=0.0.0.0) from
  // a non-loopback address, and the admin listener not at all.
  const lan = Object.values(networkInterfaces()).flat().find((a) => a && !a.internal && a.family === "IPv4")?.address;
  it.skipIf(!lan)("a peer on another host with the token: 404 on the public port, and no connection to the admin port", async () => {
    const { token, url } = JSON.parse(readFileSync(join(dataDir, "admin.json"), "utf8"));
    const publicPort = new URL(base).port;
    expect((await fetch(`http://${lan}:${publicPort}/health`)).status).toBe(200); // the public port answers it
    expect((await fetch(`http://${lan}:${publicPort}/admin/commands`, command(token))).status).toBe(404);
    const err = await fetch(`http://${lan}:${new URL(url).port}/admin/commands`, command(token)).then(() => undefined, (e: Error & { cause?: { code?: string } }) => e);
    expect(err?.cause?.code).toBe("ECONNREFUSED");
  });

  it("checks the caller before reading the body (issue 23): a stranger's 15 MB is never read", async () => {
    // The declared body is not sent: only an answer given before reading it can arrive.
    const { url } = JSON.parse(readFileSync(join(dataDir, "admin.json"), "utf8"));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/admin/commands`, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": String(15 * 1024 * 1024) } }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write('{"command":"');
      setTimeout(() => reject(new Error("no answer within 5 s: the server waits for the body")), 5000);
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.code).toBe("unauthenticated");
  });

  it("refuses a DATA_DIR that holds no database instead of creating an empty one", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "snakes-admin-empty-"));
    const res = await admin(["create-api-key", "--name", "lost"], { DATA_DIR: elsewhere });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toMatch(/no database in .*snakes-admin-empty-.*pglite/);
    expect(res.stderr).toMatch(/DATA_DIR/);
    expect(existsSync(join(elsewhere, "pglite"))).toBe(false);
  });

  it("after the server stops, the endpoint file and its listener are gone, and commands open the database themselves", async () => {
    const { url } = JSON.parse(readFileSync(join(dataDir, "admin.json"), "utf8"));
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(join(dataDir, "admin.json"))).toBe(false);
    const gone = await fetch(`${url}/admin/commands`, { method: "POST" }).then(() => undefined, (e: Error & { cause?: { code?: string } }) => e);
    expect(gone?.cause?.code).toBe("ECONNREFUSED");
    const listed = await admin(["list-api-keys"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.lines.map((l) => l.name)).toContain("while serving");
  });
});
