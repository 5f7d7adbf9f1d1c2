// Loads @colyseus/tools (through @colyseus/testing) before anything else of a test file. Its module
// body starts optional imports (bun-websockets, redis-*) with Colyseus' dynamicImport, which takes
// a require() path whenever a global __dirname exists, and the generated Prisma Client defines one:
// loaded after it, those imports reject unhandled under vitest's ES module runner. Loaded first,
// they go through import() and a missing optional package is simply undefined.
import "@colyseus/tools";
