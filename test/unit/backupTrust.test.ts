// Issue 41: a restore checks what it loads. The trailer is an HMAC under a key kept outside the file
// (an edited file recompressed with a fresh sha256 is refused; --unauthenticated is the documented
// way to restore a file whose key is lost); lines are bounded and read in linear time; rows are
// checked against the rules the API applies (the crafted rows of the issue each refused).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BACKUP_FORMAT, ContentHash, deriveBackupKey, gzipLines, readBackupFile, trailerLine, useBackupKey, type BackupHeader } from "../../src/backup/format.js";
import { rowProblem } from "../../src/backup/rowRules.js";

const dir = mkdtempSync(join(tmpdir(), "snakes-backup-trust-"));
const SECRET = "backup-trust-unit-test-secret-0123456789abcdef";
useBackupKey({ jwtSecret: SECRET });
let n = 0;

const header: BackupHeader = {
  format: BACKUP_FORMAT,
  version: 1,
  engine: "pglite",
  at: "2026-11-28T21:00:00.000Z",
  migrations: ["20261121163227_init"],
  tables: [{ name: "api_keys", columns: ["id", "key", "secret_hash", "name"], rows: 1 }],
};
const ROW = `{"id":1,"key":"${"a".repeat(24)}","secret_hash":"sha256$${"A".repeat(43)}","name":"ci"}`;

/** A backup's content with its trailer, hashed under `key` (the process's unless given; null: no HMAC at all). */
function content(rows = [ROW], key?: Buffer | null): string {
  const lines = [JSON.stringify(header), ...rows];
  const hash = new ContentHash(key);
  for (const l of lines) hash.update(l);
  return [...lines, trailerLine(hash.digest())].join("\n") + "\n";
}
const file = (text: string) => {
  const path = join(dir, `t${n++}.jsonl.gz`);
  writeFileSync(path, gzipSync(text));
  return path;
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => "accepted",
    (e: Error) => e.message,
  );

describe("authenticated backups", () => {
  it("accepts a file signed with the key, refuses an edited one whose sha256 was recomputed", async () => {
    expect((await readBackupFile(file(content()))).authenticated).toBe(true);
    // The attacker's file: a key with a chosen secret hash, a fresh sha256, no key to sign with.
    const planted = ROW.replace("A".repeat(43), "B".repeat(43));
    expect(await failure(readBackupFile(file(content([planted], null))))).toMatch(/is not authenticated \(it carries no HMAC/);
    // Signed under another key (a guessed one): refused as edited.
    expect(await failure(readBackupFile(file(content([planted], deriveBackupKey({ jwtSecret: "another-secret-another-secret-another" })))))).toMatch(/was edited or written under another backup key/);
    // The old format's trailer (a plain checksum, forgeable): refused the same way.
    const lines = [JSON.stringify(header), planted];
    const old = new ContentHash(null);
    for (const l of lines) old.update(l);
    expect(await failure(readBackupFile(file([...lines, trailerLine(old.digest().sha256)].join("\n") + "\n")))).toMatch(/not authenticated/);
  });

  it("BACKUP_KEY, when set, is the key; --unauthenticated restores a file whose key is lost, and says so", async () => {
    const underBackupKey = file(content([ROW], deriveBackupKey({ backupKey: "k".repeat(40), jwtSecret: SECRET })));
    expect(await failure(readBackupFile(underBackupKey))).toMatch(/another backup key/);
    expect((await readBackupFile(underBackupKey, undefined, { key: deriveBackupKey({ backupKey: "k".repeat(40), jwtSecret: SECRET }) })).authenticated).toBe(true);
    expect((await readBackupFile(underBackupKey, undefined, { unauthenticated: true })).authenticated).toBe(false);
    // Still whole: --unauthenticated skips the HMAC only, never the checksum.
    expect(await failure(readBackupFile(file(content().replace('"ci"', '"cj"')), undefined, { unauthenticated: true }))).toMatch(/checksum does not match/);
  });
});

describe("reading lines", () => {
  it("reads a 32 MB line in linear time (it took 192 s when each chunk re-split the whole line)", async () => {
    const long = "x".repeat(32 * 1024 * 1024 - 16);
    const path = join(dir, "long.gz");
    writeFileSync(path, gzipSync(`a\n${long}\nb\n`));
    const started = performance.now();
    const lines: number[] = [];
    for await (const line of gzipLines(path)) lines.push(line.length);
    expect(lines).toEqual([1, long.length, 1]);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("refuses a line longer than the bound as soon as it passes it, ended or not", async () => {
    const path = join(dir, "over.gz");
    writeFileSync(path, gzipSync(`ok\n${"y".repeat(5000)}`));
    const read = async () => {
      for await (const _ of gzipLines(path, 4096)) void _;
    };
    expect(await failure(read())).toMatch(/a line of more than 4096 characters/);
    writeFileSync(path, gzipSync(`ok\n${"y".repeat(5000)}\n`));
    expect(await failure(read())).toMatch(/a line of more than 4096 characters/);
  });
});

describe("rows checked against the API's rules", () => {
  const user = (over: Record<string, unknown>) =>
    JSON.stringify({ id: 7, username: "carol", password_hash: `scrypt$16384$8$1$${"s".repeat(22)}$${"h".repeat(86)}`, session_epoch: 0, role: "student", ...over });

  it("accepts what registration writes", () => {
    expect(rowProblem("users", user({}), 0)).toBeUndefined();
    expect(rowProblem("users", user({ username: "A.b-c_9", session_epoch: 12, role: "teacher" }), 0)).toBeUndefined();
    // As a backup holds them: integers as PostgreSQL's text of them.
    expect(rowProblem("users", user({ id: "7", session_epoch: "3" }), 0)).toBeUndefined();
    expect(rowProblem("users", user({ session_epoch: "-1" }), 0)).toMatch(/session epoch/);
    // A backup from an older migration may lack a column: only the columns present are checked.
    expect(rowProblem("users", JSON.stringify({ id: 1, username: "old-one", password_hash: `scrypt$1024$8$1$${"s".repeat(22)}$${"h".repeat(86)}` }), 0)).toBeUndefined();
    expect(rowProblem("api_keys", ROW, 0)).toBeUndefined();
    expect(rowProblem("game_progress", '{"id":1,"lives":-3}', 0)).toBeUndefined(); // not a table these rules cover
  });

  it("refuses each crafted row of the issue, naming the row and the rule", () => {
    const forged = 'eve\n{"level":30,"msg":"admin logged in"}';
    for (const username of [forged, "mallory\u202Egnp.exe", "a".repeat(2000), "ab", "white space", "ünï"]) {
      expect(rowProblem("users", user({ username }), 4)).toBe("row 5 of users has a username registration refuses (3 to 32 of A-Z a-z 0-9 _ . -)");
    }
    expect(rowProblem("users", user({ session_epoch: -1 }), 0)).toMatch(/session epoch that is not a non-negative integer/);
    expect(rowProblem("users", user({ session_epoch: 1.5 }), 0)).toMatch(/session epoch/);
    expect(rowProblem("users", user({ password_hash: "$2b$10$chosenbcrypthash" }), 0)).toMatch(/password hash this server does not make/);
    expect(rowProblem("users", user({ role: "superuser" }), 0)).toMatch(/role other than/);
    expect(rowProblem("users", user({ id: 0 }), 0)).toMatch(/id that is not a positive integer/);
    expect(rowProblem("workspace_users", JSON.stringify({ username: "x\ny", password_hash: null, session_epoch: 0 }), 0)).toMatch(/username the workspace API refuses/);
    expect(rowProblem("workspace_users", JSON.stringify({ username: "ws", password_hash: null, session_epoch: -5 }), 0)).toMatch(/session epoch/);
    expect(rowProblem("api_keys", ROW.replace("a".repeat(24), "chosen-key"), 0)).toMatch(/API key of another shape/);
    expect(rowProblem("api_keys", ROW.replace(`sha256$${"A".repeat(43)}`, "plain-secret"), 0)).toMatch(/secret hash/);
    expect(rowProblem("api_keys", ROW.replace('"ci"', `"${"n".repeat(101)}"`), 0)).toMatch(/key name/);
    expect(rowProblem("revoked_sessions", JSON.stringify({ sid: "short", subject: "u:1" }), 0)).toMatch(/session id/);
    expect(rowProblem("revoked_sessions", JSON.stringify({ sid: "aaaaaaaaaa", subject: "admin" }), 0)).toMatch(/subject other than/);
    expect(rowProblem("auth_generation", JSON.stringify({ id: 2, generation: "g" }), 0)).toMatch(/id other than 1/);
    expect(rowProblem("users", "[1,2]", 0)).toMatch(/not a JSON object/);
  });
});
