import { describe, expect, it } from "vitest";
import { workspaceOpenApiPaths } from "../../../src/http/openapi/workspace.js";
import { operationSchemas } from "../../../src/workspace/schemas.js";
import { userJson } from "../../../src/workspace/users.js";

const post = (operation: string) => (workspaceOpenApiPaths[`/api/public/${operation}`] as any).post;

describe("OpenAPI paths of the workspace API", () => {
  it("documents every operation the router serves, as POST with the shared error rows", () => {
    expect(Object.keys(workspaceOpenApiPaths).sort()).toEqual(Object.keys(operationSchemas).map((o) => `/api/public/${o}`).sort());
    for (const operation of Object.keys(operationSchemas)) {
      const responses = post(operation).responses;
      for (const status of ["200", "400", "401", "413", "429"]) expect(responses).toHaveProperty(status);
      expect(responses["401"].content["application/json"].schema.required).toEqual(["error_message"]);
    }
    expect(Object.keys(post("update_user").responses).sort()).toEqual(["200", "400", "401", "404", "409", "413", "429"]);
  });

  it("declares each operation's own security: the key pair in the body, not the document's session cookie (issue 23)", () => {
    for (const operation of Object.keys(operationSchemas)) {
      const op = post(operation);
      expect(op.security, operation).toEqual([]);
      expect(op["x-credentials"]).toEqual({ in: "body", fields: ["api_key", "api_key_secret"] });
      expect(op.description).toMatch(/api_key.*api_key_secret.*in the JSON body|in the JSON body.*api_key/);
      expect(op.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["api_key", "api_key_secret"]));
    }
    expect(JSON.parse(JSON.stringify(workspaceOpenApiPaths))).toEqual(workspaceOpenApiPaths);
  });

  it("derives request bodies from the validation schemas", () => {
    const schema = post("update_user").requestBody.content["application/json"].schema;
    expect(schema.$schema).toBeUndefined();
    expect(schema.required).toEqual(["api_key", "api_key_secret", "target_user"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.target_user.properties)).toEqual(["user_id", "username", "first_name", "last_name", "locked", "disabled", "organization", "phone", "password"]);
    expect(schema.properties.target_user.required).toEqual(["user_id"]);
  });

  it("describes exactly the user fields the API returns", () => {
    const now = new Date();
    const user = userJson({
      id: "0".repeat(32), username: "u", firstName: "", lastName: "", organization: "", phone: "", realm: "local", locked: false, disabled: false,
      passwordHash: null, notes: null, sessionEpoch: 0, lastSession: null, createdAt: now, updatedAt: now, memberships: [],
    });
    const documented = post("update_user").responses["200"].content["application/json"].schema.properties.user;
    expect(documented.required).toEqual(Object.keys(user));
    expect(Object.keys(documented.properties)).toEqual(Object.keys(user));
  });
});
