// The copy of the embedded database's folder at one instant (src/backup/stage.ts): what step 1
// copied while the folder changed is made right by step 2, which copies only what changed.
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { catchUp, copyWhileServing, SLACK_MS } from "../../src/backup/stage.js";

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "stage-test-"));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A file last written `agoMs` before now. */
function write(path: string, text: string, agoMs = 60_000) {
  writeFileSync(path, text);
  const t = (Date.now() - agoMs) / 1000;
  utimesSync(path, t, t);
}

describe("copying a folder at one instant", () => {
  it("copies everything while serving, then only what changed, and removes what is gone", async () => {
    const from = fresh();
    const to = join(fresh(), "copy");
    mkdirSync(join(from, "base", "1"), { recursive: true });
    write(join(from, "PG_VERSION"), "17");
    write(join(from, "base", "1", "1234"), "old rows");
    write(join(from, "base", "1", "gone"), "dropped table");
    write(join(from, "postmaster.pid"), "4242");
    const manifest = await copyWhileServing(from, to);
    expect(readFileSync(join(to, "base", "1", "1234"), "utf8")).toBe("old rows");
    expect(existsSync(join(to, "postmaster.pid"))).toBe(false);

    // Meanwhile the server writes: a page changes in place (same size), a file appears, one goes.
    write(join(from, "base", "1", "1234"), "new rows", 0);
    write(join(from, "base", "1", "5678"), "a new table", 0);
    rmSync(join(from, "base", "1", "gone"));

    const copied = catchUp(from, to, manifest);
    expect(copied.files).toBe(2);
    expect(readFileSync(join(to, "base", "1", "1234"), "utf8")).toBe("new rows");
    expect(readFileSync(join(to, "base", "1", "5678"), "utf8")).toBe("a new table");
    expect(existsSync(join(to, "base", "1", "gone"))).toBe(false);
    expect(readFileSync(join(to, "PG_VERSION"), "utf8")).toBe("17");
  });

  it("copies again a file written shortly before step 1 looked, even when its size and time read the same", async () => {
    const from = fresh();
    const to = join(fresh(), "copy");
    write(join(from, "wal"), "commit 1", SLACK_MS / 4);
    const manifest = await copyWhileServing(from, to);
    // A write within the same timestamp tick: same size, and the test puts the time back.
    const { mtimeMs } = manifest.get("wal")!;
    writeFileSync(join(from, "wal"), "commit 2");
    utimesSync(join(from, "wal"), mtimeMs / 1000, mtimeMs / 1000);
    expect(catchUp(from, to, manifest).files).toBe(1);
    expect(readFileSync(join(to, "wal"), "utf8")).toBe("commit 2");
  });
});
