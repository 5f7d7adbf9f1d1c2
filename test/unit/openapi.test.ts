import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi/index.js";

const doc = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>; components: { schemas: Record<string, unknown> } };

describe("the served OpenAPI document", () => {
  it("documents every REST area", () => {
    const paths = Object.keys(doc.paths);
    for (const p of ["/api/auth/register", "/api/user/current", "/api/snakes/", "/api/snakes/complete-lesson", "/api/boss/join", "/api/public/update_user", "/api/boss/leave", "/api/boss/room/{room_id}", "/api/boss/stats", "/api/pvp/stats", "/api/slitherrush/stats", "/api/slitherrush/leaderboard", "/api/modes/status", "/api/version"]) expect(paths).toContain(p);
  });

  it("resolves every $ref to a schema it defines", () => {
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(Object.keys(doc.components.schemas)).toContain(ref.split("/").pop());
  });

  it("gives cookie-protected operations their 401 and 403 answers", () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        if (op.security && op.security.length === 0) continue; // public
        if (!path.startsWith("/api/") || path.startsWith("/api/public/")) continue;
        expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(["401", "403"]));
      }
    }
  });
});

describe("operation ids (issue 10)", () => {
  it("every operation has an operationId, unique across the document, usable as a generated function name", () => {
    const ids: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops as Record<string, { operationId?: string }>)) {
        expect(op.operationId, `${method.toUpperCase()} ${path}`).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
        ids.push(op.operationId!);
      }
    }
    expect(ids.length).toBeGreaterThan(40);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

