// Figures that a command produces, as the docs give them, against what the command produces now
// (the rule: written by the command or checked by a test, never copied by hand): the test run's
// counts and times come from docs/test-runs.json, which `npm test -- --record` writes; the /play
// bundle's sizes from a fresh in-memory build. (The boss balance figures: test/unit/boss/balance.test.ts.)
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error a JavaScript build script without type declarations
import { bundlePlayClient } from "../../scripts/build-play.mjs";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");
/** Line breaks as spaces: re-wrapping a paragraph breaks nothing. */
const flat = (text: string) => text.replace(/\s+/g, " ");

interface RecordedRun {
  date: string;
  commit: string | null;
  wall_seconds: number;
  passed: number;
  failed: number;
  skipped: number;
}
const runs = JSON.parse(read("docs/test-runs.json")) as Record<string, RecordedRun>;
const summary = (r: RecordedRun) => `tests: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`;

describe("the test run's figures are a recorded run's (docs/test-runs.json, npm test -- --record)", () => {
  it("the record holds runs of the known forms, with every figure", () => {
    expect(Object.keys(runs).length).toBeGreaterThan(0);
    for (const [form, r] of Object.entries(runs)) {
      expect(["ci", "local"]).toContain(form);
      expect(r).toMatchObject({ date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), wall_seconds: expect.any(Number), passed: expect.any(Number), failed: 0, skipped: expect.any(Number) });
    }
  });

  it("README.md gives the ci run's count, time and date", () => {
    const ci = runs.ci;
    expect(ci).toBeDefined();
    expect(flat(read("README.md"))).toContain(`took ${ci.wall_seconds} s on ${ci.date} (\`${summary(ci)}\`;`);
  });

  it("docs/testing.md has a row per recorded form with its count, time, date and commit, and none for a form not recorded", () => {
    const rows = read("docs/testing.md")
      .split("\n")
      .filter((l) => /^\| (ci|local) \|/.test(l));
    expect(rows.map((l) => l.split("|")[1].trim()).sort()).toEqual(["ci", "local"]);
    for (const row of rows) {
      const form = row.split("|")[1].trim();
      const r = runs[form];
      if (!r) {
        expect(row, `${form} is not recorded: its row gives no figures`).toContain("not recorded yet");
        continue;
      }
      const cells = row.split("|").map((c) => c.trim());
      expect(cells[3]).toBe(`\`${summary(r)}\``);
      expect(cells[4]).toBe(`${r.wall_seconds} s`);
      expect(cells[5]).toContain(r.date);
      if (r.commit) expect(cells[5]).toContain(r.commit);
    }
  });

  it("no doc quotes a test summary that is not a recorded run's", () => {
    const recorded = new Set(Object.values(runs).map(summary));
    const docs = ["README.md", ...readdirSync(new URL("docs/", root)).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    for (const doc of docs) {
      for (const quoted of flat(read(doc)).match(/tests: \d+ passed, \d+ failed, \d+ skipped/g) ?? []) {
        expect(recorded.has(quoted), `${doc} quotes "${quoted}", which no recorded run printed`).toBe(true);
      }
    }
  });
});

describe("the /play bundle's size (docs/play-client.md) against a fresh build", () => {
  const doc = flat(read("docs/play-client.md"));
  const kib = (bytes: number) => bytes / 1024;
  const jsBytes = (result: { outputFiles: Array<{ path: string; contents: Uint8Array }> }) => result.outputFiles.find((f) => f.path.endsWith(".js"))!.contents.length;

  it("app.js is about the size the doc says, and zod would add about what it says (within 10 %)", async () => {
    const bundled = jsBytes(await bundlePlayClient());
    const withZod = jsBytes(await bundlePlayClient({ standIn: false }));
    const size = Number(/`web\/play\/dist\/app\.js`, about (\d+) KiB/.exec(doc)?.[1]);
    const saved = Number(/about (\d+) KiB more of validation code/.exec(doc)?.[1]);
    expect(size, "docs/play-client.md: `web/play/dist/app.js`, about N KiB").toBeGreaterThan(0);
    expect(saved, "docs/play-client.md: about N KiB more of validation code").toBeGreaterThan(0);
    expect(Math.abs(size - kib(bundled)) / kib(bundled), `the bundle is ${kib(bundled).toFixed(0)} KiB; the doc says about ${size}`).toBeLessThanOrEqual(0.1);
    const zod = kib(withZod - bundled);
    expect(Math.abs(saved - zod) / zod, `zod adds ${zod.toFixed(0)} KiB; the doc says about ${saved}`).toBeLessThanOrEqual(0.1);
  }, 60_000);
});
