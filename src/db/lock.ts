// PGlite is single-process: two processes opening one data folder would corrupt it. Whoever opens
// the folder holds DATA_DIR/pglite.lock (our pid) until it closes; a lock whose process is gone is
// stale and taken over.
import { openSync, closeSync, writeSync, readFileSync, unlinkSync } from "node:fs";

export class DatabaseInUseError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(
      `the embedded database in ${dataDir} is in use by another process (pid ${pid}), ` +
        `probably the running server: stop it first, or point DATABASE_URL at a PostgreSQL server that both can share`,
    );
    this.name = "DatabaseInUseError";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock or throws DatabaseInUseError; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, "utf8").trim() === String(process.pid)) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DatabaseInUseError(dataDir, pid);
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
