// The backup file's format (src/backup/format.ts): a whole file reads back with its rows; a
// truncated, corrupted, foreign or too-new one is refused with one line naming the file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BACKUP_FORMAT, BackupFileError, checkMigrations, ContentHash, readBackup, trailerLine, useBackupKey, type BackupHeader } from "../../src/backup/format.js";
import { copyTextToJsonLines, parentsFirst, unescapeCopy } from "../../src/backup/snapshot.js";
import { backupFileName, defaultBackupDir } from "../../src/backup/index.js";

const dir = mkdtempSync(join(tmpdir(), "snakes-backup-format-"));
useBackupKey({ jwtSecret: "backup-format-unit-test-secret-0123456789" });
let n = 0;

const header = (over: Partial<BackupHeader> = {}): BackupHeader => ({
  format: BACKUP_FORMAT,
  version: 1,
  engine: "pglite",
  at: "2026-11-28T21:00:00.000Z",
  migrations: ["20261121163227_init"],
  tables: [
    { name: "users", columns: ["id", "username"], rows: 2 },
    { name: "empty", columns: ["id"], rows: 0 },
    { name: "game_progress", columns: ["id", "user_id"], rows: 1 },
  ],
  ...over,
});

const ROWS = ['{"id":1,"username":"ann"}', '{"id":2,"username":"bob\\nby"}', '{"id":1,"user_id":1}'];

/** The content lines of a backup with its trailer (a correct checksum unless `sha256` is given). */
function content(h: object = header(), rows = ROWS, sha256?: string): string {
  const lines = [JSON.stringify(h), ...rows];
  const hash = new ContentHash();
  for (const l of lines) hash.update(l);
  return [...lines, trailerLine(sha256 ?? hash.digest())].join("\n") + "\n";
}

function file(bytes: Buffer | string): string {
  const path = join(dir, `b${n++}.jsonl.gz`);
  writeFileSync(path, bytes);
  return path;
}

async function refusal(path: string): Promise<string> {
  const err = await readBackup(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BackupFileError);
  const message = (err as Error).message;
  expect(message.split("\n")).toHaveLength(1);
  expect(message).toContain(path);
  return message;
}

describe("backup file format", () => {
  it("reads a whole file back: the header, and every table's rows in order", async () => {
    const seen: Array<[string, string[]]> = [];
    const h = await readBackup(file(gzipSync(content())), async (table, rows) => void seen.push([table.name, rows]));
    expect(h).toEqual(header());
    expect(seen).toEqual([
      ["users", ROWS.slice(0, 2)],
      ["game_progress", ROWS.slice(2)],
    ]);
  });

  it("hands rows over in batches of the size asked", async () => {
    const many = Array.from({ length: 25 }, (_, i) => `{"id":${i + 1}}`);
    const h = header({ tables: [{ name: "t", columns: ["id"], rows: 25 }] });
    const batches: number[] = [];
    await readBackup(file(gzipSync(content(h, many))), async (_t, rows) => void batches.push(rows.length), 10);
    expect(batches).toEqual([10, 10, 5]);
  });

  it("refuses a truncated file, wherever it is cut", async () => {
    const whole = gzipSync(content());
    for (const cut of [1, 10, Math.floor(whole.length / 2), whole.length - 1]) {
      expect(await refusal(file(whole.subarray(0, cut)))).toMatch(/truncated|corrupted|not a backup/);
    }
    // Cut between lines and compressed again: whole gzip, content missing its end.
    const lines = content().split("\n");
    expect(await refusal(file(gzipSync(lines.slice(0, 3).join("\n") + "\n")))).toMatch(/truncated/);
    expect(await refusal(file(gzipSync(lines.slice(0, -2).join("\n") + "\n")))).toMatch(/truncated/);
  });

  it("refuses a file with one byte flipped, in the compressed data or in the content", async () => {
    const whole = gzipSync(content());
    for (const at of [12, Math.floor(whole.length / 2), whole.length - 6]) {
      const flipped = Buffer.from(whole);
      flipped[at] ^= 0x01;
      expect(await refusal(file(flipped))).toMatch(/truncated|corrupted|damaged/);
    }
    // Recompressed after the flip: gzip is whole, the checksum is not.
    expect(await refusal(file(gzipSync(content().replace("ann", "anm"))))).toMatch(/checksum does not match/);
    expect(await refusal(file(gzipSync(content(header(), ROWS, "0".repeat(64)))))).toMatch(/checksum does not match/);
  });

  it("refuses a row count that does not match the header, and rows that are not JSON objects", async () => {
    expect(await refusal(file(gzipSync(content(header(), ROWS.slice(0, 2)))))).toMatch(/truncated|damaged/);
    expect(await refusal(file(gzipSync(content(header(), [...ROWS, '{"id":9}']))))).toMatch(/damaged|checksum/);
    expect(await refusal(file(gzipSync(content(header(), ["not json", ...ROWS.slice(1)]))))).toMatch(/not a JSON object/);
  });

  it("refuses foreign files: not gzip, gzip of something else, an empty file", async () => {
    expect(await refusal(file("id,username\n1,ann\n"))).toMatch(/not a backup of this server \(not gzip data\)/);
    expect(await refusal(file(gzipSync('{"name":"snakes-game-backend","version":"0.1.0"}\n')))).toMatch(/not a backup of this server/);
    expect(await refusal(file(gzipSync("CREATE TABLE users (id int);\n")))).toMatch(/not a backup of this server/);
    expect(await refusal(file(Buffer.alloc(0)))).toMatch(/is empty/);
    expect(await refusal(join(dir, "missing.jsonl.gz"))).toMatch(/does not exist/);
  });

  it("refuses a file of a newer format, and a damaged header", async () => {
    expect(await refusal(file(gzipSync(content(header({ version: 2 })))))).toMatch(/newer version of the server \(backup format 2; this one reads up to 1\)/);
    expect(await refusal(file(gzipSync(content({ ...header(), engine: "mysql" }))))).toMatch(/damaged header/);
    expect(await refusal(file(gzipSync(content({ ...header(), tables: [{ name: "users", rows: -1 }] }))))).toMatch(/damaged header/);
  });

  it("accepts only migrations this build has, as its first ones in order", () => {
    const known = ["a_init", "b_more", "c_last"];
    const at = (migrations: string[]) => () => checkMigrations(header({ migrations }), known, "F");
    expect(at(["a_init"])).not.toThrow();
    expect(at(known)).not.toThrow();
    expect(at([...known, "d_future"])).toThrow(/newer version of the server \(it is at migration d_future/);
    expect(at(["a_init", "c_last"])).toThrow(/not this version's first ones/);
    expect(at([])).toThrow(/without any migration/);
  });

  it("orders tables so that each comes after the tables its foreign keys point to", () => {
    const tables = ["boss_players", "boss_rooms", "game_progress", "square_completions", "users"].map((name) => ({ name }));
    const refs = [
      { child: "boss_players", parent: "boss_rooms" },
      { child: "boss_players", parent: "users" },
      { child: "game_progress", parent: "users" },
      { child: "square_completions", parent: "game_progress" },
    ];
    const order = parentsFirst(tables, refs).map((t) => t.name);
    for (const { child, parent } of refs) expect(order.indexOf(parent)).toBeLessThan(order.indexOf(child));
    expect(order).toHaveLength(5);
  });

  it("names files by UTC time, beside DATA_DIR unless BACKUP_DIR is set", () => {
    expect(backupFileName(new Date("2026-11-28T21:04:05.678Z"))).toBe("snakes-backup-20261128T210405Z.jsonl.gz");
    expect(defaultBackupDir({ dataDir: "/srv/snakes/data" })).toBe("/srv/snakes/data-backups");
    expect(defaultBackupDir({ dataDir: "/srv/snakes/data/" })).toBe("/srv/snakes/data-backups");
    expect(defaultBackupDir({ dataDir: "/srv/snakes/data", backupDir: "/mnt/backups" })).toBe("/mnt/backups");
  });

  it("turns COPY text into JSON lines: values as their text, NULL as null, json embedded, escapes undone", () => {
    const columns = ["id", "name", "tags", "config", "note"];
    const types = ["integer", "text", "text[]", "jsonb", "text"];
    const copy = ['1\tann\t{half1,"a,b"}\t{"k": "x\\\\"y", "n": [1, 2]}\t\\N', "2\ttab\\there\\nnew line \\\\ back\t{}\t\\N\tq\"uote"].join("\n");
    const lines = copyTextToJsonLines(copy, columns, types).split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { id: "1", name: "ann", tags: '{half1,"a,b"}', config: { k: 'x"y', n: [1, 2] }, note: null },
      { id: "2", name: "tab\there\nnew line \\ back", tags: "{}", config: null, note: 'q"uote' },
    ]);
    expect(copyTextToJsonLines("", columns, types)).toBe("");
    expect(() => copyTextToJsonLines("1\tann", columns, types)).toThrow(/2 fields for 5 columns/);
    expect(unescapeCopy("a\\bb\\fc\\rd\\ve\\101\\x42\\\\")).toBe("a\bb\fc\rd\ve" + "AB\\");
  });
});
