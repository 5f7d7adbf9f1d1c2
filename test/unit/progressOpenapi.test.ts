import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { progressRoutes } from "../../src/http/progressRoutes.js";
import { progressPaths } from "../../src/http/openapi/progress.js";
import { openApiDocument } from "../../src/http/openapi/index.js";

type Operation = { security: unknown[]; responses: Record<string, { description: string; content?: unknown }>; requestBody?: unknown };

/** Method and path of every route the router serves, as mounted under /api/snakes. */
function servedRoutes(): string[] {
  const router = progressRoutes({ config: { rateLimits: { accountWrites: { limit: 1, windowMs: 1000 } } } } as AppContext) as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  return router.stack
    .filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route!.methods).map((method) => `${method.toUpperCase()} /api/snakes${layer.route!.path}`))
    .sort();
}

const documentedRoutes = () =>
  Object.entries(progressPaths)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();

describe("OpenAPI paths for /api/snakes", () => {
  it("documents exactly the routes the router serves", () => {
    expect(servedRoutes()).toHaveLength(16);
    expect(documentedRoutes()).toEqual(servedRoutes());
  });

  it("gives every operation the cookie security, a 200 schema and the auth errors", () => {
    expect((openApiDocument() as any).components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "jwt" });
    for (const [path, ops] of Object.entries(progressPaths)) {
      for (const [method, op] of Object.entries(ops as Record<string, Operation>)) {
        const where = `${method} ${path}`;
        expect(op.security, where).toEqual([{ sessionCookie: [] }]);
        expect(op.responses["200"].content, where).toBeDefined();
        expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(["200", "401", "403"]));
        if (op.requestBody) expect(Object.keys(op.responses), where).toContain("400");
      }
    }
  });

  it("is plain JSON with the bounds in the request schemas", () => {
    const doc = JSON.parse(JSON.stringify(progressPaths));
    const lesson = doc["/api/snakes/complete-lesson"].post.requestBody.content["application/json"].schema;
    expect(lesson).toMatchObject({
      additionalProperties: false,
      required: ["lesson_number"],
      properties: { lesson_number: { type: "integer", minimum: 1, maximum: 5 }, bullets_earned: { minimum: 0, maximum: 20, default: 0 } },
    });
    const answer = doc["/api/snakes/answer-question"].post.requestBody.content["application/json"].schema;
    expect(answer.properties).toMatchObject({ square: { minimum: 7, maximum: 56 }, correct: { type: "boolean" }, bullets_earned: { maximum: 10 } });
    expect(doc["/api/snakes/add-bullets"].post.requestBody.content["application/json"].schema.properties.bullets).toMatchObject({ minimum: 1, maximum: 10 });
  });
});
