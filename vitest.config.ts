import { defineConfig } from "vitest/config";
import { findChromium } from "./scripts/chromium.mjs";
import { chaosUnavailable } from "./scripts/chaos-binaries.mjs";
import { LongestFirst } from "./test/helpers/sequencer.js";

// Projects: unit tests (pure logic), integration tests on the embedded PGlite, the same integration
// tests on PostgreSQL when TEST_DATABASE_URL is set (CI), and the Redis suites when TEST_REDIS_URL
// is set (below). Each test file runs in its own process (Colyseus' matchmaker is process-wide), on
// an ephemeral port. The browser suite (e2e: the /play client in headless Chromium against the real
// server) runs when a Chromium exists. The fuzz project attacks a server started as `npm start` does
// (`npm run fuzz` runs it alone, longer).
const postgres = Boolean(process.env.TEST_DATABASE_URL);
// Loaded first in every file that boots the server (why: test/helpers/colyseusToolsFirst.ts).
const serverSetup = ["test/helpers/colyseusToolsFirst.ts"];
const chromium = findChromium();
// The chaos suite (test/chaos, issue 29) starts, breaks and restarts its own Redis and PostgreSQL
// servers: it runs where redis-server and PostgreSQL's binaries are installed (`npm run test:chaos`).
const chaos = !chaosUnavailable();
// The suites that need TEST_REDIS_URL run once, on PostgreSQL when it is there; each in a Redis
// database of its own (test/helpers/redis.ts), so they run beside every other file.
const redisSuites = ["test/integration/redis.test.ts", "test/integration/scaleout.test.ts"];
// Files whose assertions are about rooms, the transport, origins and served files, not about what
// the database stores: what they make the server write is written the same way by suites that do
// assert it (boss, pvp, progress...), which run on both databases. They run once, on PGlite.
const databaseIndependent = [
  "test/integration/lagCompensation.test.ts",
  "test/integration/transport.test.ts",
  "test/integration/origins.test.ts",
  "test/integration/classroom.test.ts", // about limits: what it makes the server write, progress.test.ts and others assert
  "test/integration/sample.test.ts",
  "test/integration/playClient.test.ts",
  "test/integration/monitor.test.ts",
  "test/integration/modes.test.ts",
  "test/integration/bossLobby.test.ts",
  "test/integration/bossUpdates.test.ts",
  "test/integration/clientMistakeLogs.test.ts",
  "test/integration/edge.test.ts",
  "test/integration/matchmake.test.ts",
  "test/integration/examples.test.ts",
  "test/integration/clientState.test.ts",
];
// Lines that are expected and say nothing about a test: what the Colyseus SDK prints about
// situations the tests cause on purpose (a message arriving before a test listens for it, a
// connection the server closes: a flood, a dropped socket; its own reconnection attempts), which the
// tests assert on themselves, and the .env files @colyseus/tools (imported by @colyseus/testing)
// looks for. They would only bury real failures, so they are left out of the output.
const expectedNoise = [
  /^@colyseus\/sdk: onMessage\(\) not registered for type /,
  /^Room connection was closed unexpectedly \(\d+\)/,
  /^\[Colyseus reconnection\]/,
  /^◇ injected env \(\d+\) from /,
  /^ℹ️ {1,2}optional \.env file not found/,
];

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Three files at a time on two cores: a room suite spends most of its time waiting for the
    // server's ticks and windows (slitherrush.test.ts: 4.5 s of CPU in 23 s), a third file uses it.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    onConsoleLog: (log) => !expectedNoise.some((pattern) => pattern.test(log)),
    projects: [
      // Unit tests (pure logic) do not load the server, so not its setup file either (a third of their time).
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration:pglite", setupFiles: serverSetup, include: ["test/integration/**/*.test.ts"], exclude: redisSuites, env: { TEST_DB: "pglite" } },
      },
      ...(postgres
        ? [
            {
              extends: true,
              test: {
                name: "integration:postgres",
                setupFiles: serverSetup,
                include: ["test/integration/**/*.test.ts"],
                exclude: ["test/integration/**/*.pglite-only.test.ts", ...databaseIndependent, ...redisSuites],
                env: { TEST_DB: "postgres" },
              },
            },
          ]
        : []),
      {
        extends: true,
        test: {
          name: "integration:redis",
          setupFiles: serverSetup,
          include: redisSuites,
          env: { TEST_DB: postgres ? "postgres" : "pglite" },
        },
      },
      // The property-based fuzz suite (test/fuzz, issue 19): its own server, seeded and time-bounded.
      { extends: true, test: { name: "fuzz", setupFiles: serverSetup, include: ["test/fuzz/**/*.test.ts"], env: { TEST_DB: "pglite" } } },
      ...(chromium
        ? [{ extends: true, test: { name: "e2e", setupFiles: serverSetup, include: ["test/e2e/**/*.test.ts"], testTimeout: 90_000, env: { TEST_DB: "pglite", CHROMIUM_PATH: chromium } } }]
        : []),
      // Each file has its own Redis and PostgreSQL ports (6461-6468, 55461-55468), so files run side by side.
      ...(chaos ? [{ extends: true, test: { name: "chaos", include: ["test/chaos/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 180_000 } }] : []),
    ],
  },
});
