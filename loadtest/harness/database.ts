// A throwaway PostgreSQL database for one load run (--postgres URL): created empty, migrated by the
// server at start-up, dropped afterwards.
import { randomBytes } from "node:crypto";
import pg from "pg";

export async function throwawayDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `loadtest_${process.pid}_${randomBytes(3).toString("hex")}`;
  const run = async (sql: string) => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
