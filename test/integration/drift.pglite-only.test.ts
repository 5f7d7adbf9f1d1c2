// The schema/migrations drift check (engine-independent: it always runs on an in-memory PGlite).
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { diffSchemaAgainstMigrations, readSchema } from "../../src/db/migrate.js";

const template = () => new Blob([readFileSync(inject("pgliteTemplate"))]);

describe("schema drift", () => {
  it("schema.prisma and prisma/migrations agree (run `npm run db:migration -- NAME` after a schema change)", async () => {
    expect(await diffSchemaAgainstMigrations(undefined, template())).toBe("");
  });

  it("notices a schema change", async () => {
    const changed = (await readSchema()).replace("model User {", "model User {\n  nickname String?");
    expect(await diffSchemaAgainstMigrations(changed, template())).toMatch(/ALTER TABLE "users" ADD COLUMN\s+"nickname" TEXT/);
  });
});
