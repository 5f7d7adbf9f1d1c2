import { defineConfig } from "prisma/config";

// Prisma 7 reads this file for the CLI (generate). Migrations are applied by our own
// Wasm schema-engine runner (src/db/migrate.ts), so no datasource URL is needed here.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
