// Opens (creating or migrating first, as a start does) the embedded database in argv[2] and closes
// it: the process a kill sweep interrupts (test/integration/killSweep.pglite-only.test.ts).
import { openPreparedEmbeddedDatabase } from "../../src/db/prepareEmbedded.js";

const { db, applied } = await openPreparedEmbeddedDatabase(process.argv[2]);
await db.close();
console.log(JSON.stringify(applied));
process.exit(0);
