import { defineConfig } from "vitest/config";
import { findChromium } from "./scripts/chromium.mjs";

// Projects: unit tests (pure logic), integration tests on the embedded PGlite, and the same
// integration tests on PostgreSQL when TEST_DATABASE_URL is set (CI). Each test file runs in its
// own process (Colyseus' matchmaker is process-wide), on an ephemeral port. The browser suite
// (e2e: the /play client in headless Chromium against the real server) runs when a Chromium exists.
const postgres = Boolean(process.env.TEST_DATABASE_URL);
const chromium = findChromium();

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration:pglite", include: ["test/integration/**/*.test.ts"], env: { TEST_DB: "pglite" } },
      },
      ...(postgres
        ? [
            {
              extends: true,
              test: {
                name: "integration:postgres",
                include: ["test/integration/**/*.test.ts"],
                exclude: ["test/integration/**/*.pglite-only.test.ts"],
                env: { TEST_DB: "postgres" },
              },
            },
          ]
        : []),
      ...(chromium
        ? [{ extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], testTimeout: 90_000, env: { TEST_DB: "pglite", CHROMIUM_PATH: chromium } } }]
        : []),
    ],
  },
});
