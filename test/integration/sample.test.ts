// The sample information server, probed the way a browser would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSampleServer, type SampleServer } from "../../src/sample/server.js";
import { createLogger } from "../../src/ops/logger.js";

let sample: SampleServer;
let base: string;
beforeAll(async () => {
  sample = await startSampleServer(0, createLogger("silent"), "127.0.0.1");
  base = `http://127.0.0.1:${sample.port}`;
});
afterAll(() => sample?.close());

describe("sample information server", () => {
  it("GET / is an HTML page with a heading", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/<h1>[^<]+<\/h1>/);
  });

  it("GET /api/data is a JSON array of records with exactly the contract's fields", async () => {
    const res = await fetch(`${base}/api/data`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const records = await res.json();
    expect(Array.isArray(records)).toBe(true);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(Object.keys(r).sort()).toEqual(["DOB", "Email", "FirstName", "LastName", "Owns_Cars", "Residence"]);
      for (const k of ["FirstName", "LastName", "DOB", "Residence", "Email"]) expect(typeof r[k]).toBe("string");
      expect(r.DOB).toMatch(/^[A-Z][a-z]+ \d{1,2}$/);
      expect(Array.isArray(r.Owns_Cars) && r.Owns_Cars.every((c: unknown) => typeof c === "string")).toBe(true);
    }
  });

  it("a credentialed cross-origin read: any Origin reflected, credentials allowed, Vary: Origin", async () => {
    const res = await fetch(`${base}/api/data`, { headers: { origin: "https://student.example.io", cookie: "sid=1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://student.example.io");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("vary")).toBe("Origin");
  });

  it("answers the preflight a browser sends before a credentialed request with custom headers", async () => {
    const res = await fetch(`${base}/api/data`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:4000",
        "access-control-request-method": "GET",
        "access-control-request-headers": "content-type, x-requested-with",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:4000");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-allow-methods")).toMatch(/GET/);
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type, x-requested-with");
  });

  it("sends no CORS grant without an Origin header", async () => {
    const res = await fetch(`${base}/api/data`);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("unknown path → 404 JSON error; other methods → 405 with Allow", async () => {
    const missing = await fetch(`${base}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "No resource at /api/nope" } });
    const post = await fetch(`${base}/api/data`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await post.json()).error.code).toBe("method_not_allowed");
    const del = await fetch(`${base}/`, { method: "DELETE" });
    expect(del.status).toBe(405);
  });
});
