import type { TestProject } from "vitest/node";
import { buildPgliteTemplate, buildPostgresTemplate } from "./templates.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  project.provide("pgliteTemplate", await buildPgliteTemplate());
  const url = process.env.TEST_DATABASE_URL;
  project.provide("postgresTemplate", url ? await buildPostgresTemplate(url) : "");
}
