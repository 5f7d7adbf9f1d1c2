// What a start checks before it does anything else (creates or opens a database, listens): that it
// is not a second copy. A second copy on the same DATA_DIR or port is told in one line, naming what
// holds it, and exits 2 like every configuration error (docs/operations.md#starting-twice).
import { createServer } from "node:net";
import { embeddedDatabaseDir, type Config } from "./config.js";
import { DatabaseInUseError, lockHolderOf } from "./db/lock.js";

/** A port another process listens on: what is wrong and what to do, in one line. */
export class PortInUseError extends Error {
  constructor(readonly variable: string, readonly host: string, readonly port: number) {
    super(`${variable}: port ${port} on ${host} is in use by another process, probably another copy of this server: stop it first, or set ${variable} to a free port`);
    this.name = "PortInUseError";
  }
}

/** Resolves when `port` can be listened on at `host`; rejects with PortInUseError when another process listens there. */
export function checkPortFree(variable: string, host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => (err.code === "EADDRINUSE" ? reject(new PortInUseError(variable, host, port)) : resolve()));
    // Another error (an address this host does not have, a privileged port) is the real listen's to report.
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Refuses a second copy: the embedded database's folder held by a live process, or a port in use. */
export async function refuseSecondCopy(config: Config): Promise<void> {
  if (!config.databaseUrl) {
    const dir = embeddedDatabaseDir(config);
    const holder = lockHolderOf(dir);
    if (holder !== undefined) throw new DatabaseInUseError(dir, holder);
  }
  await checkPortFree("PORT", config.host, config.port);
  if (config.samplePort !== 0) await checkPortFree("SAMPLE_PORT", config.host, config.samplePort);
}

/** An error a start reports as one line with exit code 2 (a second copy), whenever it is met. */
export const isSecondCopy = (err: unknown): err is Error =>
  err instanceof DatabaseInUseError || err instanceof PortInUseError || (err as NodeJS.ErrnoException)?.code === "EADDRINUSE";
