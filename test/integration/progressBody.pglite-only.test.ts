// GET /api/snakes/progress on the embedded database, whose records are served from memory: a
// record's body and ETag are built once and sent as res.json would (same bytes, same headers); a
// save makes a new record and so a new body.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());
afterEach(() => vi.restoreAllMocks());

describe("GET /api/snakes/progress from memory", () => {
  it("serializes a record once for all its reads, with the headers and ETag res.json gives", async () => {
    const { http } = await t.account();
    const first = await http.get("/api/snakes/progress");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"[0-9a-f]+-.+"$/);

    const stringify = vi.spyOn(JSON, "stringify");
    const again = await http.get("/api/snakes/progress");
    const records = stringify.mock.calls.filter(([value]) => typeof value === "object" && value !== null && "current_square" in value);
    expect(records).toHaveLength(0);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("a save gives the record a new body and ETag", async () => {
    const { http } = await t.account();
    const before = await http.get("/api/snakes/progress");
    expect((await http.put("/api/snakes/", { lives: 2 })).status).toBe(200);
    const after = await http.get("/api/snakes/progress");
    expect(after.body.lives).toBe(2);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });
});
